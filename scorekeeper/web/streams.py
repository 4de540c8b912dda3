"""A game's stream of changes, as server-sent events: its version at once, then after every
change (with what the caller pushes besides), heartbeats between; the version alone for a
page that polls; and the seats streams hold (store/changes.py). The sheet's stream
(web/live.py) and a spectator's (web/spectating.py) are both this one.
"""

import time
from collections.abc import Callable

from flask import Response, current_app, json, jsonify
from flask_babel import gettext as _

from scorekeeper.store import GameVersion
from scorekeeper.store.changes import Ended, Seat, Stopped, TooManyWatchers, Watcher
from scorekeeper.store.engine import LINK
from scorekeeper.web.store import changes

# A comment line this often: proxies see a live connection (45 s is under the 60 s a load
# balancer commonly lets a connection idle), and a tablet gone without a word is found when
# a write fails. Each costs a write through the front: 10,000 open sheets at 15 s took 8 %
# of a core for heartbeats alone (bench/idle_sheets.py), at 45 s a third of it.
HEARTBEAT_SECONDS = 45
# How soon EventSource tries again after a stream broke (a server restarting, say).
RECONNECT_MS = 1000
# A sheet refused a stream asks for the version this often (static/js/live.js says it too).
RETRY_AFTER_SECONDS = 5


def version_fields(found: GameVersion) -> dict:
    return {"seq": found.entry_count, "status": found.status, "version": found.token}


def version_response(found: GameVersion | None):
    """A game's version as the open sheets poll it; 404 for no game."""
    if found is None:
        return jsonify(error="not found"), 404
    response = jsonify(**version_fields(found))
    response.headers["Cache-Control"] = "no-store"
    return response


def spectator_seat(game_id: int) -> tuple[Seat, int]:
    """A spectator link's stream's seat: LIVE_STREAMS_PER_SPECTATOR_LINK for the link."""
    seat = Seat((LINK, game_id), frozenset({(LINK, game_id)}))
    return seat, current_app.config["LIVE_STREAMS_PER_SPECTATOR_LINK"]


def event_stream(
    game_id: int,
    *,
    household: int,
    pushed: Callable[[GameVersion], dict] | None = None,
    seat: Seat | None = None,
    seats: int | None = None,
):
    """The stream of a game of `household`; 404 for no game, 503 beyond LIVE_STREAMS.
    `pushed`: what goes out with each new version besides it; `seat` and `seats`: the
    group it counts in and how many that group holds (its oldest ends past them)."""
    try:
        watcher = changes().watch(game_id, household=household, seat=seat, seats=seats)
    except (TooManyWatchers, Stopped):
        message = _("Trop d'écrans ouverts sur ce serveur : la feuille se met à jour moins vite.")
        return message, 503, {"Retry-After": str(RETRY_AFTER_SECONDS), "Cache-Control": "no-store"}
    if watcher.first is None:
        watcher.close()
        return jsonify(error="not found"), 404
    lasting = current_app.config["LIVE_STREAM_SECONDS"]
    response = Response(_events(watcher, lasting, pushed), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    # A proxy (nginx) would otherwise hold the events back to send them in bulk.
    response.headers["X-Accel-Buffering"] = "no"
    return response


def _event(found: GameVersion, more: dict | None = None) -> str:
    return f"data: {json.dumps({**version_fields(found), **(more or {})})}\n\n"


def _events(watcher: Watcher, lasting: float, pushed: Callable[[GameVersion], dict] | None):
    """The events of one stream, for `lasting` seconds. Runs after the request: it holds no
    database connection between events."""
    sent = watcher.first
    end = time.monotonic() + lasting
    try:
        yield f"retry: {RECONNECT_MS}\n{_event(sent)}"
        while (left := end - time.monotonic()) > 0:
            try:
                found = watcher.wait(min(HEARTBEAT_SECONDS, left))
            except Stopped:
                return
            except Ended as ended:
                # Revoked: the page reloads and finds itself signed out (or the link gone).
                # A seat taken back: the page asks for the version now and then instead,
                # rather than reconnect and take another of its own household's seats.
                yield 'data: {"gone": true}\n\n' if ended.revoked else 'data: {"closed": true}\n\n'
                return
            if found is False:
                yield ": still here\n\n"
            elif found is None:
                # The game was deleted: the page asks for it again and gets the 404 page.
                yield 'data: {"gone": true}\n\n'
                return
            elif found != sent:
                sent = found
                yield _event(found, pushed(found) if pushed else None)
    finally:
        watcher.close()
