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

from collections.abc import Callable

from flask import (
    Blueprint,
    copy_current_request_context,
    current_app,
    render_template,
    url_for,
)
from flask_babel import get_locale
from flask_login import current_user
from flask_wtf.csrf import generate_csrf
from sqlalchemy.exc import SQLAlchemyError

from scorekeeper.store import GameVersion
from scorekeeper.store.changes import Seat
from scorekeeper.store.engine import DEVICE
from scorekeeper.store.games import game_version
from scorekeeper.store.households import device_by_token, list_devices
from scorekeeper.web.security import hosted
from scorekeeper.web.sheet_pages import drawn_pages, kept_sheet, pushed, pushed_sheet
from scorekeeper.web.store import household, load_or_404, store
from scorekeeper.web.streams import event_stream, version_response

bp = Blueprint("live", __name__, url_prefix="/games")


@bp.get("/<int:game_id>/version")
def version(game_id: int):
    """What an open sheet compares with what it shows; any change means: fetch it again."""
    return version_response(game_version(store(), game_id, household=household()))


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


@bp.get("/<int:game_id>/watch")
def watch(game_id: int):
    """The sheet for a spectator (a phone, a TV): read-only, and live."""
    record, state = load_or_404(game_id)
    return render_template("games/watch.html", game_id=game_id, record=record, state=state)
