"""The HTTP face: the Flask application class (application), the table of routes (routes),
the views of a collection's reads (views) and of the service's own routes (service_views),
the query arguments (argument_schemas, read with the rules of arguments), the path
converters (converters), the OpenAPI document (openapi), who may reach what (access), the
answers in each format (answers, streamed by streaming), the JSON errors (errors) and the
pages for people (pages, static/). It may import every layer below the faces (app/core/ and
what app/core/ may import), never app/mcp/ or app/commands/.
"""
