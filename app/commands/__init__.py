"""Commands that never run in a request: `check-sql` (check, with deduction and indexes: the
reads no index serves), `draft-mapping` (mapping, with matching, sampling, words, dates and
codes) and `demo-db` (demo). They may import every layer below the faces; nothing of app/
imports them but the factory, which registers them.
"""
