"""Maxi Yatzy's saved throws (docs/rules.md §15): three throws a turn, at least one made, and
the throws a turn leaves unused saved for the player's later turns, without limit.

Nothing stores them: each player's saved throws are read from the entries, which may say
the throws their turn used (``Entry.throws``; None: the turn's own three).
"""

from collections.abc import Iterable

# The throws each turn brings; a turn that says nothing used them all.
TURN_THROWS = 3


def throws_used(said: int | None) -> int:
    """The throws a turn used: what its entry said, else the turn's own three."""
    return TURN_THROWS if said is None else said


def saved_throws(player_count: int, entries: Iterable) -> tuple[int, ...]:
    """Each seat's saved throws after ``entries`` (anything with ``player`` and ``throws``,
    as rules.Entry): every turn brings three and takes those it used."""
    saved = [0] * player_count
    for entry in entries:
        saved[entry.player] += TURN_THROWS - throws_used(entry.throws)
    return tuple(saved)
