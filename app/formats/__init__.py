"""The output formats: their registry (registry), records to JSON and the
encoders' methods (encoding) and the streaming .xlsx writer (xlsx). It may import app/model/,
and nothing of the web framework.
"""
