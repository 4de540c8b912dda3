"""A turn played by a policy (which keeps, which final rolls), what each box gives for each
roll against the rules engine, and the solitaire strategy's distribution of the points still
to come against the table."""

import random
from collections import Counter
from itertools import combinations, product

import numpy as np
import pytest

from scorekeeper.advisor.futures import (
    LUMPED,
    Futures,
    SheetModel,
    places,
    seats,
    sheet_index,
)
from scorekeeper.advisor.policy import Keeps, TurnPolicy
from scorekeeper.advisor.solver import build_table
from scorekeeper.advisor.spreads import build_spreads
from scorekeeper.advisor.turn import FIVE_DICE, ROLLS
from scorekeeper.advisor.winning import _law
from scorekeeper.rules import Entry, Rules
from tests.advisor.helpers import END_GAME_FILLED, random_two_player_game

KEEPS = Keeps.of(5)
THROWS = {
    size: Counter(tuple(sorted(throw)) for throw in product(range(1, 7), repeat=size))
    for size in range(6)
}


def _after_keep(keep):
    """Each roll that keeping ``keep`` ends on, with its chance, by explicit enumeration."""
    thrown = 5 - len(keep)
    return {
        tuple(sorted(keep + outcome)): count / 6**thrown
        for outcome, count in THROWS[thrown].items()
    }


def sheet_state(rules, points):
    """The (mask, yams50, upper) of a free column holding these points."""
    return tuple(int(part[0]) for part in sheet_index(rules).state(points)[:3])


def place(rules, state):
    return int(places(sheet_index(rules), *(np.array([part]) for part in state))[0])


def turn_value(last_roll):
    return FIVE_DICE.turn_value(last_roll)


def _best_keep(roll, worth):
    """The keep of ``roll`` with the highest expected ``worth`` of the next roll."""
    keeps = {tuple(sorted(kept)) for size in range(6) for kept in combinations(roll, size)}
    return max(
        keeps,
        key=lambda keep: sum(chance * worth[after] for after, chance in _after_keep(keep).items()),
    )


def _reference_final_rolls(last_roll):
    """The final rolls of the best play, by explicit probabilities and every sub-keep."""
    worth3 = dict(zip(ROLLS, last_roll, strict=True))
    keep2 = {roll: _best_keep(roll, worth3) for roll in ROLLS}
    worth2 = {
        roll: sum(chance * worth3[after] for after, chance in _after_keep(keep2[roll]).items())
        for roll in ROLLS
    }
    final = Counter()
    for first, chance1 in _after_keep(()).items():
        for second, chance2 in _after_keep(_best_keep(first, worth2)).items():
            for third, chance3 in _after_keep(keep2[second]).items():
                final[third] += chance1 * chance2 * chance3
    return np.array([final[roll] for roll in ROLLS])


def test_final_rolls_of_the_best_play_match_explicit_enumeration():
    last_roll = np.random.default_rng(4).uniform(0, 50, size=(252, 2))
    policy = TurnPolicy(KEEPS, last_roll)
    final = policy.final_rolls()
    assert final.sum(axis=0) == pytest.approx([1, 1], abs=1e-12)
    assert (final * last_roll).sum(axis=0) == pytest.approx(turn_value(last_roll), abs=1e-9)
    assert policy.start_value == pytest.approx(turn_value(last_roll), abs=1e-9)
    np.testing.assert_allclose(final[:, 0], _reference_final_rolls(last_roll[:, 0]), atol=1e-12)


def test_a_kept_choice_ends_where_its_dice_lead():
    last_roll = np.random.default_rng(5).uniform(0, 50, size=(252, 1))
    policy = TurnPolicy(KEEPS, last_roll)
    mass = np.zeros((462, 1))
    mass[KEEPS.flat_index((6, 6, 2))] = 1
    after = policy.after_keep(mass, 3)[:, 0]
    expected = _after_keep((2, 6, 6))
    np.testing.assert_allclose(after, [expected.get(roll, 0) for roll in ROLLS], atol=1e-15)
    assert (after * last_roll[:, 0]).sum() == pytest.approx(
        policy.before[3][KEEPS.flat_index((6, 6, 2)), 0]
    )


RULE_SETS = [
    Rules(),
    Rules(joker="free", four_kind="base"),
    Rules(yams_bonus=False),
    Rules(vache=True),
    Rules.from_dict({"preset": "yatzy", "vache": True}),
    Rules.from_dict({"preset": "yahtzee", "joker": "free_choice"}),
    Rules.from_dict({"preset": "kniffel", "vache": True}),
]


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda rules: str(rules.to_dict()))
def test_each_box_gives_what_the_rules_engine_writes(rules):
    """Random sheets of two players (floors from the other's sheet under la vache): every
    roll, every box the engine allows, the points the total gains and the state after."""
    chooser = random.Random(11)
    table = np.zeros(sheet_index(rules).size)
    for _ in range(6):
        state = random_two_player_game(rules, chooser, fewest_rounds=2)
        seat = seats(state)[state.active_player]
        model = SheetModel(rules, table, seat.floors)
        outcomes = model.outcomes(*(np.array([part]) for part in seat.state))
        rows = [rules.boxes[index] for index in outcomes.boxes]  # the open boxes
        assert set(rows) == set(rules.boxes) - set(
            state.sheets[state.active_player].columns["free"].cells
        )
        for roll_index, roll in enumerate(ROLLS):
            preview = state.preview(roll)
            allowed = {
                box for index, box in enumerate(rows) if outcomes.allowed[index, roll_index, 0]
            }
            assert allowed == {box for _, box in preview}
            for _, box in preview:
                index = rows.index(box)
                after = state.play(Entry(state.active_player, "free", box, roll))
                sheet = after.sheets[state.active_player]
                assert outcomes.gain[index, roll_index, 0] == (
                    sheet.total - state.sheets[state.active_player].total
                ), (box, roll)
                points = {
                    name: written.points for name, written in sheet.columns["free"].cells.items()
                }
                mask, yams50, upper = sheet_state(rules, points)
                assert (
                    outcomes.masks[index, roll_index, 0],
                    outcomes.yams50[index, roll_index, 0],
                    outcomes.uppers[index, roll_index, 0],
                ) == (mask, yams50, upper)


