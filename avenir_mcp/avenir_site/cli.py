"""`avenir-mcp`: the command an installed avenir-mcp runs (pyproject.toml, [project.scripts]).

- `avenir-mcp stdio [--read-only]`: what a desktop client starts (`manage.py mcp_stdio`);
- `avenir-mcp serve [--host H] [--port P] [--workers N]`: the HTTP service, /mcp, the admin and
  /api, under uvicorn (what `make run` serves, without the reloader); N > 1 workers need
  `REDIS_URL`, refused in one line before anything starts (docs/architecture.md#several-workers);
- `avenir-mcp token NAME [--read-only] [--toolsets a,b]`: an MCP bearer token (`create_mcp_token`);
- `avenir-mcp admin [--username U] [--email E]`: an owner login for the admin (`createsuperuser`,
  asking for the password);
- `avenir-mcp manage COMMAND …`: any other management command (`avenir-mcp manage help`).

Its state lives in one home folder (avenir_mcp/avenir_site/home_folder.py). Each command but `manage` first
migrates the database, one process at a time (a lock on `start.lock` in the home folder, so
two processes started together do not both migrate); `stdio` and `serve` then do what
`make run` does before serving (`manage.py bootstrap`): without a YNAB key, the sandbox's demo
plan; `serve` also a first admin login and MCP token, printed once. `stdio` writes nothing to
stdout but the protocol. A failure is one line on stderr, `avenir-mcp: …`, and status 1.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import django
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command, execute_from_command_line
from django.core.management.base import CommandError

from avenir_mcp.avenir_site.management.commands.runserver import check_workers, serve_on
from avenir_mcp.avenir_site.startup import collection_paused

PROGRAM = "avenir-mcp"
START_LOCK = "start.lock"


@contextmanager
def started_alone() -> Iterator[None]:
    """The database migrated, then the block run, by one starting process at a time: the others
    wait on the home folder's start lock, then find the work done."""
    home = Path(settings.LOCAL_DIR)
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    with os.fdopen(os.open(home / START_LOCK, os.O_WRONLY | os.O_CREAT, 0o600), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        call_command("migrate", interactive=False, verbosity=0)
        yield


def stdio(options: argparse.Namespace) -> None:
    with started_alone():
        call_command("bootstrap", sandbox_only=True, stdout=sys.stderr)  # stdout is the protocol's
    call_command("mcp_stdio", read_only=options.read_only)


def serve(options: argparse.Namespace) -> None:
    check_workers(options.workers)  # before migrating or printing anything
    port = options.port or settings.PORT
    serve_on(port)  # the addresses bootstrap prints
    with started_alone():
        call_command("bootstrap")  # also the admin login and the first token, shown once
    host = f"[{options.host}]" if ":" in options.host else options.host
    call_command("runserver", f"{host}:{port}", use_reloader=False, workers=options.workers)


def token(options: argparse.Namespace) -> None:
    with started_alone():
        call_command("create_mcp_token", options.name, read_only=options.read_only, toolsets=options.toolsets)


def admin(options: argparse.Namespace) -> None:
    with started_alone():
        pass  # the person types a password next: other processes need not wait for it
    call_command("createsuperuser", username=options.username, email=options.email)


def manage(options: argparse.Namespace) -> None:
    execute_from_command_line([f"{PROGRAM} manage", *options.arguments])


def command_line() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROGRAM, description="avenir-mcp: a safe MCP server for YNAB.")
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")

    command = commands.add_parser("stdio", help="Serve MCP over stdio (what a desktop client starts).")
    command.add_argument("--read-only", action="store_true", help="Never list or accept write tools.")
    command.set_defaults(run=stdio)

    command = commands.add_parser("serve", help="Serve /mcp, the admin and the API over HTTP.")
    command.add_argument("--host", default="127.0.0.1", help="Address to listen on (default 127.0.0.1).")
    command.add_argument("--port", type=int, help="Port to listen on (default PORT, else 8000).")
    command.add_argument(
        "--workers", type=int, default=1, help="Processes serving (default 1; more need REDIS_URL)."
    )
    command.set_defaults(run=serve)

    command = commands.add_parser("token", help="Create an MCP bearer token, printed once on stdout.")
    command.add_argument("name", help="Who will use it, e.g. 'Claude Desktop'.")
    command.add_argument("--read-only", action="store_true", help="The token never sees write tools.")
    command.add_argument("--toolsets", default="", help="Offer only these toolsets, comma-separated.")
    command.set_defaults(run=token)

    command = commands.add_parser("admin", help="Create an owner login for the admin (asks a password).")
    command.add_argument("--username", help="The login's name (asked when not given).")
    command.add_argument("--email", help="The login's email address (asked when not given).")
    command.set_defaults(run=admin)

    command = commands.add_parser(
        "manage", help="Run any management command (`manage help` lists them).", add_help=False
    )
    command.add_argument("arguments", nargs=argparse.REMAINDER, help="The command and its arguments.")
    command.set_defaults(run=manage)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = command_line()
    options, unknown = parser.parse_known_args(argv)
    if options.run is manage:  # an option first (`manage --help`) is not in its remainder
        options.arguments = [*unknown, *options.arguments]
    elif unknown:
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "avenir_mcp.avenir_site.settings")
    try:
        with collection_paused():  # avenir_site.startup
            django.setup()
        options.run(options)
    except (CommandError, ImproperlyConfigured) as error:
        print(f"{PROGRAM}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # `python -m avenir_mcp.avenir_site.cli`: what a client's stdio set-up starts
    sys.exit(main())
