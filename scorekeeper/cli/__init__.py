"""The `scorekeeper` command. Every subcommand lives in this package, above every layer, so
that a command may open the app without a lower layer importing it. Add a subcommand with
@main.command() and @instance_option, or to LAZY_COMMANDS when it lives in a module of its own.

Each command imports what it needs when it runs: `scorekeeper --help` loads none of the app,
the advisor (numpy) or WeasyPrint, and `serve` loads the app only.
"""

from __future__ import annotations

import errno
import importlib
import json
import resource
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import click

from scorekeeper.net import lan_address


def instance_option(command: Callable) -> Callable:
    """Give a subcommand `--instance DIR`, passed on as `instance: Path | None`."""
    return click.option(
        "--instance",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Folder holding the database, the secret key and config.py "
        "(created if missing; default: instance/ in a checkout, the user's data folder "
        "in an installed copy).",
    )(command)


# Commands defined elsewhere, imported only when run: name -> (module:attribute, whether
# this module gives it --instance, its summary for --help). tests/test_cli.py checks that
# each summary is the command's own.
LAZY_COMMANDS = {
    "advise": (
        "scorekeeper.cli.advisor:advise",
        False,
        "Print, as JSON and best first, what the active player of GAME should do with "
        "these dice and the final total to expect: after the last throw every box they may "
        "fill with the points it scores now, after the 1st or 2nd every distinct keep "
        "(keeping all: scoring now).",
    ),
    "backup": (
        "scorekeeper.cli.backup:backup_command",
        True,
        "Copy the games database into FILE (replaced if it exists), even while the server runs.",
    ),
    "export": (
        "scorekeeper.cli.transfer:export_command",
        True,
        "Print every game (or one) as a JSON array of game documents.",
    ),
    "import": (
        "scorekeeper.cli.transfer:import_command",
        True,
        "Import game documents (one per file, or an array as `export` prints).",
    ),
    "strategy": (
        "scorekeeper.cli.advisor:strategy",
        False,
        "Build (or load) the tables of these rules, one per column kind; the last line is "
        "the expected score of a fresh sheet (for several columns, played turn about).",
    ),
}


