"""`scorekeeper export` and `scorekeeper import`: games as JSON documents on the command line.

scorekeeper.cli registers both commands and gives them its `--instance` option. They go
through scorekeeper.store.transfer, as the web download and upload do; `export --bgstats`
through store/bgstats.py, as the web's BG Stats download does.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from flask import Flask
from flask_babel import force_locale

from scorekeeper.app import create_app
from scorekeeper.store import HOME_HOUSEHOLD, GameNotFound, Store
from scorekeeper.store.documents import ImportRefused, Problem, check_files
from scorekeeper.store.exports import export_documents, json_array
from scorekeeper.store.households import find_household
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.store.transfer import import_games
from scorekeeper.web.edge import json_has_forbidden_character
from scorekeeper.web.security import MAX_DATABASE_ID
from scorekeeper.web.store import STORE_EXTENSION
from scorekeeper.web.transfer import bgstats_plays


def _open_store(instance: Path | None) -> Store:
    return create_app(instance_path=instance).extensions[STORE_EXTENSION]


def household_id(store: Store, name: str | None) -> int:
    """The household called `name` (hosted), the home one without a name; exits with 2 and
    a message for a name no household has."""
    if name is None:
        return HOME_HOUSEHOLD
    found = find_household(store, name)
    if found is None:
        store.dispose()
        click.echo(f"Aucune maison ne s'appelle « {name} ».", err=True)
        sys.exit(2)
    return found.id


household_option = click.option(
    "--household",
    "household_name",
    default=None,
    help="Hosted: the household whose games these are (its name); the home one without it.",
)


def _line(data: dict) -> str:
    return json.dumps(data, ensure_ascii=False)


@click.command("export")
@click.option(
    "--game",
    "game_id",
    type=click.IntRange(1, MAX_DATABASE_ID),
    default=None,
    help="Export this game only (its number, as in /games/<id>).",
)
@click.option(
    "--bgstats",
    is_flag=True,
    help="The finished games as BG Stats plays (the play of its createPlay link, "
    "each), in a JSON array, instead of game documents.",
)
@household_option
def export_command(
    game_id: int | None, bgstats: bool, instance: Path | None, household_name: str | None
) -> None:
    """Print every game (or one) as a JSON array of game documents.

    Each document is the `replay` format plus id, status, created_at,
    started_at and finished_at:
    `scorekeeper import` reads it back, here or on another computer.
    With --bgstats, the finished games as BG Stats plays.
    """
    if instance is not None and not instance.is_dir():
        # An export never creates an instance: a mistyped folder would export nothing.
        click.echo(f"Aucune instance dans {instance} : vérifiez --instance.", err=True)
        sys.exit(2)
    if bgstats:
        _export_bgstats(create_app(instance_path=instance), game_id, household_name)
        return
    store = _open_store(instance)
    household = household_id(store, household_name)
    try:
        for chunk in json_array(export_documents(store, game_id, household=household)):
            click.echo(chunk, nl=False)
    except GameNotFound:
        click.echo(f"Aucune partie n'a le numéro {game_id}.", err=True)
        sys.exit(2)
    finally:
        store.dispose()


def _export_bgstats(app: Flask, game_id: int | None, household_name: str | None) -> None:
    """The household's finished games (or one) as BG Stats plays, dated in the server's time
    zone, the rules in its language; a message, and status 2, when there is none."""
    store = app.extensions[STORE_EXTENSION]
    household = household_id(store, household_name)
    try:
        with app.app_context(), force_locale(app.config["BABEL_DEFAULT_LOCALE"]):
            plays = [
                play
                for play in bgstats_plays(household=household)
                if game_id is None or play["sourcePlayId"] == f"yams-{game_id}"
            ]
            if not plays:
                click.echo(
                    f"La partie n° {game_id} n'est pas une partie terminée : rien à noter "
                    "dans BG Stats."
                    if game_id is not None
                    else "Aucune partie terminée : rien à noter dans BG Stats.",
                    err=True,
                )
                sys.exit(2)
            for chunk in json_array(plays):
                click.echo(chunk, nl=False)
    finally:
        store.dispose()


def _problem_line(problem: Problem) -> str:
    data: dict = {"file": problem.file}
    if problem.document is not None:
        data["document"] = problem.document
    if problem.entry is not None:
        data["entry"] = problem.entry
    data["error"] = problem.error.render()
    return _line(data)


@click.command("import")
@click.argument(
    "files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@household_option
def import_command(
    files: tuple[Path, ...], instance: Path | None, household_name: str | None
) -> None:
    """Import game documents (one per file, or an array as `export` prints).

    Every game is replayed first: if any is illegal, nothing is imported, each problem is
    printed as a JSON line and the exit status is 2. Otherwise every game is imported and
    one JSON line per game says where it went: {"file": F, "game": ID}, with "document": N
    (its place in the file, from 1) when the file holds an array.
    """
    contents = []
    for path in files:
        try:
            content = path.read_bytes()
        except OSError as error:
            refusal = f"fichier illisible : {error}"
        else:
            # As the web's edge refuses them: PostgreSQL's text holds neither.
            refusal = (
                "le fichier contient un caractère nul (U+0000) ou une moitié de "
                "caractère (U+D800 à U+DFFF), que le Yams ne garde pas"
                if json_has_forbidden_character(content)
                else None
            )
        if refusal is not None:
            click.echo(_line({"file": str(path), "error": refusal}))
            click.echo("Rien n'a été importé.", err=True)
            sys.exit(2)
        contents.append((str(path), content))
    try:
        checked = check_files(contents)
    except ImportRefused as refused:
        for problem in refused.problems:
            click.echo(_problem_line(problem))
        click.echo("Rien n'a été importé.", err=True)
        sys.exit(2)
    store = _open_store(instance)
    household = household_id(store, household_name)
    try:
        ids = import_games(store, checked, household=household, quotas=NO_QUOTAS)
    finally:
        store.dispose()
    for game, game_id in zip(checked, ids, strict=True):
        data: dict = {"file": game.file}
        if game.document is not None:
            data["document"] = game.document
        data["game"] = game_id
        click.echo(_line(data))
