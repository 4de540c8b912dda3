"""Every open sheet stays live: a small version to poll, and a read-only spectator page.

Polling, not Server-Sent Events: waitress serves a fixed pool of threads, and a held
connection per open sheet would soon use them all; a poll a second costs one small query.
"""

from flask import Blueprint, jsonify, render_template

from scorekeeper.store import GameVersion
from scorekeeper.web.store import household, load_or_404, store

bp = Blueprint("live", __name__, url_prefix="/games")


@bp.get("/<int:game_id>/version")
def version(game_id: int):
    """What an open sheet compares with what it shows; any change means: reload."""
    return version_response(store().game_version(game_id, household=household()))


def version_response(found: GameVersion | None):
    """A game's version as the open sheets poll it; 404 for no game."""
    if found is None:
        return jsonify(error="not found"), 404
    response = jsonify(seq=found.entry_count, status=found.status, version=found.token)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/<int:game_id>/watch")
def watch(game_id: int):
    """The sheet for a spectator (a phone, a TV): read-only, and live."""
    record, state = load_or_404(game_id)
    return render_template("games/watch.html", game_id=game_id, record=record, state=state)
