"""The solver against an independent brute force on the end of a game, for every column kind
and option; its joker placement against the rules engine's; its box by box arithmetic against
the rules engine's scores; and the properties every table must have."""

import random
from dataclasses import replace

import numpy as np
import pytest

from scorekeeper.advisor.solver import (
    PM_WIDTH,
    SheetIndex,
    States,
    allowed_boxes,
    box_values,
    build_table,
    joker_choices,
    roll_values,
)
from scorekeeper.rules import Entry, Rules
from tests.advisor.brute_force import BruteForce
from tests.advisor.helpers import END_GAME_FILLED, columns_game, game, solo_state

# (rules, boxes left to play, points already written in some of the others; the rest hold 0).
SUB_GAMES = [
    pytest.param(
        {},
        ["fives", "sixes"],
        {"ones": 4, "twos": 8, "threes": 9, "fours": 12},
        id="upper-bonus-within-reach",
    ),
    # Once the bonus is out of reach the upper total no longer matters and the states share
    # one value: 8 + 25 + 30 reaches 63 exactly, 7 never does.
    pytest.param({}, ["fives", "sixes"], {"ones": 2, "twos": 6}, id="upper-bonus-just-in-reach"),
    pytest.param({}, ["fives", "sixes"], {"ones": 3, "twos": 4}, id="upper-bonus-out-of-reach"),
    pytest.param(
        {},
        ["ones", "twos"],
        {"threes": 15, "fours": 20, "fives": 25, "sixes": 5},
        id="upper-bonus-won",
    ),
    pytest.param(
        {}, ["fours", "full_house", "large_straight"], {"yams": 50}, id="official-joker-and-100"
    ),
    pytest.param({}, ["twos", "sixes"], {"yams": 50}, id="official-joker-upper-at-zero"),
    pytest.param(
        {"joker": "free"}, ["fours", "full_house", "small_straight"], {"yams": 50}, id="free-joker"
    ),
    pytest.param({}, ["yams", "three_kind"], {}, id="yams-box-open"),
    pytest.param({"yams_bonus": False}, ["sixes", "large_straight"], {"yams": 50}, id="no-100"),
    pytest.param(
        {"three_kind": "base", "four_kind": "fixed40", "full_house": "base"},
        ["three_kind", "four_kind", "full_house"],
        {},
        id="scoring-options",
    ),
    pytest.param(
        {"three_kind": "matching", "four_kind": "matching"},
        ["three_kind", "four_kind", "chance"],
        {},
        id="matching-dice-only",
    ),
    pytest.param(
        {"four_kind": "base"}, ["four_kind", "chance"], {"sixes": 30}, id="joker-yams-box-at-zero"
    ),
    pytest.param(
        {"preset": "yatzy"},
        ["fives", "sixes", "yams"],
        {"ones": 3, "fours": 16},
        id="yatzy-bonus-within-reach",
    ),
    pytest.param(
        {"preset": "yatzy"},
        ["pair", "two_pairs", "full_house"],
        {"yams": 50},
        id="yatzy-no-joker-after-yatzy",
    ),
    # Plus et Moins: the value written in one while the other is free is part of the state.
    pytest.param(
        {"plus_minus": True}, ["plus", "minus"], {"fives": 20}, id="plus-and-moins-both-free"
    ),
    pytest.param(
        {"plus_minus": True},
        ["minus", "fives"],
        {"plus": 22},
        id="plus-written-moins-must-stay-below",
    ),
    pytest.param(
        {"plus_minus": True}, ["plus", "yams"], {"minus": 17}, id="moins-written-plus-must-pass-it"
    ),
    pytest.param(
        {"plus_minus": True},
        ["minus", "four_kind"],
        {"plus": 5},
        id="plus-of-five-bars-every-moins",
    ),
    pytest.param(
        {"plus_minus": True}, ["plus", "large_straight"], {"minus": 0}, id="moins-barred-at-zero"
    ),
    pytest.param(
        {"plus_minus": True}, ["plus", "minus"], {"yams": 50}, id="plus-and-moins-joker-and-100"
    ),
    # Yams 6: six dice, each box scores its best five, five alike are a Yams.
    pytest.param(
        {"dice": 6},
        ["fives", "yams"],
        {"ones": 3, "twos": 8, "threes": 12, "fours": 16, "sixes": 6},
        id="six-dice-bonus-and-yams",
    ),
    pytest.param(
        {"dice": 6}, ["fours", "full_house"], {"yams": 50}, id="six-dice-official-joker-and-100"
    ),
    pytest.param(
        {"dice": 6, "joker": "free", "four_kind": "matching"},
        ["sixes", "four_kind"],
        {"yams": 50},
        id="six-dice-free-joker",
    ),
    pytest.param(
        {"dice": 6, "plus_minus": True}, ["plus", "minus"], {}, id="six-dice-plus-and-moins"
    ),
    # Ordered columns: the next box is the only choice; their order makes the state.
    pytest.param(
        {"columns": ["down"]},
        ["large_straight", "yams", "chance"],
        {"ones": 3, "sixes": 24},
        id="down-end",
    ),
    pytest.param(
        {"columns": ["up"]},
        ["ones", "twos", "threes"],
        {"fours": 16, "fives": 20, "sixes": 18, "yams": 50},
        id="up-bonus-joker-100",
    ),
    pytest.param(
        {"columns": ["down"], "plus_minus": True},
        ["plus", "minus"],
        {"sixes": 24},
        id="down-moins-after-plus",
    ),
    pytest.param(
        {"preset": "yatzy", "columns": ["down"]},
        ["full_house", "chance", "yams"],
        {},
        id="yatzy-down-end",
    ),
    # Sec: one throw a turn.
    pytest.param(
        {"columns": ["sec"]},
        ["fives", "sixes", "yams"],
        {"ones": 3, "twos": 6, "threes": 9, "fours": 16},
        id="sec-bonus-and-yams",
    ),
    pytest.param(
        {"columns": ["sec"]},
        ["fours", "full_house", "large_straight"],
        {"yams": 50},
        id="sec-joker-and-100",
    ),
    pytest.param({"columns": ["sec"], "dice": 6}, ["sixes", "yams"], {}, id="sec-six-dice"),
    # Generala (docs/rules.md §14): the first throw's servida, the Doble Generala after a
    # Generala of 50 or not, no upper bonus. The solitaire table values a Generala servida
    # as 50 and the game going on: the brute force plays it so with servida_wins off.
    pytest.param(
        {"preset": "generala", "servida_wins": False},
        ["straight", "full_house", "four_kind"],
        {},
        id="generala-servida",
    ),
    pytest.param(
        {"preset": "generala", "servida_wins": False},
        ["generala", "double_generala", "sixes"],
        {"fives": 25},
        id="generala-then-doble",
    ),
    pytest.param(
        {"preset": "generala", "servida_wins": False},
        ["double_generala", "four_kind", "ones"],
        {"generala": 50},
        id="generala-doble-open",
    ),
    pytest.param(
        {"preset": "generala", "servida_wins": False, "ace_high_straight": True},
        ["double_generala", "straight", "twos"],
        {},
        id="generala-doble-barred-ace-high",
    ),
    pytest.param(
        {"preset": "generala", "servida": False, "servida_wins": False},
        ["straight", "full_house", "fours"],
        {},
        id="generala-without-servida",
    ),
    # Yahtzee with Verhoeff's joker: anywhere, full value once the face's box is filled.
    pytest.param(
        {"preset": "yahtzee", "joker": "free_choice"},
        ["fours", "full_house", "large_straight"],
        {"yams": 50},
        id="yahtzee-verhoeffs-joker-and-100",
    ),
    pytest.param(
        {"preset": "yahtzee", "joker": "free_choice", "columns": ["up"]},
        ["ones", "twos", "threes"],
        {"fours": 16, "yams": 0},
        id="yahtzee-verhoeffs-joker-up",
    ),
    # Kniffel: +50 for a Kniffel in its number's box, the Kniffel box holding 0 or 50.
    pytest.param(
        {"preset": "kniffel"},
        ["fours", "sixes", "large_straight"],
        {"yams": 0, "ones": 3, "twos": 6, "threes": 9, "fives": 15},
        id="kniffel-50-and-bonus",
    ),
    pytest.param(
        {"preset": "kniffel", "columns": ["sec"]},
        ["fives", "full_house", "chance"],
        {"yams": 50},
        id="kniffel-sec",
    ),
    pytest.param(
        {"preset": "kniffel", "columns": ["down"]},
        ["small_straight", "large_straight", "yams", "chance"],
        {"sixes": 18},
        id="kniffel-down",
    ),
]


