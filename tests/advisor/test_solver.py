"""The solver against an independent brute force on the end of a game, its joker placement
against the rules engine's, and the properties every table must have."""

import numpy as np
import pytest

from scorekeeper.advisor.solver import SheetIndex, allowed_boxes, build_table, sheet_state
from scorekeeper.rules import Rules
from tests.advisor.brute_force import BruteForce
from tests.advisor.helpers import END_GAME_FILLED, solo_state

# (rules, boxes left to play, points already written in some of the others; the rest hold 0).
SUB_GAMES = [
    pytest.param(
        {},
        ["fives", "sixes"],
        {"ones": 4, "twos": 8, "threes": 9, "fours": 12},
        id="upper-bonus-within-reach",
    ),
    # Once the bonus is out of reach the upper total no longer matters and the solver copies
    # one state's value to the others: 8 + 25 + 30 reaches 63 exactly, 7 never does.
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
]


def _sub_game(options, free, points):
    rules = Rules.from_dict(options)
    written = {box: 0 for box in rules.boxes if box not in free} | points
    return rules, written


@pytest.mark.parametrize(("options", "free", "points"), SUB_GAMES)
def test_sub_game_matches_brute_force(options, free, points):
    rules, written = _sub_game(options, free, points)
    table = build_table(rules, filled=written)
    expected = BruteForce().rest(solo_state(rules, written))
    assert table[sheet_state(rules, written)] == pytest.approx(expected, abs=1e-9)


def test_placement_matches_the_rules_engine_on_every_sheet():
    every_joker = [Rules(joker="official"), Rules(joker="free")]
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


def test_reachable_states_are_glenns_count():
    masks, _, _ = SheetIndex(Rules()).states(range(8192))
    assert len(masks) == 536_448  # Glenn 2006


def test_filling_a_box_with_zero_never_raises_the_value(end_game_table):
    rules, table = Rules(), end_game_table
    masks = np.arange(8192)
    for index, box in enumerate(rules.boxes):
        open_masks = masks[(masks >> index & 1) == 0]
        before = table[open_masks]
        after = table[open_masks | 1 << index]
        if box == "yams":
            after = after[:, [0, 0], :]  # a 0 in the Yams box leaves it without its 50
        solved = ~np.isnan(before)
        assert (after[solved] <= before[solved] + 1e-9).all(), box
        if box not in END_GAME_FILLED:
            assert solved.sum() > 100


def test_only_the_sub_game_is_solved(end_game_table):
    rules, table = Rules(), end_game_table
    solved = ~np.isnan(table)
    masks = np.nonzero(solved.any(axis=(1, 2)))[0]
    base = sum(1 << rules.boxes.index(box) for box in END_GAME_FILLED)
    assert all(mask & base == base for mask in masks)
    assert np.isnan(table[0, 0, 0])
    assert (table[8191] == 0).all()


def test_progress_counts_every_solved_state():
    news = []
    table = build_table(Rules(), filled=END_GAME_FILLED, progress=lambda *done: news.append(done))
    solved = int((~np.isnan(table[:8191])).sum())
    assert news[-1] == (solved, solved)
    assert [done for done, _ in news] == sorted(done for done, _ in news)
