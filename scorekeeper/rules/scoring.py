"""What a box scores with given dice: the formulas of docs/rules.md §2, §6, §9, §11, §14, §15.

Placement (whose turn, which boxes are open, the joker's forced box) and the house rules that
look at other boxes (la vache, Plus et Moins) live in ``game.py``; here a box only sees dice.
"""

from collections import Counter
from itertools import combinations

from scorekeeper.rules.dice import Dice
from scorekeeper.rules.options import FACE_OF_BOX
from scorekeeper.rules.rule_set import Rules

SMALL_STRAIGHTS = ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6})
LARGE_STRAIGHTS = ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6})

FULL_HOUSE = 25
SMALL_STRAIGHT = 30
LARGE_STRAIGHT = 40
YAMS = 50
FOUR_KIND_FIXED = 40
YATZY_SMALL_STRAIGHT = 15
YATZY_LARGE_STRAIGHT = 20

# Generala (docs/rules.md §14): each combination's points, then made on the first throw
# (« servida »). A Generala servida wins the game instead (rules/game.py), or scores 50.
GENERALA_STRAIGHTS = ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6})
ACE_HIGH_STRAIGHT = {3, 4, 5, 6, 1}
GENERALA_POINTS = {
    "straight": 20,
    "full_house": 30,
    "four_kind": 40,
    "generala": 50,
    "double_generala": 100,
}
SERVIDA_POINTS = {"straight": 25, "full_house": 35, "four_kind": 45}

# Maxi Yatzy (docs/rules.md §15): the fixed boxes' points.
MAXI_SMALL_STRAIGHT = 15  # 1-2-3-4-5
MAXI_LARGE_STRAIGHT = 20  # 2-3-4-5-6
MAXI_FULL_STRAIGHT = 21  # 1-2-3-4-5-6
MAXI_YATZY = 100  # six alike


def score(rules: Rules, box: str, dice: Dice, joker: bool = False, served: bool = False) -> int:
    """The points ``dice`` are worth in ``box``: 0 when the box's condition does not hold.

    ``joker`` is true when the joker applies (the dice are a Yams and the column's Yams box is
    filled): Full and the straights then score their full value. With six dice (Yams 6) the
    box scores its best five dice. ``served``: the dice came from the turn's first throw
    (Generala's servida).
    """
    if rules.is_generala:
        return _score_generala(rules, box, dice, served)
    if rules.is_maxi_yatzy:
        return score_maxi_yatzy(box, dice)
    if len(dice) == 5:
        return _score_five(rules, box, dice, joker)
    return max(_score_five(rules, box, five, joker) for five in combinations(dice, 5))


def is_variable(rules: Rules, box: str) -> bool:
    """Whether the box's value depends on the dice once its condition holds (la vache)."""
    if box in ("small_straight", "large_straight", "yams"):
        return False
    if rules.is_generala or rules.is_maxi_yatzy:
        return False  # la vache is played at neither (docs/rules.md §14, §15)
    if rules.is_yatzy:
        return True
    if box == "four_kind":
        return rules.four_kind != "fixed40"
    if box == "full_house":
        return rules.full_house == "base"
    return True


def _score_five(rules: Rules, box: str, dice: Dice, joker: bool) -> int:
    counts = Counter(dice)
    total = sum(dice)
    if box in FACE_OF_BOX:
        face = FACE_OF_BOX[box]
        return face * counts[face]
    if box in ("chance", "plus", "minus"):
        return total
    if rules.is_yatzy:
        return _score_yatzy_lower(box, counts, total)
    alike, face = max((n, f) for f, n in counts.items())
    if box == "three_kind":
        if alike < 3:
            return 0
        return _of_a_kind(rules.three_kind, 3, face, 10, total)
    if box == "four_kind":
        if alike < 4:
            return 0
        if rules.four_kind == "fixed40":
            return FOUR_KIND_FIXED
        return _of_a_kind(rules.four_kind, 4, face, 20, total)
    if box == "full_house":
        if sorted(counts.values()) != [2, 3] and not joker:
            return 0
        return 10 + total if rules.full_house == "base" else FULL_HOUSE
    faces = set(dice)
    if box == "small_straight":
        return SMALL_STRAIGHT if joker or any(s <= faces for s in SMALL_STRAIGHTS) else 0
    if box == "large_straight":
        return LARGE_STRAIGHT if joker or faces in LARGE_STRAIGHTS else 0
    if box == "yams":
        return YAMS if alike == 5 else 0
    raise ValueError(f"unknown box {box!r}")


def _of_a_kind(option: str, alike: int, face: int, base: int, total: int) -> int:
    """Brelan or Carré once the condition holds: the five dice (``sum``), the alike dice only
    (``matching``), or the alike dice on top of a base (``base``)."""
    if option == "matching":
        return alike * face
    if option == "base":
        return base + alike * face
    return total


