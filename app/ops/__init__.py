"""Running the service: the settings (config), the logs (logs), the Prometheus metrics
(metrics) and the gunicorn hooks (gunicorn_hooks). It may import app/model/ only; logs is the one
module here that knows Flask (the access line is written per request).
"""