class LazyGroup(click.Group):
    """A group whose LAZY_COMMANDS are imported when called, not when listed, and which says
    a database URL or a setting that cannot be used in one line, whatever the subcommand."""

    def invoke(self, ctx: click.Context):
        from scorekeeper.config import SettingError
        from scorekeeper.store.engine import DatabaseSetupError

        try:
            return super().invoke(ctx)
        except (DatabaseSetupError, SettingError) as error:
            raise click.ClickException(str(error)) from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in LAZY_COMMANDS:
            target, with_instance, _summary = LAZY_COMMANDS[name]
            module, attribute = target.split(":")
            command = getattr(importlib.import_module(module), attribute)
            self.add_command(instance_option(command) if with_instance else command, name)
        return super().get_command(ctx, name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            command = self.commands.get(name) or click.Command(name, help=LAZY_COMMANDS[name][2])
            rows.append((name, command.get_short_help_str(limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup)
@click.version_option(package_name="scorekeeper")
def main() -> None:
    """Yams score keeper: a score sheet on a tablet, for games played with real dice."""


@main.command()
@click.option("--host", default="0.0.0.0", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
@instance_option
def serve(host: str, port: int, instance: Path | None) -> None:
    """Serve the score keeper on the home network."""
    import logging

    import waitress

    from scorekeeper.app import create_app

    app = create_app(instance_path=instance)
    click.echo(f"Instance folder: {app.instance_path}")
    logging.basicConfig()  # waitress's warnings, as waitress.serve would show them
    try:
        # Listening before any address is printed: a port taken says so, not "Open ...".
        server = waitress.create_server(app, host=host, port=port, **waitress_options(app))
    except OSError as error:
        raise click.ClickException(cannot_listen(host, port, error)) from None
    if app.config["FORK_SERVER_AT_START"]:
        from scorekeeper.workers import start_fork_server

        start_fork_server()
    from scorekeeper.web.conseil import build_ahead_at_start, coach_at_start

    build_ahead_at_start(app)  # the first Conseil of a classique or Yatzy game at once
    coach_at_start(app)  # the figures of the games finished without them, in the background
    click.echo("Open the score keeper at:")
    for address in addresses_to_open(host, port):
        click.echo(f"  {address}")
    # SIGTERM (systemd, kill, a closed session) stops the server as Ctrl-C does: waitress
    # closes its sockets, and the jobs of the worker processes, for nobody now, end with it
    # (Python would wait for them: a Conseil's build takes minutes).
    before = stop_on(signal.SIGINT, signal.SIGTERM)
    try:
        server.run()
    finally:
        for number, handler in before.items():
            signal.signal(number, handler)
        from scorekeeper.workers import stop_workers

        stop_workers()


def waitress_options(app) -> dict:
    """How `serve` runs waitress for this app. Waitress reads each request whole (headers and
    body) in its own loop before a thread takes it, so a connection that is idle or slow to
    send costs a socket and no thread: the connections it may hold are sized from the files
    the process may open, and one that sends nothing for SERVER_IDLE_SECONDS is closed. An
    open sheet's stream of changes is an answer under way, which waitress never closes as
    idle."""
    from scorekeeper.web.transfer import largest_body

    idle = app.config["SERVER_IDLE_SECONDS"]
    return {
        # SERVER_THREADS for the requests (Python runs one thread at a time, and each SQLite
        # call lets another in: with 8 of them eight tablets' turns waited on each other, p95
        # 171 ms against 118 ms with 4, in bench/load.py), and one for each open sheet's
        # stream of changes, which sleeps until a turn wakes it.
        "threads": app.config["SERVER_THREADS"] + app.config["LIVE_STREAMS"],
        "connection_limit": connection_limit(app.config["SERVER_CONNECTION_LIMIT"]),
        # poll(), not select(), which cannot watch a socket numbered 1024 or more.
        "asyncore_use_poll": True,
        "channel_timeout": idle,
        # How often waitress looks for idle connections: a connection goes within a quarter
        # more than its idle time.
        "cleanup_interval": max(1, idle // 4),
        # Waitress refuses a larger body itself, before writing any of it to a temporary file.
        "max_request_body_size": largest_body(app),
    }


# Open files the server keeps for itself besides its connections (or half the limit, when
# it is small): the database's few a thread, the worker processes' pipes, the PDF cache, logs.
FILES_KEPT = 256


def connection_limit(most: int) -> int:
    """The connections `serve` may hold at once: `most`, or fewer when the process may not
    open that many files, once its soft limit on open files is raised to the hard one (the
    soft one is often 1,024 where the hard one allows far more)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            pass  # some systems cap the soft limit below an infinite hard one: keep it
    files = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if files == resource.RLIM_INFINITY:
        return most
    return max(1, min(most, files - min(FILES_KEPT, files // 2)))


def cannot_listen(host: str, port: int, error: OSError) -> str:
    """Why `serve` cannot listen, in one line that says what to do."""
    if error.errno == errno.EADDRINUSE:
        return (
            f"port {port} is already in use (another score keeper, or another program): "
            f"choose another with --port, for instance --port {port + 1 if port < 65535 else 8000}"
        )
    return f"cannot listen on {host}:{port}: {error.strerror or error}"


def stop_on(*signals: signal.Signals) -> dict:
    """Stop waitress on these signals (Ctrl-C, a service manager's stop) as Ctrl-C does, with
    the open sheets' streams ended first: waitress waits for its threads (5 s at most), and a
    stream would never end by itself. Returns the handlers it replaced."""
    from scorekeeper.store.changes import stop_watchers

    def stop(signum, frame):
        # In a thread: the handler must not wait for a lock a request thread holds.
        threading.Thread(target=stop_watchers, daemon=True).start()
        raise KeyboardInterrupt

    return {number: signal.signal(number, stop) for number in signals}


@main.command()
@instance_option
def migrate(instance: Path | None) -> None:
    """Create or upgrade the database's tables, then exit (a deploy step before the servers
    start; they would migrate on start anyway, one at a time)."""
    from scorekeeper.app import create_app

    app = create_app(instance_path=instance)
    click.echo(f"Database up to date: {app.config['DATABASE_URL'].partition('://')[0]}")


@main.group()
def household() -> None:
    """Households of a hosted score keeper (HOUSEHOLDS = True)."""


@household.command("create")
@click.argument("name")
@click.password_option(
    "--passphrase",
    prompt="Phrase secrète",
    confirmation_prompt=True,
    help="The household's passphrase (asked when not given).",
)
@instance_option
def create_household_command(name: str, passphrase: str, instance: Path | None) -> None:
    """Create the household NAME, also when sign-up is closed (HOUSEHOLD_SIGNUP = False)."""
    from scorekeeper.app import create_app
    from scorekeeper.store.household_names import (
        HouseholdNameRefused,
        HouseholdNameTaken,
        household_name,
    )
    from scorekeeper.store.households import create_household
    from scorekeeper.web.joining import MIN_PASSPHRASE_LENGTH
    from scorekeeper.web.passphrases import passphrase_hash
    from scorekeeper.web.store import STORE_EXTENSION

    try:
        name = household_name(name)
    except HouseholdNameRefused as refused:
        raise click.BadParameter(str(refused), param_hint="NAME") from None
    if len(passphrase) < MIN_PASSPHRASE_LENGTH:
        raise click.BadParameter(
            f"au moins {MIN_PASSPHRASE_LENGTH} caractères", param_hint="--passphrase"
        )
    store = create_app(instance_path=instance).extensions[STORE_EXTENSION]
    try:
        household_id = create_household(store, name, passphrase_hash(passphrase))
    except HouseholdNameTaken:
        raise click.ClickException(
            f"une maison s'appelle déjà « {name} », ou d'un nom qui lui ressemble trop"
        ) from None
    finally:
        store.dispose()
    click.echo(f"Maison « {name} » créée (numéro {household_id}).")


def addresses_to_open(host: str, port: int) -> list[str]:
    """The URLs that reach a server listening on `host`: on this machine, then from the LAN."""
    if host in ("0.0.0.0", "::", ""):
        return [f"http://localhost:{port}", f"http://{lan_address()}:{port}"]
    if host in ("localhost", "127.0.0.1", "::1"):
        return [f"http://localhost:{port}"]
    return [f"http://{host}:{port}"]


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@instance_option
def replay(files: tuple[Path, ...], instance: Path | None) -> None:
    """Check game documents by replaying them: one JSON line per file.

    Exit status 0 when every file is a legal game (finished or not), 2 otherwise.
    """
    all_legal = True
    for path in files:
        result = replay_file(path)
        all_legal = all_legal and "error" not in result
        click.echo(json.dumps(result, ensure_ascii=False))
    if not all_legal:
        sys.exit(2)


def replay_file(path: Path) -> dict:
    """The totals of a game document, or the first thing that makes it illegal."""
    from scorekeeper.rules import IllegalEntry, RuleError, read_document
    from scorekeeper.rules.document import read_json

    try:
        data = read_json(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, RuleError) as error:
        return {"file": str(path), "error": f"document illisible : {error}"}
    try:
        state = read_document(data).replay()
    except IllegalEntry as error:
        return {"file": str(path), "error": f"entry {error.number}: {error}"}
    except RuleError as error:
        return {"file": str(path), "error": str(error)}
    players = [
        {
            "name": sheet.name,
            "total": sheet.total,
            "upper": sheet.upper,
            "upper_bonus": sheet.upper_bonus,
            "lower": sheet.lower,
            "yams_bonus": sheet.yams_bonus,
        }
        for sheet in state.sheets
    ]
    result = {"file": str(path), "players": players}
    if state.rules.is_generala and state.winner is not None:
        # A Generala servida won the game at once: its player is first, whatever the totals.
        result["won_at_once"] = state.players[state.winner]
    return result
