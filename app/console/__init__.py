"""The `jembatan` command, the face a plant's IT person types (cli), and how it serves the
app (serving: gunicorn where it runs, waitress on Windows or when asked), and the proof
at start that gunicorn's master starts (prover). It stands above
everything: the only package that imports the factory, `app` itself.
"""
