"""Reading the dice a player typed, and what a set of dice shows."""

import re
from collections import Counter

from scorekeeper.rules.errors import RuleError
from scorekeeper.rules.labels import N_

Dice = tuple[int, ...]

FACES = (1, 2, 3, 4, 5, 6)

# A Yams is five dice alike, also among six dice (Yams 6).
YAMS_SIZE = 5

_SEPARATORS = re.compile(r"[\s,;/\-]+")


def parse_dice(text: object, count: int = 5) -> Dice:
    """The dice in ``text``: ``66653``, ``6 6 6 5 3``, ``6,6,6,5,3`` or a list of integers.

    Raises RuleError with a message that says what to fix.
    """
    if isinstance(text, (list, tuple)):
        return _check_values(list(text), count)
    if not isinstance(text, str):
        raise RuleError(N_("Tapez les dés : {count} chiffres de 1 à 6."), count=count)
    cleaned = text.strip()
    if not cleaned:
        raise RuleError(N_("Tapez les dés : {count} chiffres de 1 à 6."), count=count)
    parts = [part for part in _SEPARATORS.split(cleaned) if part]
    if len(parts) == 1 and parts[0].isdecimal():
        parts = list(parts[0])
    return _check_values(parts, count)


def _check_values(values: list, count: int) -> Dice:
    dice = []
    for value in values:
        if isinstance(value, bool):
            raise RuleError(N_("« {value} » n'est pas un dé : un dé va de 1 à 6."), value=value)
        if isinstance(value, str):
            if not (value.isascii() and value.isdecimal()):
                raise RuleError(
                    N_(
                        "« {value} » n'est pas un dé : tapez {count} chiffres de 1 à 6, "
                        "par exemple 66653."
                    ),
                    value=value,
                    count=count,
                )
            value = int(value)
        if not isinstance(value, int) or not 1 <= value <= 6:
            raise RuleError(N_("« {value} » n'est pas un dé : un dé va de 1 à 6."), value=value)
        dice.append(value)
    if len(dice) != count:
        raise RuleError(
            N_("Il faut {count} dés, vous en avez donné {given}."), count=count, given=len(dice)
        )
    return tuple(dice)


def yams_face(dice: Dice) -> int | None:
    """The face shown by at least five of the dice, or None when the dice are not a Yams."""
    face, alike = Counter(dice).most_common(1)[0]
    return face if alike >= YAMS_SIZE else None


def is_yams(dice: Dice) -> bool:
    return yams_face(dice) is not None
