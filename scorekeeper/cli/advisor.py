"""``scorekeeper strategy`` and ``scorekeeper advise``: plain click commands that the
``scorekeeper`` group registers. Bad input gets a French message on stderr and exit code 2."""

import contextlib
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NoReturn, TextIO

import click
from babel.numbers import format_decimal

from scorekeeper.advisor.builds import reuse_freed_memory
from scorekeeper.advisor.maxi import MaxiStrategy
from scorekeeper.advisor.strategy import load_or_build
from scorekeeper.advisor.tables import (
    LAST_THROW,
    QUALITY_LINES,
    advice_quality,
    cache_path,
    check_request,
    check_throw,
    has_win_chances,
    is_last_throw,
    quality_figures,
    turn_throws,
)
from scorekeeper.app import default_instance_path
from scorekeeper.rules.document import read_document
from scorekeeper.rules.errors import RuleError
from scorekeeper.rules.game import GameState, IllegalEntry
from scorekeeper.rules.rule_set import Rules

FRESH_GAME_RULES = '{"preset": "classique"}'


def default_instance() -> Path:
    """The instance folder ``create_app()`` uses when given none: the command line and the
    web app then share one cached table."""
    return default_instance_path()


def _instance_option(command: Callable) -> Callable:
    return click.option(
        "--instance",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="Folder holding the cached strategy table (default: Flask's instance folder).",
    )(command)


@click.command()
@_instance_option
@click.option(
    "--rules",
    "rules_json",
    default=FRESH_GAME_RULES,
    show_default=True,
    metavar="JSON",
    help="The rules, as in a game document.",
)
def strategy(instance: Path | None, rules_json: str) -> None:
    """Build (or load) the tables of these rules, one per column kind; the last line is the
    expected score of a fresh sheet (for several columns, played turn about)."""
    with _french_errors():
        rules = _read_rules(rules_json)
        folder = instance or default_instance()
        reuse_freed_memory()  # this process ends with the build
        solved = _load_or_build(rules, folder)
    if not rules.saves_throws:  # Maxi Yatzy's policy has no table
        for kind in rules.columns:
            click.echo(f"Table : {cache_path(rules, folder, kind)}")
    click.echo(f"{solved.start_value:.4f}")


