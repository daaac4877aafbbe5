"""Running the service: the settings (config, and config_option: the commands' --config),
the logs (logs), the Prometheus metrics (metrics), what gunicorn is given (gunicorn_hooks:
its hooks and SETTINGS) and how waitress serves (waitress_serving); deploy/ holds the files
docs/deploy.md shows (nginx's site and snippet, systemd's unit, IIS's web.config). It may
import app/model/ only, and nothing of the web framework: the HTTP face writes each request's
access line through logs (app/http/logged.py).
"""