def _sub_game(options, free, points):
    rules = Rules.from_dict(options)
    written = {box: 0 for box in rules.boxes if box not in free} | points
    return rules, written


@pytest.mark.parametrize(("options", "free", "points"), SUB_GAMES)
def test_sub_game_matches_brute_force(options, free, points):
    rules, written = _sub_game(options, free, points)
    kind = rules.columns[0]
    sheet = SheetIndex(rules, kind)
    table = build_table(rules, kind, filled=written)
    expected = BruteForce().rest(solo_state(rules, written))
    assert sheet.value(table, sheet.state(written))[0] == pytest.approx(expected, abs=1e-9)


def test_placement_matches_the_rules_engine_on_every_sheet():
    every_joker = [
        Rules(joker="official"),
        Rules(joker="free"),
        Rules(joker="free_choice"),
        Rules.from_dict({"preset": "kniffel"}),
    ]
    boxes = Rules().boxes
    yatzy = Rules.from_dict({"preset": "yatzy"})
    for filled in ([], ["yams"], ["yams", "sixes", "pair"]):
        state = solo_state(yatzy, dict.fromkeys(filled, 0))
        for dice in [(6,) * 5, (1, 2, 3, 4, 6)]:
            engine = state.placement(0, "free", dice).boxes
            assert allowed_boxes(yatzy, filled, dice) == engine, (filled, dice)
    for mask in range((1 << len(boxes)) - 1):
        filled = [box for index, box in enumerate(boxes) if mask >> index & 1]
        # Only a Yams once the Yams box is filled depends on its face.
        faces = range(1, 7) if "yams" in filled else [4]
        for rules in every_joker:
            state = solo_state(rules, dict.fromkeys(filled, 0))
            for dice in [(face,) * 5 for face in faces] + [(1, 2, 3, 4, 6)]:
                engine = state.placement(0, "free", dice).boxes
                assert allowed_boxes(rules, filled, dice) == engine, (rules.joker, filled, dice)


