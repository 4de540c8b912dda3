"""Playing a stored game: every check and score comes from a replay of its log by the rules.

The score written with an entry is only a cache of that replay; the seat that plays is the
replay's active player, never a value sent by a client.

A turn reads its game twice (to check and write the entry, then to show the sheet it
redirects to), and every device at the table reloads the sheet after each entry. So the
last replays are kept in memory, each with the version of the game it was replayed from;
one small query for the current version tells whether a kept replay is still the game.
"""

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace
from weakref import WeakKeyDictionary

from scorekeeper.rules import Entry, GameState, Rules, Score, check_players, replay
from scorekeeper.store.errors import GameNotFound, StaleSheet
from scorekeeper.store.records import FINISHED, EntryRecord, GameRecord, GameVersion
from scorekeeper.store.store import Store

# Games kept replayed per store: more than a household plays at once.
KEPT_REPLAYS = 64


class Replays:
    """The last games replayed from one store, each a (record, state) pair; safe to share
    between the server's threads. Both values are immutable, so callers may keep them."""

    def __init__(self, size: int = KEPT_REPLAYS) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._kept: OrderedDict[int, tuple[GameRecord, GameState]] = OrderedDict()

    def get(self, game_id: int, version: GameVersion) -> tuple[GameRecord, GameState] | None:
        """The replay kept for this game, if it is of exactly this version."""
        with self._lock:
            kept = self._kept.get(game_id)
            if kept is None or kept[0].version != version:
                return None
            self._kept.move_to_end(game_id)
            return kept

    def keep(self, record: GameRecord, state: GameState) -> None:
        with self._lock:
            self._kept[record.id] = (record, state)
            self._kept.move_to_end(record.id)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)


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
    entries = (Entry(e.seat, e.column, e.box, e.dice) for e in record.entries)
    return replay(Rules.from_dict(record.rules), record.players, entries)


def start_game(
    store: Store,
    rules: Rules,
    names: Sequence[str],
    *,
    household: int,
    rematch_of: int | None = None,
) -> int:
    """Store a new game once the rules accept its players; RuleError says what is wrong.
    With ``rematch_of``, the Revanche of that game: made once, its id every time after."""
    check_players(names)
    return store.create_game(
        rules.to_dict(), list(names), household=household, rematch_of=rematch_of
    )


def load(store: Store, game_id: int, *, household: int) -> tuple[GameRecord, GameState]:
    """A stored game of the household and the state its log replays to; GameNotFound if
    the household has none of this id (the kept replays are reached only past that check)."""
    version = store.game_version(game_id, household=household)
    if version is None:
        raise GameNotFound(game_id)
    kept_replays = replays(store)
    kept = kept_replays.get(game_id, version)
    if kept is not None:
        return kept
    record = store.load_game(game_id, household=household)
    if record is None:
        raise GameNotFound(game_id)
    state = state_of(record)
    kept_replays.keep(record, state)
    return record, state


def play_turn(
    store: Store,
    game_id: int,
    expected_seq: int,
    column: str,
    box: str,
    dice: object,
    *,
    household: int,
) -> tuple[Score, GameRecord, GameState]:
    """Load the game, then write the active player's entry as ``write_turn`` does."""
    record, state = load(store, game_id, household=household)
    return write_turn(store, record, state, expected_seq, column, box, dice, household=household)


def write_turn(
    store: Store,
    record: GameRecord,
    state: GameState,
    expected_seq: int,
    column: str,
    box: str,
    dice: object,
    *,
    household: int,
) -> tuple[Score, GameRecord, GameState]:
    """Write the active player's entry on ``state``, the game ``record`` as just loaded;
    return the entry's score and the game as written (the record and its state, as a load
    would give them now, with no query).

    Raises StaleSheet when the client saw another sheet, or when another entry or an undo
    reaches the store first (the store checks the game's last change is still the one
    ``record`` has); RuleError when the rules refuse the entry. In every case nothing is
    written.
    """
    if len(state.entries) != expected_seq:
        raise StaleSheet(record.id, expected_seq, len(state.entries))
    entry = Entry(state.active_player, column, box, dice)
    cell = state.score(entry)
    after = state.play(entry)
    written = EntryRecord(expected_seq, entry.player, column, box, cell.dice, cell.points)
    updated_at = store.add_entry(
        record.id,
        expected_seq,
        written,
        finished=after.is_over,
        seen_at=record.updated_at,
        final_state=after if after.is_over else None,
        household=household,
    )
    # The game as the store now holds it: the write required that nothing changed since
    # `record` was read, so the new log is its log and this entry.
    record = replace(record, entries=(*record.entries, written), updated_at=updated_at)
    if expected_seq == 0:
        record = replace(record, started_at=updated_at)
    if after.is_over:
        record = replace(record, status=FINISHED, finished_at=updated_at)
    replays(store).keep(record, after)
    return cell, record, after