@click.command()
@_instance_option
@click.argument("game", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--dice", required=True, help="The dice on the table, e.g. 6,6,6,5,3.")
@click.option(
    "--throw",
    default=str(LAST_THROW),
    show_default=True,
    metavar="1|2|3",
    help="The throw of the turn the dice come from (in Maxi Yatzy, up to 3 + those saved).",
)
@click.option(
    "--to-win",
    is_flag=True,
    help="Rank by the chance to finish first, given with each option as win_chance.",
)
def advise(instance: Path | None, game: Path, dice: str, throw: str, to_win: bool) -> None:
    """Print, as JSON and best first, what the active player of GAME should do with these
    dice and the final total to expect: after the last throw every box they may fill with the
    points it scores now, after the 1st or 2nd every distinct keep (keeping all: scoring
    now). With --to-win, each option also gets its chance to finish first (win_chance: a
    tie between k players counts 1/k; win and tie apart) and the best chance comes first.
    How exact that is for these rules goes to stderr."""
    with _french_errors():
        state = _read_game(game)
        # Before a build that may take a while.
        check_request(state, dice)
        throw_number = check_throw(throw, turn_throws(state))
        if to_win and not has_win_chances(state.rules):
            _fail(
                "--to-win : les chances de gagner ne sont calculées que pour une seule "
                "colonne libre à cinq dés, sans Plus et Moins."
            )
        folder = instance or default_instance()
        reuse_freed_memory()  # this process ends with the build, if one is needed
        solved = _load_or_build(state.rules, folder)
        if is_last_throw(state, throw_number):
            result = [
                {
                    "box": item.box,
                    "column": item.column,
                    "points": item.points,
                    "expected_total": round(item.expected_total, 4),
                }
                for item in solved.advise(state, dice, throw_number)
            ]
        else:
            result = [
                {"keep": list(item.keep), "expected_total": round(item.expected_total, 4)}
                for item in solved.advise_keeps(state, dice, throw_number)
            ]
        if to_win:
            result = _with_win_chances(state, solved, folder, dice, throw_number, result)
    line = QUALITY_LINES[advice_quality(state.rules, len(state.players))]
    figures = {
        name: format_decimal(value, locale="fr")
        for name, value in quality_figures(state.rules).items()
    }
    click.echo(line % figures if figures else line, err=True)
    click.echo(json.dumps(result, indent=2))


def _load_or_build(rules: Rules, folder: Path):
    """The rules' strategy, its tables built first with a progress bar; Maxi Yatzy's policy,
    which has none."""
    if rules.saves_throws:
        return MaxiStrategy(rules)
    with _progress_bar() as progress:
        return load_or_build(rules, folder, progress)


def _with_win_chances(
    state: GameState, solved, folder: Path, dice: str, throw: int, result: list[dict]
) -> list[dict]:
    """Each option of ``result`` with its chance to win, the best chance first; how the
    chances were made goes to stderr."""
    from scorekeeper.advisor.spreads import load_or_build_spreads
    from scorekeeper.advisor.winning import WinChances

    values = solved.tables["free"]
    with _progress_bar(label="Calcul des chances de gagner") as progress:
        spreads = load_or_build_spreads(state.rules, values, folder, progress)
    advice = WinChances(state.rules, values, spreads).advise(state, dice, throw)
    chances = {
        option.box if option.keep is None else option.keep: option.chance
        for option in advice.options
    }
    for item in result:
        chance = chances[item["box"] if "box" in item else tuple(item["keep"])]
        item |= {
            "win_chance": round(chance.share, 4),
            "win": round(chance.win, 4),
            "tie": round(chance.tie, 4),
        }
    # Stable: equal chances keep the order of the final total to expect.
    result.sort(key=lambda item: -item["win_chance"])
    click.echo(
        "Chances de gagner exactes : chacun joue pour gagner jusqu'à la fin."
        if advice.exact
        else "Chances de gagner estimées : après ce tour, chacun suit la stratégie en "
        "solitaire (docs/advisor-winning.md).",
        err=True,
    )
    return result


def _read_rules(text: str) -> Rules:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        _fail(
            f"--rules n'est pas du JSON valide ({error.msg}, colonne {error.colno}), "
            f"par exemple {FRESH_GAME_RULES}."
        )
    return Rules.from_dict(data)


def _read_game(path: Path) -> GameState:
    try:
        with path.open(encoding="utf-8") as file:
            data = json.load(file)
    except OSError as error:
        _fail(f"Impossible de lire {path} : {error.strerror or error}.")
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        _fail(f"{path} n'est pas un document de partie en JSON valide ({error}).")
    return read_document(data).replay()


@contextlib.contextmanager
def _french_errors() -> Iterator[None]:
    try:
        yield
    except IllegalEntry as error:
        _fail(f"Entrée n° {error.number} : {error}")
    except RuleError as error:
        _fail(str(error))
    except OSError as error:
        _fail(f"Impossible d'écrire la table de stratégie : {error}.")


@contextlib.contextmanager
def _progress_bar(
    stream: TextIO | None = None, label: str = "Calcul de la stratégie optimale"
) -> Iterator[Callable[[int, int], None] | None]:
    """A progress callback for the build, drawn on stderr when it is a terminal (a log or a
    pipe gets nothing); a cached table shows none."""
    stream = stream or sys.stderr
    if not stream.isatty():
        yield None
        return
    with contextlib.ExitStack() as stack:
        bar = None

        def progress(done: int, total: int) -> None:
            nonlocal bar
            if bar is None:
                bar = stack.enter_context(click.progressbar(length=total, label=label, file=stream))
            bar.update(done - bar.pos)

        yield progress


def _fail(message: str) -> NoReturn:
    click.echo(f"Erreur : {message}", err=True)
    raise click.exceptions.Exit(2)