@pytest.mark.parametrize(
    "options",
    [
        {"columns": ["down"]},
        {"columns": ["up"]},
        {"dice": 6},
        {"dice": 6, "joker": "free"},
        {"columns": ["up"], "dice": 6},
        {"joker": "free_choice"},
        {"preset": "yahtzee", "joker": "free_choice", "columns": ["down"]},
        {"preset": "kniffel", "columns": ["up"]},
    ],
)
def test_joker_matches_the_rules_engine_in_every_column_kind(options):
    # Every sheet of an ordered column, and sheets with the Yams box filled otherwise: where
    # each Yams roll may go and what it scores there.
    rules = Rules.from_dict(options)
    kind = rules.columns[0]
    sheet = SheetIndex(rules, kind)
    chooser = random.Random(3)
    masks = [mask for mask in range(sheet.full) if sheet.in_play[mask] and mask & sheet.yams_bit]
    for mask in masks if kind != "free" else chooser.sample(masks, 150):
        filled = [box for box in rules.boxes if mask & sheet.bit[box]]
        state = game(rules, {"Solo": dict.fromkeys(filled, 0)})
        open_boxes = tuple(box for box in rules.boxes if sheet.open_bits[mask] & sheet.bit[box])
        for roll in sheet.yams_rolls:
            dice = sheet.throws.rolls[roll]
            engine = {box: cell.points for (_, box), cell in state.preview(dice).items()}
            assert joker_choices(rules, kind, open_boxes, dice) == engine, (filled, dice)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"joker": "free"},
        {"dice": 6},
        {"columns": ["up"]},
        {"columns": ["down"], "dice": 6},
        {"plus_minus": True, "dice": 6, "joker": "free"},
        {"joker": "free_choice"},
        {"preset": "yahtzee", "joker": "free_choice", "columns": ["up"]},
        {"preset": "kniffel"},
    ],
)
def test_the_joker_of_many_masks_at_once_is_the_rule_asked_mask_by_mask(options):
    rules = Rules.from_dict(options)
    sheet = SheetIndex(rules, rules.columns[0])
    # The masks the column's order lets happen: the joker may look at which boxes are filled.
    in_play = np.nonzero(sheet.in_play)[0]
    masks = np.random.default_rng(6).choice(in_play, min(400, len(in_play)), replace=False)
    one_by_one = sheet.joker_points(masks, lambda *question: joker_choices(*question))
    np.testing.assert_array_equal(sheet.joker_points(masks), one_by_one)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"plus_minus": True},
        {"dice": 6},
        {"columns": ["up"], "plus_minus": True},
        {"preset": "yatzy", "columns": ["down"]},
        {"joker": "free", "yams_bonus": False},
        {"preset": "yahtzee", "joker": "free_choice"},
        {"preset": "kniffel"},
        {"preset": "kniffel", "columns": ["up"]},
        {"preset": "generala"},
    ],
)
def test_box_by_box_values_are_the_rules_engines_and_the_best_is_the_rolls(options):
    # Random sheets, with la vache's floors set by a second player: each box's points are what
    # the rules engine writes, its value those points plus the table's rest after the
    # engine's column; the best box of each roll is what the solver's roll arithmetic gives.
    rules = Rules.from_dict(options)
    kind = rules.columns[0]
    sheet = SheetIndex(rules, kind)
    values = _monotone_values(sheet, np.random.default_rng(5))
    chooser = random.Random(4)
    for _ in range(12):
        state = _random_sheet(replace(rules, vache=True), kind, chooser)
        column = state.sheets[0].columns[kind]
        states = sheet.state({box: cell.points for box, cell in column.cells.items()})
        floors = np.array([[state.vache_floor(0, kind, box) or 0] for box in rules.boxes])
        every_roll = np.arange(len(sheet.throws.rolls))
        repeated = States(*(np.repeat(part, len(every_roll)) for part in states))
        value, written = box_values(
            sheet, values, repeated, every_roll, np.repeat(floors, len(every_roll), axis=1)
        )
        best = roll_values(sheet, values, states, floors)[:, 0]
        np.testing.assert_allclose(value.max(axis=0), best, atol=1e-9)
        for roll in chooser.sample(list(every_roll), 25):
            dice = sheet.throws.rolls[roll]
            engine = {box: cell for (_, box), cell in state.preview(dice, 0).items()}
            allowed = {box for box in rules.boxes if np.isfinite(value[sheet.position[box], roll])}
            assert allowed == set(engine), dice
            for box, cell in engine.items():
                after = column.with_score(cell)
                rest = sheet.value(
                    values, sheet.state({name: score.points for name, score in after.cells.items()})
                )[0]
                assert written[sheet.position[box], roll] == cell.points, (box, dice)
                assert value[sheet.position[box], roll] == pytest.approx(
                    after.total - column.total + rest, abs=1e-9
                ), (box, dice)


