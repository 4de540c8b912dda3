"""Pages drawn once per state of a game, and served to every tablet that asks for it.

After a turn every tablet at the table shows the same sheet: the player's own (the answer to
its turn) and each other one's (pushed on its event stream, web/live.py). The sheet of one
version of a game, in one language, is drawn once and kept; each request then only puts its
own parts in their places: its CSRF token, and the messages flashed for its device. The
player's turn and the streams it wakes ask for the new sheet at the same moment: one draws
it, the others wait for that drawing rather than draw it again.

The key holds the household: a page is reached only by a request of the household whose
game it is (the caller loaded the game for that household first), and never served to
another one that would have a game of the same number. Kept per process (a small LRU): a
tablet served by another process draws the page there once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence

from flask import current_app, get_flashed_messages, render_template, session
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup

# Pages kept per process: a few per game being played (one per language), about 14 kB each.
KEPT_PAGES = 128
# The longest a request waits for another one drawing the same page (a few ms usually)
# before it draws the page itself.
DRAW_WAIT_SECONDS = 5.0
_EXTENSION = "scorekeeper.drawn"

# Where each request's own parts go. Each is markup no template writes of itself, and that
# any text from a player (a name) cannot make: it would be escaped.
_CSRF_SLOT = Markup("<csrf-slot/>")
_FLASHES_SLOT = Markup("<flashes-slot/>")
# Flask keeps the messages flashed for the next page under this key of the session.
_FLASHES_KEY = "_flashes"


class DrawnPages:
    """The last pages drawn, by key; safe to share between a server's threads."""

    def __init__(self, size: int = KEPT_PAGES) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._kept: OrderedDict[Hashable, str] = OrderedDict()
        self._drawing: dict[Hashable, threading.Event] = {}

    def kept(self, key: Hashable) -> str | None:
        """The page kept for `key`, if it is: no drawing, no waiting, no context needed."""
        with self._lock:
            page = self._kept.get(key)
            if page is not None:
                self._kept.move_to_end(key)
            return page

    def get(self, key: Hashable, draw: Callable[[], str]) -> str:
        while True:
            with self._lock:
                page = self._kept.get(key)
                if page is not None:
                    self._kept.move_to_end(key)
                    return page
                drawing = self._drawing.get(key)
                if drawing is None:
                    drawing = self._drawing[key] = threading.Event()
                    break
            # Another request draws it: wait, then look again (it may have failed).
            if not drawing.wait(DRAW_WAIT_SECONDS):
                return draw()
        try:
            # Drawn outside the lock: other pages are served meanwhile.
            page = draw()
            with self._lock:
                self._kept[key] = page
                while len(self._kept) > self.size:
                    self._kept.popitem(last=False)
            return page
        finally:
            with self._lock:
                del self._drawing[key]
            drawing.set()


def drawn_pages() -> DrawnPages:
    """The pages kept by this app."""
    return current_app.extensions.setdefault(_EXTENSION, DrawnPages())


def shared_page(
    key: Hashable,
    template: str,
    context: Callable[[], dict],
    *,
    pushed_with: str | None = None,
    said: Sequence[tuple[str, str]] = (),
) -> str:
    """`template` drawn once for `key` (which must name all that the page shows, household
    included) with what `context()` gives, and kept; this request's CSRF token and flashed
    messages put in. `context` is called only to draw: a page served from the cache builds
    nothing (no form, no view).

    `said`: messages (category, text) for this answer alone, shown after the flashed ones:
    the answer to a turn says what it wrote without a round trip through the session (which
    would then have to be signed and sent back).

    `pushed_with`: the page goes out on an event stream, whose response (and session) left
    when it opened: it carries the token given, taken then, and no message (those flashed
    for the device stay for its next page)."""
    page = drawn_pages().get(
        key,
        lambda: render_template(
            template, **context(), csrf_token=lambda: _CSRF_SLOT, flashes_slot=_FLASHES_SLOT
        ),
    )
    if pushed_with is not None:
        return pushed(page, pushed_with)
    messages = [
        *(get_flashed_messages(with_categories=True) if session.get(_FLASHES_KEY) else ()),
        *said,
    ]
    flashes = render_template("_flashes.html", messages=messages) if messages else ""
    return page.replace(_CSRF_SLOT, generate_csrf()).replace(_FLASHES_SLOT, flashes)


def pushed(page: str, token: str) -> str:
    """A kept page as an event stream sends it: with the token the stream took when it
    opened, and no message (see shared_page)."""
    return page.replace(_CSRF_SLOT, token).replace(_FLASHES_SLOT, "")
