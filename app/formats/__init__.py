"""The output formats: their registry (registry), records to JSON and the
encoders' methods (encoding), the streaming .xlsx writer (xlsx) and what a workbook heads
its columns with and leaves out (headings). It may import app/model/,
and nothing of the web framework.
"""