def _monotone_values(sheet, rng):
    """A table as a real one behaves: random, but never worth less for points written (a
    higher upper total, a 50 in the Yams box, a higher Plus or a lower Moins)."""
    solved = sheet.solved_states()
    by_mask = rng.uniform(0, 100, sheet.full + 1)
    plus_written = solved.mask & sheet.bit.get("plus", 0) != 0
    values = np.empty(sheet.size)
    values[sheet.place(solved)] = (
        by_mask[solved.mask]
        + 0.5 * solved.upper
        + 3 * solved.yams50
        + np.where(plus_written, 0.3, -0.3) * solved.pm
    )
    return values


def _random_sheet(rules, kind, chooser):
    """A game of two: the first player's column part played with random dice and boxes, the
    second's holding random points (la vache's floors)."""
    solo = solo_state(rules, {})
    for _ in range(chooser.randrange(len(rules.boxes))):
        dice = tuple(chooser.randint(1, 6) for _ in range(rules.dice))
        box = chooser.choice([box for _, box in solo.preview(dice)])
        solo = solo.play(Entry(0, kind, box, dice))
    points = {box: cell.points for box, cell in solo.sheets[0].columns[kind].cells.items()}
    other = {box: chooser.choice([5, 8, 15, 24]) for box in chooser.sample(rules.boxes, 6)}
    return columns_game(rules, {"Solo": {kind: points}, "Other": {kind: other}})


