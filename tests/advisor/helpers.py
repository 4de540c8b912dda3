"""Sheets for the advisor tests, built straight from the points written in them."""

from types import MappingProxyType

from scorekeeper.rules import Column, Entry, GameState, Rules, Score, Sheet

# Filled before the sub-game the tests solve starts: left to play are the four high upper
# boxes, so the upper bonus is in play, and Carré, Grande suite and Yams, so the joker and
# the +100 are.
END_GAME_FILLED = ("ones", "twos", "full_house", "small_straight", "chance", "three_kind")


def column(rules: Rules, points: dict[str, int]) -> Column:
    cells = {box: Score("free", box, (), value) for box, value in points.items()}
    return Column(rules, "free", MappingProxyType(cells))


def game(rules: Rules, sheets: dict[str, dict[str, int]]) -> GameState:
    """A game whose players' sheets already hold these points (player -> box -> points).

    The log holds one entry per filled box, so that the turn and the game's end follow.
    """
    built = tuple(
        Sheet(name, MappingProxyType({"free": column(rules, points)}))
        for name, points in sheets.items()
    )
    entries = tuple(
        Entry(seat, "free", box, ())
        for seat, points in enumerate(sheets.values())
        for box in points
    )
    return GameState(rules, list(sheets), built, entries)


def solo_state(rules: Rules, points: dict[str, int]) -> GameState:
    """A one-player game whose sheet already holds ``points`` (box -> points written)."""
    return game(rules, {"Solo": points})
