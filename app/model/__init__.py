"""What a record is and what a client may ask of it, as data shared by every layer:
the ten collections (collections), the record shapes and their wire values (schemas), what
each field holds (glossary, glossary.toml), the tables the embedded database is made of
(tables), what people call the collections (labels), how a parameter's value is written
(params) and the two answers a read gives instead of records (problems: Invalid, Absent).
It imports nothing else of app/ and nothing of the web framework.
"""
