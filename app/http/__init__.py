"""The HTTP face: the Flask application class (application), the table of routes (routes),
the views of a collection's reads (views) and of the service's own routes (service_views),
the query arguments (argument_schemas, read with the rules of arguments), the path
converters (converters), the OpenAPI document (openapi), who may reach what (access), the
answers in each format (answers, streamed by streaming), each request's id, outcome and
access line (logged), the JSON errors (errors), the pages for people (pages, static/) and its
departures from Flask and flask-smorest (patches). It may import app/core/, app/formats/,
app/ops/ and app/model/, never app/database/ (the runner is its door to the database),
app/mcp/ or app/commands/.
"""
