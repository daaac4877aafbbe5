"""The HTTP face: the table of routes (routes), their views (views), query arguments
(arguments), the answers in each format (answers, streamed by streaming), the JSON errors
(errors) and the pages for people (pages, static/). It may import every layer below the
faces (app/core/ and what app/core/ may import), never app/mcp/ or app/commands/.
"""
