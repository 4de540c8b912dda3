"""Playing a stored game, between the pages and the store: a game loaded, a turn checked,
scored and written, an entry undone. Every check and score comes from a replay of the
game's log by the rules.

The score written with an entry is only a cache of that replay; the seat that plays is the
replay's active player, never a value sent by a client.

A turn is checked once: the game must still be the one the player saw (its version, which
every entry and undo moves), compared with the game the turn was loaded from, and the write
is made on that same version only (``add_entry``'s ``seen_at``), so that an entry or an
undo from another device in between refuses it. Its cell is scored once, on that state.

A turn may carry the key its tablet made for it (``turn_key``). A tablet that lost the
answer to a turn (the network dropped) sends it again with the same key: the game that
already has an entry of that key hands it back (``Turn.repeated``) rather than refuse it as
made on an old sheet, so that a turn sent twice is written once and its tablet learns that it
was. Keys are looked for in the game's own log only.

Every device at the table reloads the sheet after each entry, and a turn's page is drawn
from the state it wrote: the last replays are kept in memory, each with the version of the
game it was replayed from; one small query for the current version tells whether a kept
replay is still the game.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from weakref import WeakKeyDictionary

from scorekeeper.lru import LruCache
from scorekeeper.rules import Entry, GameState, Rules, Score, check_players, replay
from scorekeeper.store.engine import Store
from scorekeeper.store.errors import GameNotFound, StaleSheet
from scorekeeper.store.games import add_entry, create_game, game_version, load_game, undo_entry
from scorekeeper.store.quotas import Quotas
from scorekeeper.store.records import FINISHED, EntryRecord, GameRecord, GameVersion

# Games kept replayed per store: more than a household plays at once.
KEPT_REPLAYS = 64


class Replays:
    """The last games replayed from one store, each a (record, state) pair; safe to share
    between the server's threads. Both values are immutable, so callers may keep them."""

    def __init__(self, size: int = KEPT_REPLAYS) -> None:
        self._kept: LruCache[int, tuple[GameRecord, GameState]] = LruCache(size)

    def get(self, game_id: int, version: GameVersion) -> tuple[GameRecord, GameState] | None:
        """The replay kept for this game, if it is of exactly this version."""
        kept = self._kept.get(game_id)
        return kept if kept is not None and kept[0].version == version else None

    def keep(self, record: GameRecord, state: GameState) -> None:
        self._kept.put(record.id, (record, state))


_replays: WeakKeyDictionary[Store, Replays] = WeakKeyDictionary()
_replays_lock = threading.Lock()


def replays(store: Store) -> Replays:
    """The replays kept for this store."""
    with _replays_lock:
        if store not in _replays:
            _replays[store] = Replays()
        return _replays[store]


def state_of(record: GameRecord) -> GameState:
    """The state a stored game's log replays to."""
    entries = (Entry(e.seat, e.column, e.box, e.dice, e.throw, e.throws) for e in record.entries)
    return replay(Rules.from_dict(record.rules), record.players, entries)


def start_game(
    store: Store,
    rules: Rules,
    names: Sequence[str],
    *,
    household: int,
    quotas: Quotas,
    rematch_of: int | None = None,
) -> int:
    """Store a new game once the rules accept its players; RuleError says what is wrong,
    QuotaExceeded when the household keeps as many games as ``quotas`` allow. With
    ``rematch_of``, the Revanche of that game: made once, its id every time after."""
    check_players(names)
    return create_game(
        store,
        rules.to_dict(),
        list(names),
        household=household,
        quotas=quotas,
        rematch_of=rematch_of,
    )


def load(store: Store, game_id: int, *, household: int) -> tuple[GameRecord, GameState]:
    """A stored game of the household and the state its log replays to; GameNotFound if
    the household has none of this id (the kept replays are reached only past that check)."""
    version = game_version(store, game_id, household=household)
    if version is None:
        raise GameNotFound(game_id)
    kept_replays = replays(store)
    kept = kept_replays.get(game_id, version)
    if kept is not None:
        return kept
    record = load_game(store, game_id, household=household)
    if record is None:
        raise GameNotFound(game_id)
    state = state_of(record)
    kept_replays.keep(record, state)
    return record, state