@pytest.fixture(scope="module")
def end_game_model(end_game_table):
    return SheetModel(Rules(), end_game_table, [0] * 13)


@pytest.mark.parametrize(
    "points",
    [
        {"fours": 16, "fives": 20, "sixes": 18},
        {"threes": 12, "four_kind": 22},
        {"yams": 0},
        {},
    ],
)
def test_distribution_of_the_rest_has_the_table_s_mean(end_game_model, end_game_table, points):
    written = {box: 0 for box in END_GAME_FILLED} | points
    state = sheet_state(Rules(), written)
    distribution = Futures(end_game_model, [state]).distribution(state)
    assert distribution.sum() == pytest.approx(1, abs=1e-9)
    assert (distribution >= 0).all()
    mean = (distribution * np.arange(len(distribution))).sum()
    # Exact but for the lumped tail (see below): a Yams and three +100 still to come, or
    # more, count as 450 points.
    assert mean == pytest.approx(end_game_table[place(Rules(), state)], abs=0.01)
    assert mean <= end_game_table[place(Rules(), state)] + 1e-9


def test_a_long_tail_of_yams_is_lumped_at_its_start(end_game_model, end_game_table):
    """Yams at 50 and Carré, Grande suite and the upper boxes open: three more +100 and
    more (beyond 450 points still to come) count as 450; the mean loses under 0.01."""
    written = {box: 0 for box in END_GAME_FILLED} | {"sixes": 24, "yams": 50}
    state = sheet_state(Rules(), written)
    distribution = Futures(end_game_model, [state]).distribution(state)
    assert len(distribution) == LUMPED
    assert distribution.sum() == pytest.approx(1, abs=1e-9)
    assert 0 < distribution[-1] < 1e-3
    mean = (distribution * np.arange(len(distribution))).sum()
    assert (
        end_game_table[place(Rules(), state)] - 0.01 < mean < end_game_table[place(Rules(), state)]
    )


def test_the_last_box_s_distribution_is_its_turn(end_game_model, end_game_table):
    """One box left (Yams): the chance of writing 50 is the chance of a Yams in three
    throws when every die not part of the largest set is thrown again: 4.603 %."""
    written = {box: 0 for box in Rules().boxes if box != "yams"}
    state = sheet_state(Rules(), written)
    distribution = Futures(
        SheetModel(Rules(), build_table(Rules(), filled=written), [0] * 13), [state]
    ).distribution(state)
    assert distribution[50] == pytest.approx(0.0460286, abs=1e-6)
    assert distribution[0] == pytest.approx(1 - 0.0460286, abs=1e-6)


@pytest.mark.parametrize("points", [{"yams": 0}, {"yams": 0, "fours": 16, "sixes": 24}])
def test_spreads_are_the_distribution_s_moments(end_game_model, end_game_table, points):
    """The spreads' central moments, solved backward over every state, against the moments
    of the whole distribution (no Yams to come: nothing lumped)."""
    spreads = build_spreads(Rules(), end_game_table, filled=END_GAME_FILLED)
    written = {box: 0 for box in END_GAME_FILLED} | points
    state = sheet_state(Rules(), written)
    distribution = Futures(end_game_model, [state]).distribution(state)
    points_to_come = np.arange(len(distribution))
    mean = distribution @ points_to_come
    for row, moment in enumerate((2, 3, 4)):
        assert spreads[row, place(Rules(), state)] == pytest.approx(
            distribution @ (points_to_come - mean) ** moment, rel=1e-9
        ), moment


@pytest.mark.parametrize(
    ("mean", "variance", "skew", "kurtosis"),
    [
        (160.0, 45.0**2, 0.0, 3.0),  # no skew: one normal law
        (150.0, 55.0**2, 1.8, 9.0),  # far from the end, the Yams box open
        (200.0, 60.0**2, 1.1, 5.5),
    ],
)
def test_the_law_of_four_moments_has_them(mean, variance, skew, kurtosis):
    deviation = variance**0.5
    third, fourth = skew * deviation**3, kurtosis * variance**2
    law = _law(mean, variance, third, fourth)
    points = np.arange(len(law))
    assert law.sum() == pytest.approx(1)
    assert law @ points == pytest.approx(mean, rel=2e-3)
    assert law @ (points - mean) ** 2 == pytest.approx(variance, rel=2e-2)
    assert law @ (points - mean) ** 3 == pytest.approx(third, abs=0.05 * deviation**3)
    assert law @ (points - mean) ** 4 == pytest.approx(fourth, rel=0.05)
