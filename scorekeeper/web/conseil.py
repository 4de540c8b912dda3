"""The Conseil's tables for the pages: one set kept per app (advisor/builds.py), built ahead
for a new game (``prepare``) and after a start (``build_ahead_at_start``), each build paid
from the household's advisor builds; and a finished game judged turn by turn for its review
(``game_review``, ``win_review``), from tables already built: reading a past game never
starts a build of tens of seconds.

Beside them the app's coach (scorekeeper/coach.py), told of each finished game
(``coach_game``), of each import (``coach_household``), of each table built, and after a
start (``coach_at_start``), unless the settings say not to (COACH_AFTER_GAMES).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from flask import Flask, Response, after_this_request, current_app

from scorekeeper.advisor.builds import Strategies
from scorekeeper.advisor.review import PlayerReview, TurnReview, review_game
from scorekeeper.advisor.tables import has_win_chances, tables_saved
from scorekeeper.coach import Coach
from scorekeeper.rules import GameState, Rules
from scorekeeper.store.quotas import QuotaExceeded, give_back, take
from scorekeeper.web.store import STORE_EXTENSION, household, quotas, store

if TYPE_CHECKING:  # the chances bring numpy: imported by whoever loads a table
    from scorekeeper.advisor.choices import Chance

ADVISOR_EXTENSION = "scorekeeper.advisor"
COACH_EXTENSION = "scorekeeper.coach"


def keep_strategies(app: Flask) -> None:
    """The app's tables, read and built in its instance folder, and its coach, which counts
    the games a build makes countable as soon as it is done."""
    tables = app.extensions[ADVISOR_EXTENSION] = Strategies(app.instance_path)
    coach = app.extensions[COACH_EXTENSION] = Coach(
        app.extensions[STORE_EXTENSION], app.instance_path, tables.workers
    )
    if app.config["COACH_AFTER_GAMES"]:
        tables.when_built(lambda _rules: coach.sweep_all())


def strategies() -> Strategies:
    return current_app.extensions[ADVISOR_EXTENSION]


def coach() -> Coach:
    return current_app.extensions[COACH_EXTENSION]


def coach_at_start(app: Flask) -> None:
    """After the server starts (``scorekeeper serve``, each gunicorn worker): the games
    finished without figures counted in the background, by one process of the server."""
    if app.config["COACH_AFTER_GAMES"]:
        app.extensions[COACH_EXTENSION].sweep_at_start()


def coach_game(game_id: int) -> None:
    """The request's game has just finished: its figures, counted in the background."""
    if current_app.config["COACH_AFTER_GAMES"]:
        app_coach, own = coach(), household()
        _once_answered(lambda: app_coach.game_finished(game_id, household=own))


def coach_household() -> None:
    """The request's household has just imported games: theirs, in the background."""
    if current_app.config["COACH_AFTER_GAMES"]:
        app_coach, own = coach(), household()
        _once_answered(lambda: app_coach.sweep_household(household=own))


def _once_answered(ask: Callable[[], None]) -> None:
    """``ask`` the coach once the request's answer is sent (a WSGI server then closes the
    response), so that the coach's work never shares the CPU with the request."""

    @after_this_request
    def ask_when_closed(response: Response) -> Response:
        response.call_on_close(ask)
        return response


def build_ahead_at_start(app: Flask) -> None:
    """After the server starts (``scorekeeper serve``, each gunicorn worker): the missing
    tables of the rule sets most played, built in the background, unless the settings say
    not to."""
    if app.config["ADVISOR_TABLES_AHEAD"]:
        app.extensions[ADVISOR_EXTENSION].build_ahead()


def prepare(rules: Rules, players: int) -> None:
    """A game of these rules was just created: its missing tables (and their spreads for
    the chances to win) queued now, at the builds' low priority, so that its first Conseil
    answers at once. Costs the household one of its advisor builds, as asking would; past
    them, nothing is built before the Conseil is asked (which then says so)."""
    if not current_app.config["ADVISOR_TABLES_AHEAD"]:
        return
    with_chances = players > 1 and has_win_chances(rules)
    if tables_saved(rules, current_app.instance_path, with_chances=with_chances):
        return  # read from the folder alone: no numpy for a game created
    with contextlib.suppress(QuotaExceeded):
        queue_build(rules, with_chances, ahead=True)


def wants_chances(state: GameState) -> bool:
    """Whether the page shows the chances to win: several players, rules that have them."""
    return len(state.players) > 1 and has_win_chances(state.rules)


def queue_build(rules: Rules, with_chances: bool, *, ahead: bool = False) -> None:
    """Queue the build of the rules' table (then its spreads ``with_chances``) unless one is
    under way; it costs the household one of its advisor builds."""
    if strategies().progress(rules) is not None:
        return
    use = take(store(), household=household(), quota=quotas().advisor_builds, amount=1)
    if not strategies().build(rules, household=household(), with_chances=with_chances, ahead=ahead):
        give_back(store(), use)  # another request queued it meanwhile


def game_review(state: GameState) -> tuple[list[TurnReview], list[PlayerReview]] | None:
    """Each turn of a finished game against optimal play, or None when there is none to show.

    None too while the table is missing: reading a past game never starts a build of tens
    of seconds; asking for advice does (or ``scorekeeper strategy``), and the page says so.
    """
    if not state.is_over:
        return None
    strategy = strategies().get(state.rules)
    return None if strategy is None else review_game(strategy, state)


def win_review(state: GameState) -> list[list[Chance]] | None:
    """Each player's chance to win at the start of a finished game and after each entry, or
    None when there is none to show. Reading a past game never starts a build."""
    if not state.is_over or not wants_chances(state):
        return None
    chances = strategies().chances(state.rules)
    return None if chances is None else chances.review(state)