def test_reachable_states_are_glenns_count():
    sheet = SheetIndex(Rules())
    reachable = (sheet.slots >= 0).sum()
    assert reachable == 536_448  # Glenn 2006
    # A third of them share their value: the upper bonus won or out of reach.
    assert sheet.size == 355_392


def test_plus_et_moins_keeps_a_value_only_while_one_is_free():
    sheet = SheetIndex(Rules(plus_minus=True))
    masks = np.arange(sheet.full + 1)
    pending = sheet.pending(masks)
    assert pending.sum() == (sheet.full + 1) // 2
    plus, minus = sheet.bit["plus"], sheet.bit["minus"]
    assert pending[plus] and pending[minus] and not pending[plus | minus] and not pending[0]
    # Every solved state of a mask with one of them written holds the 27 values it may have.
    solved = sheet.solved_states()
    counts = np.bincount(solved.pm[solved.mask == plus])
    assert len(counts) == PM_WIDTH and (counts == counts[0]).all()


def test_filling_a_box_with_zero_never_raises_the_value(end_game_table):
    rules, table = Rules(), end_game_table
    sheet = SheetIndex(rules)
    solved = sheet.solved_states()
    known = ~np.isnan(sheet.value(table, solved))
    for index, box in enumerate(rules.boxes):
        free = known & (solved.mask & 1 << index == 0)
        before = solved.take(free)
        # A 0 in the Yams box leaves it without its 50.
        after = States(before.mask | 1 << index, before.yams50, before.upper, before.pm)
        assert (sheet.value(table, after) <= sheet.value(table, before) + 1e-9).all(), box
        if box not in END_GAME_FILLED:
            assert free.sum() > 100


def test_only_the_sub_game_is_solved(end_game_table):
    rules, table = Rules(), end_game_table
    sheet = SheetIndex(rules)
    solved = sheet.solved_states()
    known = ~np.isnan(sheet.value(table, solved))
    base = sheet.mask(END_GAME_FILLED)
    assert (solved.mask[known] & base == base).all()
    assert np.isnan(sheet.value(table, sheet.state({}))[0])
    assert sheet.value(table, sheet.state(dict.fromkeys(rules.boxes, 0)))[0] == 0


def test_progress_counts_every_solved_state():
    news = []
    table = build_table(Rules(), filled=END_GAME_FILLED, progress=lambda *done: news.append(done))
    solved = int((~np.isnan(table)).sum()) - 2  # the full sheet's two states are not solved
    assert news[-1] == (solved, solved)
    assert [done for done, _ in news] == sorted(done for done, _ in news)
