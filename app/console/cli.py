"""`jembatan`: one command for a plant's IT person, on Linux and Windows alike.

    jembatan serve            the HTTP service (gunicorn; waitress on Windows or when asked)
    jembatan check-sql        run every query of the mapping once and prove each read on it
    jembatan draft-mapping    draft sql/ for a table nobody here has seen
    jembatan demo-db          create the demo SQLite database
    jembatan mcp              the MCP tools on stdin and stdout, for an assistant to start
    jembatan warehouse        every plant's records into the company's warehouse (dlt)

Each takes `--config FILE` (else JEMBATAN_CONFIG, else ./config.toml) and answers `--help`
before any database exists: the app is built only when a command runs. The same commands
stay reachable as `flask --app wsgi ...` from a checkout.
"""

from __future__ import annotations

import copy
import os
import sys

import click
from flask.cli import ScriptInfo

from ..commands.check import check_sql_command
from ..commands.demo import demo_db
from ..commands.mapping import draft_mapping_command
from ..mcp.protocol import mcp_command
from ..ops.config_option import FROM_SETTINGS, config_option
from . import serving
from .warehouse import warehouse


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@config_option
@click.pass_context
def main(ctx: click.Context) -> None:
    """Jembatan: a read-only HTTP API over a plant's weighbridge and batching database."""
    # The commands that need the app (check-sql, draft-mapping, mcp) build it from here,
    # once they run: Flask's with_appcontext finds this.
    ctx.obj = ScriptInfo(create_app=serving.built, set_debug_flag=False)
    ctx.obj.data[FROM_SETTINGS] = True


@main.command("serve")
@config_option
@click.option("--bind", "-b", default=None, metavar="HOST:PORT",
              help="Where to listen. Default: 127.0.0.1:8000, or 127.0.0.1 on "
                   "$HTTP_PLATFORM_PORT when IIS's HttpPlatformHandler starts it.")
@click.option("--server", type=click.Choice(serving.SERVERS), default="auto",
              show_default=True,
              help="gunicorn (Linux: a master and worker processes) or waitress (one process "
                   "of threads; the only one on Windows). auto: gunicorn, waitress on Windows.")
@click.option("--workers", "-w", type=click.IntRange(min=1), default=None,
              help="gunicorn's worker processes. Default: 2.")
@click.option("--threads", type=click.IntRange(min=1), default=None,
              help="Threads per process. Default: 4 under gunicorn, 8 under waitress.")
@click.option("--timeout", type=click.IntRange(min=1), default=None,
              help="gunicorn: seconds before a silent worker is replaced. Default: 120.")
@click.argument("gunicorn_flags", nargs=-1, type=click.UNPROCESSED, metavar="[-- GUNICORN FLAGS]")
@click.option("--check-config", is_flag=True,
              help="Build the service from the settings and the mapping, try each "
                   "collection's mapping on the database and prove its reads as the start "
                   "does, then exit: 0 when every served collection would be served (for "
                   "systemd's ExecReload), 1 with each reason one would answer 503 (the file "
                   "and line to correct) or the start be refused.")
def serve(bind: str | None, server: str, workers: int | None, threads: int | None,
          timeout: int | None, check_config: bool, gunicorn_flags: tuple[str, ...]) -> None:
    """Serve the HTTP API (and /mcp) until stopped.

    gunicorn's own flags may follow a `--` (jembatan serve -- --keep-alive 5);
    they apply after its settings and the options above."""
    if check_config:
        found = serving.check_config()
        for line in found:
            click.echo(line, err=True)
        if found:
            sys.exit(1)
        click.echo("jembatan: the settings and the mapping are good to serve")
        return
    bind = bind or serving.default_bind(os.environ)
    try:
        host, port = serving.split_bind(bind)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--bind") from None
    if serving.chosen(server) == "waitress":
        if workers is not None or timeout is not None or gunicorn_flags:
            raise click.UsageError("--workers, --timeout and flags after -- are gunicorn's: "
                                   "waitress is one process, and its timeouts are fixed "
                                   "(docs/deploy.md)")
        serving.serve_waitress(host, port, threads or serving.WAITRESS_THREADS)
        return
    options = {"bind": [bind], "workers": workers, "threads": threads, "timeout": timeout}
    serving.serve_gunicorn({k: v for k, v in options.items() if v is not None}, gunicorn_flags)


def with_config(command: click.Command) -> click.Command:
    """A copy of `command` (of app/commands, or the MCP face's) that takes --config too. The
    `flask --app wsgi` forms keep the originals, without it: Flask builds the app to find a
    command, before the command's options are read, so --config would come too late there
    (JEMBATAN_CONFIG does it)."""
    twin = copy.copy(command)
    twin.params = list(command.params)  # its own list: the option goes on the copy alone
    return config_option(twin)


for command in (check_sql_command, draft_mapping_command, demo_db, mcp_command):
    main.add_command(with_config(command))
main.add_command(warehouse)
