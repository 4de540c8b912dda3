"""The "Conseil" page, for every game the app can start: one sentence saying what to do, then
after the last throw the boxes ranked by the final total to expect, after the 1st or 2nd the
dice to keep, and one line saying how exact that is for these rules; while the tables are
being built, their progress.

Where the chances to win are computed (``has_win_chances``), each box or keep also shows the
active player's chance to finish first, and one tap ranks them « Pour gagner » instead of
« Pour le meilleur score »; where the two disagree, one line says so.

Shown only when a player asks: players play their own game. Its tables are built ahead,
though (ADVISOR_TABLES_AHEAD): a new game's as soon as it is created (``prepare``), and the
most played rule sets' after the server starts (``build_ahead_at_start``), so that the
first Conseil answers at once; one still building says how long it should take, in words.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from flask import Blueprint, Flask, current_app, jsonify, render_template, request
from flask_babel import format_decimal, format_timedelta
from flask_babel import gettext as _

from scorekeeper.advisor.tables import (
    QUALITY_LINES,
    THROWS,
    advice_quality,
    check_request,
    check_throw,
    is_last_throw,
    quality_figures,
    turn_throws,
)
from scorekeeper.rules import GameState, RuleError, Rules
from scorekeeper.rules.labels import N_
from scorekeeper.store.quotas import QuotaExceeded
from scorekeeper.web.conseil import (
    keep_strategies,
    queue_build,
    strategies,
    wants_chances,
)
from scorekeeper.web.quotas import quota_message, retry_after
from scorekeeper.web.store import load_or_404

if TYPE_CHECKING:  # the chances bring numpy: imported by whoever loads a table
    from scorekeeper.advisor.choices import Chance
    from scorekeeper.advisor.winning import WinAdvice
bp = Blueprint("advice", __name__, url_prefix="/games")

# The keeps listed: the best and the two next, enough to weigh a choice at the table.
KEEPS_SHOWN = 3
# Seconds between two looks at a build's progress (the script's, and the page's refresh).
PROGRESS_EVERY = 2
# How the options are ranked: « Pour le meilleur score » (the Conseil's final total to
# expect) or « Pour gagner » (the chance to finish first).
FOR_SCORE, TO_WIN = "score", "win"
MODES = (FOR_SCORE, TO_WIN)
# The two rankings disagree enough to say so: half a percentage point of chance.
DISAGREEMENT = 0.005
# Below this many seconds left, « quelques secondes »; below a minute, the seconds said in
# steps of this many, so that the words do not change at every look.
FEW_SECONDS = 5


@dataclass(frozen=True)
class WinChancesView:
    """What the page shows of the chances to win: each option's (by box or keep), whether
    they are exact, and the option the other mode ranks first where it differs."""

    chance_of: dict[object, Chance]  # by ``option_key``
    exact: bool
    other: object | None  # an Advice or KeepAdvice, or None where the modes agree


def register(app: Flask) -> None:
    keep_strategies(app)
    app.register_blueprint(bp)


def time_left(rules: Rules) -> str:
    """How long the build under way of these rules should still take, in words."""
    seconds = strategies().remaining(rules)
    if seconds is None:
        return _("Temps restant : en cours d'estimation.")
    if seconds < FEW_SECONDS:
        return _("Encore quelques secondes.")
    if seconds < 60:
        seconds = FEW_SECONDS * round(seconds / FEW_SECONDS)
    return _(
        "Encore environ %(time)s.",
        time=format_timedelta(timedelta(seconds=seconds), threshold=1),
    )


@bp.get("/<int:game_id>/advice")
def show(game_id: int):
    _record, state = load_or_404(game_id)
    dice = request.args.get("dice", "")[:40]
    page = {
        "throw": THROWS[-1],
        "mode": FOR_SCORE,
        "advice": [],
        "keeps": [],
        "kept": [],
        "saved_after": 0,
        "best_box": None,
        "building": None,
        "win": None,
        "win_building": None,
        "time_left": None,
        "error": None,
    }
    status, wait = 200, None
    try:
        most = turn_throws(state)
        page["throw"] = min(check_throw(request.args.get("throw", "")[:10], most), most)
        page["mode"] = check_mode(request.args.get("mode", "")[:10])
        page |= _advice(state, dice, page["throw"], page["mode"])
    except RuleError as rule_error:
        page["error"], status = rule_error.render(_), 422
    except QuotaExceeded as exceeded:
        page["error"], status = quota_message(exceeded), 429
        wait = retry_after(exceeded)
    if page["building"] is not None:
        status, wait = 503, PROGRESS_EVERY
    response = current_app.make_response(
        (
            render_template(
                "advice/show.html",
                game_id=game_id,
                state=state,
                dice=dice,
                throws=range(1, turn_throws(state) + 1),
                modes=MODES,
                with_chances=wants_chances(state),
                quality=QUALITY_LINES[advice_quality(state.rules, len(state.players))],
                quality_figures=_figures(state.rules),
                progress_every=PROGRESS_EVERY,
                **page,
            ),
            status,
        )
    )
    if wait is not None:
        response.headers["Retry-After"] = str(wait)
    return response


def _figures(rules: Rules) -> dict[str, str]:
    """The figures the quality line says, in the reader's number forms."""
    return {
        name: format_decimal(value, format="#,##0" if name == "games" else "#,##0.0")
        for name, value in quality_figures(rules).items()
    }


