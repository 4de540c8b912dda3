"""Sheets for the advisor tests, built straight from the points written in them."""

import random
from types import MappingProxyType

from scorekeeper.rules import Column, Entry, GameState, Rules, Score, Sheet

# Filled before the sub-game the tests solve starts: left to play are the four high upper
# boxes, so the upper bonus is in play, and Carré, Grande suite and Yams, so the joker and
# the +100 are.
END_GAME_FILLED = ("ones", "twos", "full_house", "small_straight", "chance", "three_kind")
# The value the fake tables of the advisor's tests (tests/advisor/conftest.py) give the
# start of a game: a real table's would take minutes to build.
FAKE_START_VALUE = 254.5


def column(rules: Rules, points: dict[str, int], kind: str = "free") -> Column:
    cells = {box: Score(kind, box, (), value) for box, value in points.items()}
    return Column(rules, kind, MappingProxyType(cells))


def columns_game(rules: Rules, sheets: dict[str, dict[str, dict[str, int]]]) -> GameState:
    """A game whose players' columns already hold these points (player -> column -> box ->
    points; a column not given is empty).

    The log holds one entry per filled box, so that the turn and the game's end follow.
    """
    built = tuple(
        Sheet(
            name,
            MappingProxyType(
                {kind: column(rules, columns.get(kind, {}), kind) for kind in rules.columns}
            ),
        )
        for name, columns in sheets.items()
    )
    entries = tuple(
        Entry(seat, kind, box, ())
        for seat, columns in enumerate(sheets.values())
        for kind, points in columns.items()
        for box in points
    )
    return GameState(rules, list(sheets), built, entries)


def game(rules: Rules, sheets: dict[str, dict[str, int]]) -> GameState:
    """A game of one column whose players' sheets already hold these points (player -> box
    -> points)."""
    kind = rules.columns[0]
    return columns_game(rules, {name: {kind: points} for name, points in sheets.items()})


def solo_state(rules: Rules, points: dict[str, int]) -> GameState:
    """A one-player game whose sheet already holds ``points`` (box -> points written)."""
    return game(rules, {"Solo": points})


def seated_end_game(
    rules: Rules, players: dict[str, tuple[list[str], dict[str, int]]]
) -> GameState:
    """A game near its end from each player's (boxes left, points written: every other box
    filled, 0 unless given), seated as in a real game: the players who already played this
    round (one box fewer left) before the others, the active player first of those."""
    most = max(len(left) for left, _ in players.values())
    seated = sorted(players, key=lambda name: len(players[name][0]) == most)
    sheets = {
        name: {box: 0 for box in rules.boxes if box not in players[name][0]} | players[name][1]
        for name in seated
    }
    state = game(rules, sheets)
    active = state.sheets[state.active_player].columns[rules.columns[0]]
    assert len(rules.boxes) - len(active.cells) == most
    return state


def random_two_player_game(rules: Rules, chooser: random.Random, fewest_rounds: int) -> GameState:
    """Mag and Alix's game of one free column played at random, each turn any box the engine
    allows for random dice, until as many rounds as a draw between ``fewest_rounds`` and two
    short of the end (drawn again after each entry)."""
    state = game(rules, {"Mag": {}, "Alix": {}})
    while len(state.entries) < 2 * chooser.randint(fewest_rounds, len(rules.boxes) - 2):
        dice = tuple(chooser.randint(1, 6) for _ in range(5))
        box = chooser.choice(sorted(box for _, box in state.preview(dice)))
        state = state.play(Entry(state.active_player, "free", box, dice))
    return state
