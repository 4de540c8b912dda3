"""Every rule set the app can start gets advice: each preset with each list of columns, five
or six dice, Plus et Moins, la vache; after every throw. Played on tables of the last two
boxes of each column, so that the walk stays quick; the rules engine says what is allowed."""

from itertools import combinations

import numpy as np
import pytest

from scorekeeper.advisor.solver import SheetIndex, build_table
from scorekeeper.advisor.strategy import Strategy
from scorekeeper.advisor.tables import (
    EXACT,
    EXACT_THIS_TURN,
    ONE_THROW_COLUMNS,
    POLICY,
    advice_quality,
    table_options,
    turn_throws,
)
from scorekeeper.rules import Rules
from scorekeeper.rules.options import COLUMN_ORDER, UPPER_BOXES
from tests.advisor.helpers import columns_game

# Every column list the new-game screen may give, with the options that change the tables.
RULE_SETS = [
    {"preset": preset, "columns": list(columns), "vache": vache, **options}
    for size in range(1, len(COLUMN_ORDER) + 1)
    for columns in combinations(COLUMN_ORDER, size)
    for vache in (False, True)
    for preset, options in [("yatzy", {})]
    + [
        ("classique", {"dice": dice, "plus_minus": plus_minus})
        for dice in (5, 6)
        for plus_minus in (False, True)
    ]
]
DICE = {5: ["11126", "66666", "23456", "55443"], 6: ["111126", "666665", "123456", "554431"]}
LEFT = 2  # boxes left in each column


def _left(rules: Rules, kind: str) -> list[str]:
    """The boxes still free in a column of ``kind``: the last of its order."""
    return list(rules.boxes[:LEFT] if kind == "up" else rules.boxes[-LEFT:])


def _points(rules: Rules, kind: str) -> dict[str, int]:
    """The first player's column: all but its last boxes, with points that bring the joker,
    the +100, the upper bonus and Plus et Moins into play."""
    free = _left(rules, kind)
    points = {box: 0 for box in rules.boxes if box not in free}
    points |= {box: 3 * (index + 1) for index, box in enumerate(UPPER_BOXES) if box in points}
    if "yams" in points:
        points["yams"] = 50
    if "plus" in points and "minus" in points:
        points |= {"plus": 25, "minus": 12}
    elif "plus" in points or "minus" in points:
        points["plus" if "plus" in points else "minus"] = 18
    return points


_TABLES: dict[str, tuple[SheetIndex, np.ndarray]] = {}


def _table(rules: Rules, kind: str) -> tuple[SheetIndex, np.ndarray]:
    key = repr(sorted(table_options(rules, kind).items()))
    if key not in _TABLES:
        sheet = SheetIndex(rules, kind)
        _TABLES[key] = sheet, build_table(rules, kind, filled=_points(rules, kind), sheet=sheet)
    return _TABLES[key]


def _game(rules: Rules):
    """Two players; the first to play holds the end of a game, the second a full sheet whose
    points are la vache's floors."""
    floors = {box: 4 * (index + 1) for index, box in enumerate(UPPER_BOXES)}
    floors |= {box: 21 for box in rules.lower_boxes}
    return columns_game(
        rules,
        {
            "Mag": {kind: _points(rules, kind) for kind in rules.columns},
            "Alix": {kind: {box: floors[box] for box in rules.boxes} for kind in rules.columns},
        },
    )


@pytest.mark.parametrize(
    "options", RULE_SETS, ids=lambda options: "-".join(str(value) for value in options.values())
)
def test_every_rule_set_gets_advice_after_every_throw(options):
    rules = Rules.from_dict(options)
    tables = {kind: _table(rules, kind) for kind in rules.columns}
    strategy = Strategy(
        rules,
        {kind: table for kind, (_, table) in tables.items()},
        {kind: sheet for kind, (sheet, _) in tables.items()},
    )
    state = _game(rules)
    # Sec alone: one throw a turn, its dice scored at once whatever throw is named.
    one_throw = set(rules.columns) <= ONE_THROW_COLUMNS
    assert state.active_player == 0 and turn_throws(state) == (1 if one_throw else 3)
    expected_quality = (
        POLICY if len(rules.columns) > 1 else EXACT_THIS_TURN if rules.vache else EXACT
    )
    assert advice_quality(rules, 2) == expected_quality
    assert advice_quality(rules, 1) == (POLICY if len(rules.columns) > 1 else EXACT)
    for dice in DICE[rules.dice]:
        engine = state.preview(dice)
        boxes = {}
        for throw in (1, 3):
            advice = strategy.advise(state, dice, throw)
            boxes[throw] = max(item.expected_total for item in advice)
            totals = [item.expected_total for item in advice]
            assert totals == sorted(totals, reverse=True) and np.isfinite(totals).all()
            # The engine's boxes and points, la vache's floors included; Sec on the 1st throw.
            assert {(item.column, item.box): item.points for item in advice} == {
                key: cell.points
                for key, cell in engine.items()
                if throw == 1 or one_throw or key[0] not in ONE_THROW_COLUMNS
            }
        for throw in (1, 2):
            keeps = strategy.advise_keeps(state, dice, throw)
            totals = [item.expected_total for item in keeps]
            assert totals == sorted(totals, reverse=True) and np.isfinite(totals).all()
            distinct = {
                tuple(sorted(kept))
                for size in range(rules.dice + 1)
                for kept in combinations(sorted(int(face) for face in dice), size)
            }
            assert {item.keep for item in keeps} == (
                {max(distinct, key=len)} if one_throw else distinct
            )
            # Keeping all the dice is scoring the best box now (Sec after the first throw).
            all_kept = next(item for item in keeps if len(item.keep) == rules.dice)
            assert all_kept.expected_total == pytest.approx(boxes[1 if throw == 1 else 3])
            assert keeps[0].expected_total >= all_kept.expected_total
