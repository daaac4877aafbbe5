"""The Model Context Protocol face: the protocol over HTTP and stdio (protocol) and the
table of tools over the read core (tools). It may import every layer below the faces, and
app/http/'s error shape (protocol answers a refused HTTP request as every route does);
tools imports nothing of the web framework.
"""
