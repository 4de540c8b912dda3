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
# The same, for the page's script (a JavaScript regular expression reads it alike).
SEPARATORS_PATTERN = _SEPARATORS.pattern

# What can be wrong with the dice typed, each said in a sentence of its own. The page names
# the kinds as well: it says the sentence as the dice are typed (templates/games/_turn.html).
NO_DICE = "no_dice"
NOT_A_DIGIT = "not_a_digit"  # « abc »: a letter, a sign
NOT_A_FACE = "not_a_face"  # « 7 », « 0 », « 16 »: a number no die shows
TOO_MANY = "too_many"
TOO_FEW = "too_few"  # while typing, the normal state: only a turn written refuses it

# Each sentence, French and marked for translation, with {count} (the dice the game plays),
# {value} (the wrong part typed) or {given} (the dice typed) filled in.
DICE_SENTENCES = {
    NO_DICE: N_("Tapez les dés : {count} chiffres de 1 à 6."),
    NOT_A_DIGIT: N_("« {value} » n'est pas un chiffre : tapez les dés de 1 à 6."),
    NOT_A_FACE: N_("« {value} » n'est pas un dé : un dé va de 1 à 6."),
    TOO_MANY: N_("Trop de dés : il en faut {count}, pas {given}."),
    TOO_FEW: N_("Pas assez de dés : il en faut {count}, pas {given}."),
}


class DiceError(RuleError):
    """Dice that cannot be read, and which of DICE_SENTENCES says why (``kind``)."""

    def __init__(self, kind: str, *, count: int, value: object = "", given: int = 0) -> None:
        super().__init__(DICE_SENTENCES[kind], count=count, value=value, given=given)
        self.kind = kind


def parse_dice(text: object, count: int = 5) -> Dice:
    """The dice in ``text``: ``66653``, ``6 6 6 5 3``, ``6,6,6,5,3`` or a list of integers.

    Raises DiceError, whose message says what to fix. The page's script reads the dice
    typed in the same steps, to say the same sentence before the server answers
    (static/js/sheet.js, diceProblem): a change here goes there too.
    """
    if isinstance(text, (list, tuple)):
        return _check_values(list(text), count)
    cleaned = text.strip() if isinstance(text, str) else ""
    if not cleaned:
        raise DiceError(NO_DICE, count=count)
    parts = [part for part in _SEPARATORS.split(cleaned) if part]
    if len(parts) == 1 and parts[0].isdecimal():
        parts = list(parts[0])
    return _check_values(parts, count)


def _check_values(values: list, count: int) -> Dice:
    dice = []
    for value in values:
        if isinstance(value, str):
            if not (value.isascii() and value.isdecimal()):
                raise DiceError(NOT_A_DIGIT, count=count, value=value)
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 6:
            raise DiceError(NOT_A_FACE, count=count, value=value)
        dice.append(value)
    if len(dice) > count:
        raise DiceError(TOO_MANY, count=count, given=len(dice))
    if len(dice) < count:
        raise DiceError(TOO_FEW, count=count, given=len(dice))
    return tuple(dice)


def yams_face(dice: Dice) -> int | None:
    """The face shown by at least five of the dice, or None when the dice are not a Yams."""
    face, alike = Counter(dice).most_common(1)[0]
    return face if alike >= YAMS_SIZE else None


def is_yams(dice: Dice) -> bool:
    return yams_face(dice) is not None
