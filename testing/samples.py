"""Random legal games, for the benchmark and the tests: whole logs the rules accept.

Each turn throws five (or six) dice up to three times, keeping the most common face, then
writes the box the dice score best in, as a hurried but sensible player would: totals,
Yams and upper bonuses come out in realistic proportions.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from scorekeeper.rules import Entry, GameState, Rules, write_document
from scorekeeper.rules.options import FACE_OF_BOX, OPTIONS, THREE_OF_EACH


def _throw(rng: random.Random, count: int) -> tuple[int, ...]:
    dice = [rng.randint(1, 6) for _ in range(count)]
    for _ in range(2):
        face, alike = Counter(dice).most_common(1)[0]
        dice = [face] * alike + [rng.randint(1, 6) for _ in range(count - alike)]
    return tuple(dice)


def _worth(box: str, points: int) -> float:
    # An upper box is worth its points plus a share of the bonus when it keeps up with
    # "three of each"; the lower boxes are worth their points.
    if box in FACE_OF_BOX:
        return points + (8 if points >= THREE_OF_EACH[box] else -4)
    return points


def random_state(rules: Rules, players: Sequence[str], rng: random.Random) -> GameState:
    """A finished game between ``players`` under ``rules``."""
    state = GameState.start(rules, players)
    while not state.is_over:
        dice = _throw(rng, rules.dice)
        choices = state.preview(dice)
        (column, box), _score = max(
            choices.items(), key=lambda item: (_worth(item[0][1], item[1].points), rng.random())
        )
        state = state.play(Entry(state.active_player, column, box, dice))
    return state


def random_document(rules: Rules, players: Sequence[str], rng: random.Random) -> dict:
    """The game document of a random finished game."""
    return write_document(random_state(rules, players, rng))


# A turn that scores in each box of a fresh classique sheet, in an order any sheet accepts:
# (dice, box).
SCORING_TURNS = (
    ("11123", "ones"),
    ("22234", "twos"),
    ("33345", "threes"),
    ("44456", "fours"),
    ("55516", "fives"),
    ("66612", "sixes"),
    ("12345", "large_straight"),
    ("33322", "full_house"),
    ("12346", "small_straight"),
    ("66665", "four_kind"),
    ("55543", "three_kind"),
    ("66666", "yams"),
    ("65432", "chance"),
)


def new_game_form(names: Sequence[str], preset: str = "classique") -> dict[str, str]:
    """The new-game form as its page posts it with every house rule left at its default
    (docs/rules.md), without the CSRF token: a ticked checkbox sends "y", an unticked one
    nothing."""
    fields = {f"names-{seat}": name for seat, name in enumerate(names)}
    fields["preset"] = preset
    for option in OPTIONS:
        if not option.is_flag:
            fields[option.name] = str(option.default)
        elif option.default:
            fields[option.name] = "y"
    return fields
