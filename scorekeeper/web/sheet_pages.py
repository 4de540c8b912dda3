"""The sheet's page, drawn once per state of a game and served to every tablet: the
player's own after a turn, every other tablet's pushed on its event stream (web/live.py),
and each reload; with dice typed, the page with what each box would score.

After a turn every tablet at the table shows the same sheet. The sheet of one version of a
game, in one language, is drawn once and kept; each request then only puts its own parts in
their places: its CSRF token, and the messages flashed for its device. The player's turn
and the streams it wakes ask for the new sheet at the same moment: one draws it, the others
wait for that drawing rather than draw it again.

The key holds the household: a page is reached only by a request of the household whose
game it is (the caller loaded the game for that household first), and never served to
another one that would have a game of the same number. Kept per process (a small LRU): a
tablet served by another process draws the page there once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

from flask import current_app, get_flashed_messages, render_template, session, url_for
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup

from scorekeeper.lru import LruCache
from scorekeeper.play import load
from scorekeeper.rules import Entry, GameState, RuleError, Score, parse_dice
from scorekeeper.rules.dice import (
    DICE_SENTENCES,
    FACES,
    SEPARATORS_PATTERN,
    TOO_FEW,
    DiceError,
)
from scorekeeper.store import ABANDONED, GameNotFound, GameRecord, GameVersion
from scorekeeper.web.forms import EntryForm
from scorekeeper.web.store import household, store

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
    """The last pages drawn, by key, each drawn once however many ask for it at the same
    moment; safe to share between a server's threads."""

    def __init__(self, size: int = KEPT_PAGES) -> None:
        self._kept: LruCache[Hashable, str] = LruCache(size)
        self._lock = threading.Lock()
        self._drawing: dict[Hashable, threading.Event] = {}

    def kept(self, key: Hashable) -> str | None:
        """The page kept for `key`, if it is: no drawing, no waiting, no context needed."""
        return self._kept.get(key)

    def get(self, key: Hashable, draw: Callable[[], str]) -> str:
        while True:
            with self._lock:
                # Under the lock the drawings are registered under: a drawing ends only once
                # its page is kept, so a page missing here is being drawn, or is to draw.
                page = self._kept.get(key)
                if page is not None:
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
            self._kept.put(key, page)
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


def typed_faces(text: str | None) -> list[int]:
    """The dice to draw for what was typed: every digit 1 to 6, in the order typed."""
    return [int(char) for char in text or "" if char in "123456"]


def dice_reading(count: int) -> dict:
    """What sheet.js needs to say a wrong throw as it is typed, between two answers of the
    server: how the rules split the dice typed, the faces a die shows, and the rules' own
    sentence for each wrong throw in the reader's language, {value} and {given} left for the
    script to fill. Too few dice have none: while typing, the status line counts down."""
    said = {
        kind: _(template).format(count=count, value="{value}", given="{given}")
        for kind, template in DICE_SENTENCES.items()
        if kind != TOO_FEW
    }
    return {"separators": SEPARATORS_PATTERN, "faces": list(FACES), "said": said}


@dataclass
class TurnView:
    """The dice typed for the active player and what they would do on the sheet."""

    faces: list[int]
    count: int
    preview: dict[tuple[str, str], Score] = field(default_factory=dict)
    forced: list[str] = field(default_factory=list)
    error: str | None = None
    # Which of the rules' DICE_SENTENCES `error` is, when it is the dice's.
    problem: str | None = None
    selected: Score | None = None
    selected_floor: int | None = None
    refused: str | None = None
    # Generala: whether the player said the dice came from the first throw (servida), and
    # whether saying it changes what a box would score, the only time the sheet asks it.
    served: bool = False
    servida_asked: bool = False

    @property
    def full(self) -> bool:
        return len(self.faces) >= self.count


