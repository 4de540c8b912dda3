"""Where a column's upper bonus stands, and the words the sheet says it in.

docs/rules.md §2, « Upper bonus »: the bonus (35, 50 in Yatzy) comes when the six upper
boxes total 63 or more, « three dice of each face », and the sheet always shows what is
still missing and the balance against three of each: four sixes is +6, two ones is −1.
That balance is the pace: three of each face for the upper boxes filled so far. A bonus
the open upper boxes can no longer bring, even with five dice of their face each, is out
of reach. The screen and the paper say the same words, made here.
"""

from dataclasses import dataclass

from scorekeeper.rules.labels import N_
from scorekeeper.rules.options import FACE_OF_BOX, UPPER_BOXES
from scorekeeper.rules.rule_set import Rules
from scorekeeper.rules.sheet import Column

# The most dice of one face a box counts: five, also in Yams 6 (its boxes count the best five).
DICE_A_BOX_COUNTS = 5


def dice_a_box_counts(rules: Rules) -> int:
    """The most dice of one face an upper box counts: all six in Maxi Yatzy (§15)."""
    return rules.dice if rules.is_maxi_yatzy else DICE_A_BOX_COUNTS


REACHED = "reached"  # the bonus is won
MISSED = "missed"  # every upper box is filled, under the threshold
OUT_OF_REACH = "out_of_reach"  # boxes are open, but even five of their face would not do
AHEAD = "ahead"  # more than three of each face for the boxes filled
BEHIND = "behind"
ON_PACE = "on_pace"


@dataclass(frozen=True)
class BonusPace:
    """A column's upper bonus: its value and threshold, the points still missing, the
    balance against three of each face, and the pace that follows (None before the first
    upper box: there is no pace to speak of yet)."""

    bonus: int
    threshold: int
    missing: int
    balance: int
    pace: str | None

    @property
    def is_open(self) -> bool:
        """Whether the bonus can still be won and is not yet: the row says what is missing."""
        return self.pace not in (REACHED, MISSED)

    @property
    def is_behind(self) -> bool:
        """Whether the pace is bad news: behind three of each face, or out of reach."""
        return self.pace in (BEHIND, OUT_OF_REACH)


def bonus_pace(column: Column) -> BonusPace:
    """Where ``column``'s upper bonus stands, from its rule set and the boxes filled."""
    threshold, bonus = column.rules.upper_bonus_threshold, column.rules.upper_bonus
    missing, balance = column.bonus_missing, column.bonus_balance
    most = dice_a_box_counts(column.rules)
    best_still = sum(most * FACE_OF_BOX[box] for box in UPPER_BOXES if box not in column.cells)
    if not missing:
        pace = REACHED
    elif column.upper_complete:
        pace = MISSED
    elif missing > best_still:
        pace = OUT_OF_REACH
    elif not column.upper_started:
        pace = None
    elif balance > 0:
        pace = AHEAD
    elif balance < 0:
        pace = BEHIND
    else:
        pace = ON_PACE
    return BonusPace(bonus, threshold, missing, balance, pace)


@dataclass(frozen=True)
class Words:
    """A French template in two widths, to translate with ``params``: ``text`` where the
    cell has room, ``short`` where it is narrow (a column of Triple: 70 px), which leaves
    the pace's number to the sentence a tap shows."""

    text: str
    short: str
    params: dict


@dataclass(frozen=True)
class BonusWords:
    """What the bonus row of a column says (``standing``, where it stands): the bonus won
    or missed (``result``), or what
    is missing and the pace; ``explained``, the whole sentence, for a tap and screen
    readers."""

    standing: BonusPace
    result: Words | None
    missing: Words | None
    pace: Words | None
    explained: Words | None


_PACE_WORDS = {
    AHEAD: (N_("en avance de %(points)d"), N_("avance")),
    BEHIND: (N_("en retard de %(points)d"), N_("retard")),
    ON_PACE: (N_("dans le rythme"), N_("pile")),
    OUT_OF_REACH: (N_("hors d'atteinte"), N_("perdue")),
}
_EXPLAINED = {
    AHEAD: N_(
        "Prime du haut : encore %(missing)d points pour %(bonus)d, en avance de %(points)d "
        "sur le rythme de trois de chaque face."
    ),
    BEHIND: N_(
        "Prime du haut : encore %(missing)d points pour %(bonus)d, en retard de %(points)d "
        "sur le rythme de trois de chaque face."
    ),
    ON_PACE: N_(
        "Prime du haut : encore %(missing)d points pour %(bonus)d, dans le rythme de trois "
        "de chaque face."
    ),
    OUT_OF_REACH: N_(
        "Prime du haut : encore %(missing)d points pour %(bonus)d, hors d'atteinte avec les "
        "cases qui restent."
    ),
}


# Maxi Yatzy's pace is four of each face (docs/rules.md §15).
_EXPLAINED_FOUR = {
    AHEAD: N_(
        "Prime du haut : encore %(missing)d points pour %(bonus)d, en avance de %(points)d "
        "sur le rythme de quatre de chaque face."
    ),
    BEHIND: N_(
        "Prime du haut : encore %(missing)d points pour %(bonus)d, en retard de %(points)d "
        "sur le rythme de quatre de chaque face."
    ),
    ON_PACE: N_(
        "Prime du haut : encore %(missing)d points pour %(bonus)d, dans le rythme de quatre "
        "de chaque face."
    ),
    OUT_OF_REACH: _EXPLAINED[OUT_OF_REACH],
}


def bonus_words(column: Column) -> BonusWords:
    """The bonus row's words for ``column``: « 35 ✓ » once won, « manqué de 8 » once
    missed; else « encore 18 pour 35 » and the pace, « en avance de 3 »."""
    standing = bonus_pace(column)
    values = {"bonus": standing.bonus, "missing": standing.missing}
    if standing.pace == REACHED:
        won = N_("%(bonus)d ✓")
        return BonusWords(standing, Words(won, won, values), None, None, None)
    if standing.pace == MISSED:
        result = Words(N_("manqué de %(missing)d"), N_("manqué"), values)
        return BonusWords(standing, result, None, None, None)
    missing = Words(N_("encore %(missing)d pour %(bonus)d"), N_("reste %(missing)d"), values)
    if standing.pace is None:
        return BonusWords(standing, None, missing, None, None)
    values = {**values, "points": abs(standing.balance)}
    text, short = _PACE_WORDS[standing.pace]
    sentences = _EXPLAINED_FOUR if column.rules.is_maxi_yatzy else _EXPLAINED
    explained = Words(sentences[standing.pace], sentences[standing.pace], values)
    return BonusWords(standing, None, missing, Words(text, short, values), explained)
