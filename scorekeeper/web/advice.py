"""The "Conseil" page, for every game the app can start: one sentence saying what to do, then
after the last throw the boxes ranked by the final total to expect, after the 1st or 2nd the
dice to keep, and one line saying how exact that is for these rules; while the tables are
being built, their progress.

Shown only when a player asks: players play their own game.
"""

from flask import Blueprint, Flask, current_app, jsonify, render_template, request
from flask_babel import gettext as _

from scorekeeper.advisor.builds import Strategies
from scorekeeper.advisor.review import PlayerReview, TurnReview, review_game
from scorekeeper.advisor.tables import (
    QUALITY_LINES,
    THROWS,
    advice_quality,
    check_request,
    check_throw,
    is_last_throw,
    turn_throws,
)
from scorekeeper.rules import GameState, RuleError
from scorekeeper.store.quotas import QuotaExceeded, give_back, take
from scorekeeper.web.quotas import quota_message, retry_after
from scorekeeper.web.store import household, load_or_404, store

bp = Blueprint("advice", __name__, url_prefix="/games")

ADVISOR_EXTENSION = "scorekeeper.advisor"
# The keeps listed: the best and the two next, enough to weigh a choice at the table.
KEEPS_SHOWN = 3
# Seconds between two looks at a build's progress (the script's, and the page's refresh).
PROGRESS_EVERY = 2


def register(app: Flask) -> None:
    app.extensions[ADVISOR_EXTENSION] = Strategies(app.instance_path)
    app.register_blueprint(bp)


def strategies() -> Strategies:
    return current_app.extensions[ADVISOR_EXTENSION]


@bp.get("/<int:game_id>/advice")
def show(game_id: int):
    _record, state = load_or_404(game_id)
    dice = request.args.get("dice", "")[:40]
    page = {
        "throw": THROWS[-1],
        "advice": [],
        "keeps": [],
        "kept": [],
        "best_box": None,
        "building": None,
        "error": None,
    }
    status, wait = 200, None
    try:
        page["throw"] = min(check_throw(request.args.get("throw", "")[:10]), turn_throws(state))
        page |= _advice(state, dice, page["throw"])
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
                throws=THROWS[: turn_throws(state)],
                quality=QUALITY_LINES[advice_quality(state.rules, len(state.players))],
                progress_every=PROGRESS_EVERY,
                **page,
            ),
            status,
        )
    )
    if wait is not None:
        response.headers["Retry-After"] = str(wait)
    return response


def _advice(state: GameState, dice: str, throw: int) -> dict:
    """The boxes (last throw) or the best keeps and the dice they set aside (1st or 2nd) with
    the box that keeping them all scores, or how far the tables' build went while one is
    missing. A build started costs the household one of its advisor builds (QuotaExceeded
    past them)."""
    typed = check_request(state, dice)  # bad dice are told before a build is started
    strategy = strategies().get(state.rules)
    if strategy is None:
        if strategies().progress(state.rules) is None:
            use = take(
                store(), household=household(), quota=store().quotas.advisor_builds, amount=1
            )
            if not strategies().build(state.rules, household=household()):
                give_back(store(), use)  # another request queued it meanwhile
        return {"building": strategies().progress(state.rules) or 0.0}
    if is_last_throw(state, throw):
        return {"advice": strategy.advise(state, typed, throw)}
    keeps = strategy.advise_keeps(state, typed, throw)[:KEEPS_SHOWN]
    # Keeping every die is scoring now: the sentence then names the box.
    best_box = strategy.advise(state, typed, throw)[0] if len(keeps[0].keep) == len(typed) else None
    return {"keeps": keeps, "kept": kept_positions(typed, keeps[0].keep), "best_box": best_box}


@bp.get("/<int:game_id>/advice/progress")
def progress(game_id: int):
    """How far the build of this game's table went, for the page's script to fill its bar."""
    _record, state = load_or_404(game_id)
    ready = strategies().get(state.rules) is not None
    return jsonify(ready=ready, progress=1.0 if ready else strategies().progress(state.rules))


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


def game_review(state: GameState) -> tuple[list[TurnReview], list[PlayerReview]] | None:
    """Each turn of a finished game against optimal play, or None when there is none to show.

    None too while the table is missing: reading a past game never starts a build of tens
    of seconds; asking for advice does (or ``scorekeeper strategy``), and the page says so.
    """
    if not state.is_over:
        return None
    strategy = strategies().get(state.rules)
    return None if strategy is None else review_game(strategy, state)