def check_mode(value: str) -> str:
    """How the options are ranked: « Pour le meilleur score » unless « Pour gagner » is
    asked."""
    if not value:
        return FOR_SCORE
    if value not in MODES:
        raise RuleError(
            N_("« {value} » n'est pas une façon de classer : choisissez score ou win."),
            value=value,
        )
    return value


def _advice(state: GameState, dice: str, throw: int, mode: str) -> dict:
    """The boxes (last throw) or the best keeps and the dice they set aside (1st or 2nd) with
    the box that keeping them all scores, or how far the tables' build went while one is
    missing; each with its chance to win where there are chances, ranked as ``mode`` asks.
    A build started costs the household one of its advisor builds (QuotaExceeded past
    them)."""
    typed = check_request(state, dice)  # bad dice are told before a build is started
    strategy = strategies().get(state.rules)
    if strategy is None:
        queue_build(state.rules, wants_chances(state))
        return {
            "building": strategies().progress(state.rules) or 0.0,
            "time_left": time_left(state.rules),
        }
    chances = None
    page = {}
    if wants_chances(state):
        chances = strategies().chances(state.rules)
        if chances is None:
            # A table built before the chances to win: its spreads. Past the household's
            # builds, the Conseil goes on without the chances.
            with contextlib.suppress(QuotaExceeded):
                queue_build(state.rules, True)
            page["win_building"] = strategies().progress(state.rules)
            page["time_left"] = time_left(state.rules)
    if is_last_throw(state, throw):
        advice = strategy.advise(state, typed, throw)
        if chances is not None:
            page["win"] = _with_chances(advice, chances.advise(state, typed, throw), mode)
        return page | {"advice": advice}
    keeps = strategy.advise_keeps(state, typed, throw)
    if chances is not None:
        page["win"] = _with_chances(keeps, chances.advise(state, typed, throw), mode)
    keeps = keeps[:KEEPS_SHOWN]
    best_box = None
    # Keeping every die is scoring now: the sentence then names the box (at Generala, with
    # the points of the throw it is: a servida on the first; in Maxi Yatzy, with the throws
    # left saved).
    if len(keeps[0].keep) == len(typed):
        rules = state.rules
        now = throw if rules.counts_throws or rules.saves_throws else THROWS[-1]
        boxes = strategy.advise(state, typed, now)
        if chances is not None:
            _with_chances(boxes, chances.advise(state, typed, now, boxes=True), mode)
        best_box = boxes[0]
    return page | {
        "keeps": keeps,
        "kept": kept_positions(typed, keeps[0].keep),
        "best_box": best_box,
        "saved_after": turn_throws(state) - throw,
    }


def option_key(item) -> object:
    """What names a box (after the last throw) or a keep (after the 1st or 2nd) among the
    options: the box, or the kept dice lowest first."""
    return getattr(item, "box", None) or item.keep


def _with_chances(items: list, win: WinAdvice, mode: str) -> WinChancesView:
    """Rank ``items`` (the Conseil's boxes or keeps, best final total first) in place as
    ``mode`` asks, each with its chance to win from ``win``."""
    chance_of = {
        option.box if option.keep is None else option.keep: option.chance for option in win.options
    }

    def share(item) -> float:
        return chance_of[option_key(item)].share

    for_score = items[0]
    to_win = max(items, key=lambda item: (share(item), item.expected_total))
    if mode == TO_WIN:
        items.sort(key=lambda item: (-share(item), -item.expected_total))
    other = None
    if share(to_win) - share(for_score) >= DISAGREEMENT:
        other = for_score if mode == TO_WIN else to_win
    return WinChancesView(chance_of, win.exact, other)


@bp.get("/<int:game_id>/advice/progress")
def progress(game_id: int):
    """How far the build of this game's table went, for the page's script to fill its bar."""
    _record, state = load_or_404(game_id)
    ready = strategies().get(state.rules) is not None
    if ready:
        return jsonify(ready=True, progress=1.0, time_left=None)
    return jsonify(
        ready=False, progress=strategies().progress(state.rules), time_left=time_left(state.rules)
    )


def kept_positions(dice: tuple[int, ...], keep: tuple[int, ...]) -> list[tuple[int, bool]]:
    """Each typed die, in the order typed, and whether ``keep`` sets it aside (the first
    ones of each face)."""
    wanted = list(keep)
    marks = []
    for face in dice:
        marks.append((face, face in wanted))
        if face in wanted:
            wanted.remove(face)
    return marks