def _score_yatzy_lower(box: str, counts: Counter, total: int) -> int:
    pairs = sorted((face for face, n in counts.items() if n >= 2), reverse=True)
    if box == "pair":
        return 2 * pairs[0] if pairs else 0
    if box == "two_pairs":
        return 2 * (pairs[0] + pairs[1]) if len(pairs) >= 2 else 0
    if box == "three_kind":
        return max((3 * face for face, n in counts.items() if n >= 3), default=0)
    if box == "four_kind":
        return max((4 * face for face, n in counts.items() if n >= 4), default=0)
    if box == "small_straight":
        return YATZY_SMALL_STRAIGHT if set(counts) == {1, 2, 3, 4, 5} else 0
    if box == "large_straight":
        return YATZY_LARGE_STRAIGHT if set(counts) == {2, 3, 4, 5, 6} else 0
    if box == "full_house":
        return total if sorted(counts.values()) == [2, 3] else 0
    if box == "yams":
        return YAMS if len(counts) == 1 else 0
    raise ValueError(f"unknown box {box!r}")


def _score_generala(rules: Rules, box: str, dice: Dice, served: bool) -> int:
    counts = Counter(dice)
    if box in FACE_OF_BOX:
        face = FACE_OF_BOX[box]
        return face * counts[face]
    shape = sorted(counts.values())
    if box == "straight":
        faces = set(dice)
        made = faces in GENERALA_STRAIGHTS or (
            rules.ace_high_straight and faces == ACE_HIGH_STRAIGHT
        )
    elif box == "full_house":
        made = shape == [2, 3]
    elif box == "four_kind":
        made = shape[-1] >= 4
    elif box in ("generala", "double_generala"):
        made = shape == [5]
    else:
        raise ValueError(f"unknown box {box!r}")
    if not made:
        return 0
    if served and rules.servida and box in SERVIDA_POINTS:
        return SERVIDA_POINTS[box]
    return GENERALA_POINTS[box]


def score_maxi_yatzy(box: str, dice: Dice) -> int:
    """What six dice score in a Maxi Yatzy box (docs/rules.md §15), 0 when its condition does
    not hold. Plain Python on a tuple of faces in any order (the advisor's policy calls it
    with sorted tuples, many times): no Rules, no state.

    Each combination takes the best dice among the six that make it (**Choice**: a Kåk may
    take its three from four alike, as two pairs may take one of its pairs from a Tretal);
    the pairs and triples of Två par, Tre par, Kåk, Hus and Torn are of different faces.
    """
    counts = [0] * 7
    for face in dice:
        counts[face] += 1
    if box in FACE_OF_BOX:
        face = FACE_OF_BOX[box]
        return face * counts[face]
    if box == "chance":
        return sum(dice)
    # Faces from the highest, so that the first found is the best.
    faces = range(6, 0, -1)
    if box == "pair":
        return next((2 * face for face in faces if counts[face] >= 2), 0)
    if box == "two_pairs":
        pairs = [face for face in faces if counts[face] >= 2]
        return 2 * (pairs[0] + pairs[1]) if len(pairs) >= 2 else 0
    if box == "three_pairs":
        pairs = [face for face in faces if counts[face] >= 2]
        return 2 * sum(pairs) if len(pairs) == 3 else 0
    if box in MAXI_OF_A_KIND:
        alike = MAXI_OF_A_KIND[box]
        return next((alike * face for face in faces if counts[face] >= alike), 0)
    shown = {face for face in faces if counts[face]}
    if box == "small_straight":
        return MAXI_SMALL_STRAIGHT if {1, 2, 3, 4, 5} <= shown else 0
    if box == "large_straight":
        return MAXI_LARGE_STRAIGHT if {2, 3, 4, 5, 6} <= shown else 0
    if box == "full_straight":
        return MAXI_FULL_STRAIGHT if len(shown) == 6 else 0
    if box == "full_house":
        return max(
            (
                3 * three + 2 * two
                for three in faces
                if counts[three] >= 3
                for two in faces
                if two != three and counts[two] >= 2
            ),
            default=0,
        )
    shape = sorted(count for count in counts if count)
    if box == "villa":
        return sum(dice) if shape == [3, 3] else 0
    if box == "tower":
        return sum(dice) if shape == [2, 4] else 0
    if box == "maxi_yatzy":
        return MAXI_YATZY if shape == [6] else 0
    raise ValueError(f"unknown box {box!r}")


# Tretal, Fyrtal, Femtal: the alike dice only, the best face that has them.
MAXI_OF_A_KIND = {"three_kind": 3, "four_kind": 4, "five_kind": 5}