def turn_view(
    state: GameState,
    dice_text: str | None,
    *,
    quiet_while_typing: bool,
    target: str = "",
    served: bool = False,
) -> TurnView:
    """What every box the typed dice may fill would score, from the rules.

    While the player is still typing, too few dice (and nothing else wrong) are no error:
    the keypad simply waits for the rest. Every other wrong throw is said at once, in the
    rules' own sentence. ``target`` is a box tapped with scripts on, shown for confirmation,
    or refused in the rules' few words. ``served``: the player said the dice came from the
    first throw (Generala), which counts only where the sheet asks it.
    """
    text = dice_text or ""
    view = TurnView(typed_faces(text), state.rules.dice)
    player = state.active_player
    if player is None or not (text or target):
        return view
    column, _sep, box = target.partition(":")
    if target and (refusal := state.refusal(player, column, box)) is not None:
        # Filled, or out of order: said whatever the dice; the preview goes on.
        view.refused = refusal.render(_)
        target = ""
    try:
        dice = parse_dice(text, state.rules.dice)
    except DiceError as dice_error:
        if not (quiet_while_typing and not target and dice_error.kind == TOO_FEW):
            view.error = dice_error.render(_)
            view.problem = dice_error.kind
        return view
    try:
        view.servida_asked = state.served_changes(dice)
        view.served = served and view.servida_asked
        throw = 1 if view.served else None
        view.preview = state.preview(dice, throw=throw)
        for kind in state.rules.columns:
            reason = state.placement(player, kind, dice).forced
            if reason is not None:
                view.forced.append(reason.render(_))
        if target and (refusal := state.refusal(player, column, box, dice)) is not None:
            view.refused = refusal.render(_)
        elif target:
            view.selected = state.score(Entry(player, column, box, dice, throw))
            view.selected_floor = state.vache_floor(player, column, box)
    except RuleError as rule_error:
        view.error = rule_error.render(_)
    return view


def render_sheet(
    record: GameRecord,
    state: GameState,
    form: EntryForm | None = None,
    error: str | None = None,
    status: int = 200,
    quiet_while_typing: bool = False,
):
    """The sheet, with what each open box would score when dice were typed."""
    if form is None or (not form.dice.data and status == 200 and error is None):
        return shared_sheet(record, state), status
    view = turn_view(
        state,
        form.dice.data,
        quiet_while_typing=quiet_while_typing,
        served=bool(form.served.data),
    )
    if view.error:
        error = error or view.error
        status = max(status, 422)
    return render_template(
        "games/sheet.html",
        game_id=record.id,
        state=state,
        version=record.version.token,
        dice=form.dice.data,
        throws=form.throws.data,
        view=view,
        error=error,
    ), status


def shared_sheet(record: GameRecord, state: GameState, said: str | None = None) -> str:
    """The sheet with no dice typed: the one every tablet shows for this version of the
    game, drawn once for all of them; `said`, a message for this answer."""
    return _sheet_page(
        record.id,
        record.version,
        lambda: (record, state),
        household=household(),
        said=() if said is None else (("info", said),),
    )


class _MovedOn(Exception):
    """The game changed again before its sheet was drawn for the version pushed."""


def sheet_key(game_id: int, version: GameVersion, *, household: int, language: str) -> tuple:
    """What names a shared sheet: the household's game, at this version, in this language."""
    return ("sheet", household, game_id, version.token, language)


def kept_sheet(
    pages: DrawnPages, game_id: int, version: GameVersion, *, household: int, language: str
) -> str | None:
    """The shared sheet of this version of a game in progress or finished if it is drawn
    already (the player's turn drew it), without a request context: the streams woken by the
    turn take it from there. None otherwise: pushed_sheet, in a context, draws it."""
    if version.status == ABANDONED:
        return None
    return pages.kept(sheet_key(game_id, version, household=household, language=language))


def pushed_sheet(game_id: int, version: GameVersion, *, household: int, token: str) -> str | None:
    """The shared sheet of this version of a game in progress or finished (its end shown on
    every tablet), for an event stream to push to an open tablet (web/live.py) with the
    tablet's CSRF token; None when the game is abandoned or has moved on already (the next
    event brings the newer sheet)."""
    if version.status == ABANDONED:
        return None

    def loaded() -> tuple[GameRecord, GameState]:
        record, state = load(store(), game_id, household=household)
        if record.version.token != version.token:
            raise _MovedOn
        return record, state

    try:
        return _sheet_page(game_id, version, loaded, household=household, pushed_with=token)
    except (GameNotFound, _MovedOn):
        return None


def _sheet_page(
    game_id: int,
    version: GameVersion,
    loaded: Callable[[], tuple[GameRecord, GameState]],
    *,
    household: int,
    pushed_with: str | None = None,
    said: Sequence[tuple[str, str]] = (),
) -> str:
    """The shared sheet of `version`, drawn from what `loaded()` gives if nobody drew it."""

    def context() -> dict:
        record, state = loaded()
        sheet_url = url_for("games.sheet", game_id=game_id)
        view = turn_view(state, "", quiet_while_typing=True)
        # The language switch comes back to the sheet itself.
        return {
            "game_id": game_id,
            "state": state,
            "version": record.version.token,
            "view": view,
            "language_return_path": lambda: sheet_url,
        }

    key = sheet_key(game_id, version, household=household, language=str(get_locale()))
    return shared_page(key, "games/sheet.html", context, pushed_with=pushed_with, said=said)
