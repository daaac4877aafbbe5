"""The SQL layer: the filter operators (filters), the named queries of sql/
(queries) and the runner that sends them (db). It may import app/model/ and app/ops/, and
nothing of the web framework.
"""
