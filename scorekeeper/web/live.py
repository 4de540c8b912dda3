"""Every open sheet stays live: the game's version pushed as it changes, with the new sheet
itself, and a spectator page.

Pushed by server-sent events rather than a long poll: one request per open sheet, however
many turns are played, where a long poll makes a request after every change and a lost one
must be noticed by hand; the browser's EventSource reconnects by itself (Wi-Fi back, tablet
awake, server restarted), and each connection starts with the game's version, so a sheet
that missed a change sees it at once. At home each stream holds one of waitress's threads
while it is open; hosted, the stream group's gevent worker holds it as a socket
(gunicorn_streams_conf.py). A process keeps at most LIVE_STREAMS of them; beyond, a 503,
and the page asks for the version a few seconds later, then opens its stream again
(static/js/live.js).

The sheet's own stream carries, with each new version of a game in progress, the sheet of
that version (drawn once for every tablet, web/sheet_pages.py): the other tablets swap it in
without a request of their own. A device signed out meanwhile (hosted) gets no more sheets.

The version poll stays for those pages and for pages without EventSource.
"""

import time
from collections.abc import Callable

from flask import (
    Blueprint,
    Response,
    copy_current_request_context,
    current_app,
    json,
    jsonify,
    render_template,
    url_for,
)
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_login import current_user
from flask_wtf.csrf import generate_csrf
from sqlalchemy.exc import SQLAlchemyError

from scorekeeper.store import GameVersion
from scorekeeper.store.changes import Ended, Seat, Stopped, TooManyWatchers, Watcher
from scorekeeper.store.engine import DEVICE, LINK
from scorekeeper.store.games import game_version
from scorekeeper.store.households import device_by_token, list_devices
from scorekeeper.web.security import hosted
from scorekeeper.web.sheet_pages import drawn_pages, kept_sheet, pushed, pushed_sheet
from scorekeeper.web.store import changes, household, load_or_404, store

bp = Blueprint("live", __name__, url_prefix="/games")

# A comment line this often: proxies see a live connection (45 s is under the 60 s a load
# balancer commonly lets a connection idle), and a tablet gone without a word is found when
# a write fails. Each costs a write through the front: 10,000 open sheets at 15 s took 8 %
# of a core for heartbeats alone (bench/idle_sheets.py), at 45 s a third of it.
HEARTBEAT_SECONDS = 45
# How soon EventSource tries again after a stream broke (a server restarting, say).
RECONNECT_MS = 1000
# A sheet refused a stream asks for the version this often (static/js/live.js says it too).
RETRY_AFTER_SECONDS = 5


@bp.get("/<int:game_id>/version")
def version(game_id: int):
    """What an open sheet compares with what it shows; any change means: fetch it again."""
    return version_response(game_version(store(), game_id, household=household()))


def version_fields(found: GameVersion) -> dict:
    return {"seq": found.entry_count, "status": found.status, "version": found.token}


def version_response(found: GameVersion | None):
    """A game's version as the open sheets poll it; 404 for no game."""
    if found is None:
        return jsonify(error="not found"), 404
    response = jsonify(**version_fields(found))
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/<int:game_id>/events")
def events(game_id: int):
    """The game's version now, then after every change with its sheet, as server-sent
    events."""
    here = household()
    # Taken now: the session leaves with the response's headers.
    token = generate_csrf()
    signed_in = _signed_in_check()
    path = url_for("games.sheet", game_id=game_id)
    pages, language = drawn_pages(), str(get_locale())

    # A sheet not drawn yet is drawn in a copy of this request's context (its language, its
    # addresses), pushed for the drawing only: the stream holds no context between events.
    @copy_current_request_context
    def drawn(found: GameVersion) -> str | None:
        return pushed_sheet(game_id, found, household=here, token=token)

    def with_sheet(found: GameVersion) -> dict:
        try:
            if not signed_in():
                return {}
            # Usually drawn already, for the player's own tablet: no context needed.
            page = kept_sheet(pages, game_id, found, household=here, language=language)
            page = drawn(found) if page is None else pushed(page, token)
        except SQLAlchemyError:
            page = None  # the database away for a moment: the tablet asks for the page itself
        return {} if page is None else {"sheet": page, "path": path}

    seat, seats = _device_seat(here)
    return event_stream(game_id, household=here, pushed=with_sheet, seat=seat, seats=seats)


def _device_seat(here: int) -> tuple[Seat | None, int | None]:
    """Hosted, the stream's seat among its household's: LIVE_STREAMS_PER_DEVICE for each
    device the household has, so that one household's flood of streams ends its own."""
    if not hosted():
        return None, None
    seat = Seat(("household", here), frozenset({(DEVICE, current_user.record.id)}))
    per_device = current_app.config["LIVE_STREAMS_PER_DEVICE"]
    return seat, per_device * max(1, len(list_devices(store(), here)))


def spectator_seat(game_id: int) -> tuple[Seat, int]:
    """A spectator link's stream's seat: LIVE_STREAMS_PER_SPECTATOR_LINK for the link."""
    seat = Seat((LINK, game_id), frozenset({(LINK, game_id)}))
    return seat, current_app.config["LIVE_STREAMS_PER_SPECTATOR_LINK"]


def _signed_in_check() -> Callable[[], bool]:
    """Whether the device of this request is still signed in to its household, asked again
    before each sheet pushed: a device removed (hosted) sees no more of the game."""
    if not hosted():
        return lambda: True
    device_token, here, the_store = current_user.get_id(), household(), store()

    def check() -> bool:
        found = device_by_token(the_store, device_token)
        return found is not None and found.household_id == here

    return check


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


@bp.get("/<int:game_id>/watch")
def watch(game_id: int):
    """The sheet for a spectator (a phone, a TV): read-only, and live."""
    record, state = load_or_404(game_id)
    return render_template("games/watch.html", game_id=game_id, record=record, state=state)
