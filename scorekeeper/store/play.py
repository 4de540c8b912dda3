"""Playing a stored game: every check and score comes from a replay of its log by the rules.

The score written with an entry is only a cache of that replay; the seat that plays is the
replay's active player, never a value sent by a client.
"""

from collections.abc import Sequence

from scorekeeper.rules import Entry, GameState, Rules, Score, check_players, replay
from scorekeeper.store.errors import GameNotFound, StaleSheet
from scorekeeper.store.records import EntryRecord, GameRecord
from scorekeeper.store.store import Store


def state_of(record: GameRecord) -> GameState:
    """The state a stored game's log replays to."""
    entries = (Entry(e.seat, e.column, e.box, e.dice) for e in record.entries)
    return replay(Rules.from_dict(record.rules), record.players, entries)


def start_game(store: Store, rules: Rules, names: Sequence[str]) -> int:
    """Store a new game once the rules accept its players; RuleError says what is wrong."""
    check_players(names)
    return store.create_game(rules.to_dict(), list(names))


def load(store: Store, game_id: int) -> tuple[GameRecord, GameState]:
    record = store.load_game(game_id)
    if record is None:
        raise GameNotFound(game_id)
    return record, state_of(record)


def play_turn(store: Store, game_id: int, expected_seq: int, column: str, box: str,
              dice: object) -> tuple[Score, GameState]:
    """Load the game, then write the active player's entry as ``write_turn`` does."""
    _, state = load(store, game_id)
    return write_turn(store, game_id, state, expected_seq, column, box, dice)


def write_turn(store: Store, game_id: int, state: GameState, expected_seq: int, column: str,
               box: str, dice: object) -> tuple[Score, GameState]:
    """Write the active player's entry on ``state``, the game as just loaded.

    Raises StaleSheet when the client saw another sheet, or when another entry or an undo
    reaches the store first (its count check is the guard); RuleError when the rules refuse
    the entry. In every case nothing is written.
    """
    if len(state.entries) != expected_seq:
        raise StaleSheet(game_id, expected_seq, len(state.entries))
    entry = Entry(state.active_player, column, box, dice)
    cell = state.score(entry)
    after = state.play(entry)
    record = EntryRecord(expected_seq, entry.player, column, box, cell.dice, cell.points)
    store.add_entry(game_id, expected_seq, record, finished=after.is_over)
    return cell, after
