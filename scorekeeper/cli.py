"""The `scorekeeper` command. Add a subcommand with @main.command() and @instance_option."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import click
import waitress

from scorekeeper.advisor.commands import advise, strategy
from scorekeeper.app import create_app
from scorekeeper.net import lan_address
from scorekeeper.rules import IllegalEntry, RuleError, read_document
from scorekeeper.store.backup import backup_command
from scorekeeper.store.households import (
    MAX_HOUSEHOLD_NAME_LENGTH,
    HouseholdNameTaken,
    create_household,
)
from scorekeeper.store.store import DatabaseSetupError
from scorekeeper.transfer_cli import export_command, import_command
from scorekeeper.web.households import MIN_PASSPHRASE_LENGTH, passphrase_hash
from scorekeeper.web.store import STORE_EXTENSION


def instance_option(command: Callable) -> Callable:
    """Give a subcommand `--instance DIR`, passed on as `instance: Path | None`."""
    return click.option(
        "--instance",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Folder holding the database, the secret key and config.py "
        "(created if missing; default: Flask's instance folder).",
    )(command)


class ScorekeeperGroup(click.Group):
    """Says a database URL that cannot be used in one line, whatever the subcommand."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except DatabaseSetupError as error:
            raise click.ClickException(str(error)) from None


@click.group(cls=ScorekeeperGroup)
@click.version_option(package_name="scorekeeper")
def main() -> None:
    """Yams score keeper: a score sheet on a tablet, for games played with real dice."""


main.add_command(instance_option(backup_command))
main.add_command(instance_option(export_command))
main.add_command(instance_option(import_command))
main.add_command(strategy)
main.add_command(advise)


# Waitress's threads. Python runs one of them at a time, and each SQLite call lets another
# in: with many threads, eight tablets' turns wait on each other between every call (turn
# p95 171 ms with 8 threads, 118 ms with 4, in bench/load.py). A few threads still let a
# PDF being drawn (half a second) leave room for the turns.
SERVER_THREADS = 4


@main.command()
@click.option("--host", default="0.0.0.0", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
@instance_option
def serve(host: str, port: int, instance: Path | None) -> None:
    """Serve the score keeper on the home network."""
    app = create_app(instance_path=instance)
    click.echo(f"Instance folder: {app.instance_path}")
    click.echo("Open the score keeper at:")
    for address in addresses_to_open(host, port):
        click.echo(f"  {address}")
    waitress.serve(app, host=host, port=port, threads=SERVER_THREADS)


@main.command()
@instance_option
def migrate(instance: Path | None) -> None:
    """Create or upgrade the database's tables, then exit (a deploy step before the servers
    start; they would migrate on start anyway, one at a time)."""
    app = create_app(instance_path=instance)
    click.echo(f"Database up to date: {app.config['DATABASE_URL'].partition('://')[0]}")


@main.group()
def household() -> None:
    """Households of a hosted score keeper (HOUSEHOLDS = True)."""


@household.command("create")
@click.argument("name")
@click.password_option("--passphrase", prompt="Phrase secrète", confirmation_prompt=True,
                       help="The household's passphrase (asked when not given).")
@instance_option
def create_household_command(name: str, passphrase: str, instance: Path | None) -> None:
    """Create the household NAME, also when sign-up is closed (HOUSEHOLD_SIGNUP = False)."""
    name = name.strip()
    if not 0 < len(name) <= MAX_HOUSEHOLD_NAME_LENGTH:
        raise click.BadParameter(f"1 à {MAX_HOUSEHOLD_NAME_LENGTH} caractères", param_hint="NAME")
    if len(passphrase) < MIN_PASSPHRASE_LENGTH:
        raise click.BadParameter(f"au moins {MIN_PASSPHRASE_LENGTH} caractères",
                                 param_hint="--passphrase")
    store = create_app(instance_path=instance).extensions[STORE_EXTENSION]
    try:
        household_id = create_household(store, name, passphrase_hash(passphrase))
    except HouseholdNameTaken:
        raise click.ClickException(f"une maison s'appelle déjà « {name} »") from None
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
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        return {"file": str(path), "error": f"document illisible : {error}"}
    try:
        state = read_document(data).replay()
    except IllegalEntry as error:
        return {"file": str(path), "error": f"entry {error.number}: {error}"}
    except RuleError as error:
        return {"file": str(path), "error": str(error)}
    players = [
        {"name": sheet.name, "total": sheet.total, "upper": sheet.upper,
         "upper_bonus": sheet.upper_bonus, "lower": sheet.lower, "yams_bonus": sheet.yams_bonus}
        for sheet in state.sheets
    ]
    return {"file": str(path), "players": players}
