"""The SQL layer: the filter operators (filters); the named queries of sql/, read as SQL
text (sqltext), as files (sqlfiles), filled in (templates), loaded at start (loading) and kept
as the runner sends them (queries); the runner that sends them (db), and which of its errors
are the database's state (failures). It may import app/model/ and app/ops/, and nothing of
the web framework.
"""