@dataclass(frozen=True)
class Turn:
    """A turn played: the cell its dice score in the box, and the game once it is written
    (the record and its state, as a load would give them now). ``written`` False: the cell
    would be barred and the player has not confirmed it; the game is as it was."""

    cell: Score
    record: GameRecord
    state: GameState
    written: bool = True
    # The entry the turn's key was written with before: nothing is written now, and the
    # cell is that entry's, in the game as it is.
    repeated: EntryRecord | None = None


def _check_seen(record: GameRecord, seq: int, version: str | None) -> None:
    """StaleSheet unless the game is the one the player saw: ``seq`` entries, and the
    version ``version`` (a page's GameVersion.token; None: whichever has ``seq`` entries)."""
    if len(record.entries) != seq or (version is not None and version != record.version.token):
        raise StaleSheet(record.id, seq, len(record.entries))


def play_turn(
    store: Store,
    game_id: int,
    seq: int,
    column: str,
    box: str,
    dice: object,
    *,
    household: int,
    version: str | None = None,
    barred_confirmed: bool = True,
    loaded: tuple[GameRecord, GameState] | None = None,
    throw: int | None = None,
    throws: int | None = None,
    turn_key: str | None = None,
) -> Turn:
    """The active player's entry of ``dice`` in ``box`` of ``column``, on the game the player
    saw (``seq`` entries, at ``version``), checked, scored and written; ``throw``, the throw
    the dice came from when the player said it (Generala's servida); ``throws``, the throws
    the turn used when the player said it (Maxi Yatzy's saved throws).

    ``loaded``: the game as the caller has just loaded it (``load``), which spares a second
    load. A cell that would be barred is written only when ``barred_confirmed``. With
    ``turn_key``, the entry of that key when the game has one already (``repeated``, the
    game as it is now), whatever the game became since; else the entry is written with it.
    Raises StaleSheet when the player saw another game than the stored one, or when another
    entry or an undo reaches the store first; RuleError when the rules refuse the entry;
    GameNotFound. In every case nothing is written.
    """
    record, state = loaded or load(store, game_id, household=household)
    if turn_key is not None and (repeated := _repeated(record, state, turn_key)):
        return repeated
    _check_seen(record, seq, version)
    entry = Entry(state.active_player, column, box, dice, throw, throws)
    cell = state.score(entry)
    if cell.barred and not barred_confirmed:
        return Turn(cell, record, state, written=False)
    after = state.apply(entry, cell)
    written = EntryRecord(
        seq,
        entry.player,
        column,
        box,
        cell.dice,
        cell.points,
        turn_key=turn_key,
        throw=cell.throw,
        throws=throws,
    )
    try:
        updated_at = add_entry(
            store,
            game_id,
            written,
            seen_at=record.updated_at,
            finished=after.is_over,
            final_state=after if after.is_over else None,
            household=household,
        )
    except StaleSheet:
        if turn_key is None:
            raise
        # The same turn sent twice at once (sent again while the first was still on its
        # way): the other request may have written it, and this one then answers as it does.
        record, state = load(store, game_id, household=household)
        if (repeated := _repeated(record, state, turn_key)) is None:
            raise
        return repeated
    # The game as the store now holds it: the write required that nothing changed since
    # `record` was read, so the new log is its log and this entry.
    record = replace(record, entries=(*record.entries, written), updated_at=updated_at)
    if seq == 0:
        record = replace(record, started_at=updated_at)
    if after.is_over:
        record = replace(record, status=FINISHED, finished_at=updated_at)
    replays(store).keep(record, after)
    return Turn(cell, record, after)


def _repeated(record: GameRecord, state: GameState, turn_key: str) -> Turn | None:
    """The turn of the game's log written with ``turn_key``, if there is one: its cell as
    the game holds it now, and the game as it is."""
    for entry in record.entries:
        if entry.turn_key == turn_key:
            cell = state.sheets[entry.seat].columns[entry.column].cells[entry.box]
            return Turn(cell, record, state, repeated=entry)
    return None


def undo_turn(
    store: Store,
    game_id: int,
    seq: int,
    *,
    household: int,
    version: str | None = None,
    loaded: tuple[GameRecord, GameState] | None = None,
) -> EntryRecord:
    """The last entry of the game the player saw (``seq`` entries, at ``version``) taken
    back; the game goes back in progress. Raises StaleSheet when the game changed since,
    NothingToUndo when it has no entry, GameNotFound; nothing is changed then."""
    record, _state = loaded or load(store, game_id, household=household)
    _check_seen(record, seq, version)
    return undo_entry(store, game_id, seq, seen_at=record.updated_at, household=household)
