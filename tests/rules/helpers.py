"""Building game states for rules tests: a log of (box, dice) turns, one per seat in order."""

from scorekeeper.rules import Entry, GameState, Rules, replay


def play(rules: Rules, players: list[str], turns: list[tuple]) -> GameState:
    """Replay turns given as (box, dice) or (column, box, dice), seats taking turns in order."""
    entries = []
    for number, turn in enumerate(turns):
        column, box, dice = turn if len(turn) == 3 else (rules.columns[0], *turn)
        entries.append(Entry(number % len(players), column, box, tuple(dice)))
    return replay(rules, players, entries)


def solo(turns: list[tuple], **options) -> GameState:
    return play(Rules.from_dict(options), ["Solo"], turns)


def cell(state: GameState, box: str, player: int = 0, column: str = "free"):
    return state.sheets[player].columns[column].cells[box]
