"""Advice from the strategy tables: what it proposes, for whom, and the cache files behind it."""

import random

import numpy as np
import pytest

from scorekeeper.advisor import strategy as strategy_module
from scorekeeper.advisor.solver import SheetIndex
from scorekeeper.advisor.strategy import Advice, Strategy, load, load_or_build
from scorekeeper.advisor.tables import cache_path
from scorekeeper.rules import Entry, RuleError, Rules
from tests.advisor.brute_force import ROLLS, BruteForce
from tests.advisor.helpers import END_GAME_FILLED, FAKE_START_VALUE, game, solo_state


def _end_game_sheet(**points):
    return {box: 0 for box in END_GAME_FILLED} | points


@pytest.fixture
def strategy(end_game_table):
    return Strategy(Rules(), {"free": end_game_table})


@pytest.fixture(scope="module")
def late_game():
    """A sheet three boxes from its end, with a Yams at 50: its table and its brute force."""
    rules = Rules()
    points = {box: 0 for box in rules.boxes if box not in ("fours", "sixes", "large_straight")}
    points |= {"yams": 50, "fives": 20, "threes": 9}
    strategy = Strategy(rules, {"free": strategy_module.build_table(rules, filled=points)})
    return solo_state(rules, points), strategy, BruteForce()


@pytest.mark.parametrize(
    "dice", [(4, 4, 4, 4, 4), (6, 6, 6, 6, 6), (2, 3, 4, 5, 6), (5, 5, 6, 6, 6), (1, 1, 1, 1, 3)]
)
def test_advice_is_the_brute_force_value_of_each_box(late_game, dice):
    state, strategy, brute_force = late_game
    expected = {
        box: state.sheets[0].total + value for box, value in brute_force.choices(state, dice)
    }
    advice = strategy.advise(state, dice)
    assert {item.box: item.expected_total for item in advice} == pytest.approx(expected)
    values = [item.expected_total for item in advice]
    assert values == sorted(values, reverse=True)


def test_advice_for_the_active_player_of_several(strategy):
    mag = _end_game_sheet(sixes=24, yams=50)
    alix = _end_game_sheet(threes=9)
    state = game(Rules(), {"Mag": mag, "Alix": alix, "Zoé": _end_game_sheet(threes=9)})
    assert state.active_player == 1
    solo = solo_state(Rules(), alix)
    dice = (3, 3, 3, 5, 6)
    assert strategy.advise(state, dice) == strategy.advise(solo, dice)
    assert all(item.column == "free" for item in strategy.advise(state, dice))


def test_expected_total_counts_the_bonuses_already_earned(strategy):
    sheet = _end_game_sheet(sixes=30, fives=25, fours=20, yams=50)
    state = solo_state(Rules(), sheet)
    assert state.sheets[0].total == 30 + 25 + 20 + 35 + 50
    advice = {item.box: item.expected_total for item in strategy.advise(state, "3 3 3 3 1")}
    assert set(advice) == {"threes", "four_kind", "large_straight"}
    after = state.play(Entry(0, "free", "four_kind", (3, 3, 3, 3, 1))).sheets[0].columns["free"]
    assert advice["four_kind"] == 160 + 13 + strategy.expected_rest(after)


def test_random_end_games_never_advise_a_filled_box(strategy):
    chooser = random.Random(8)
    for _ in range(40):
        state = solo_state(Rules(), _end_game_sheet())
        while not state.is_over:
            dice = chooser.choice(ROLLS)
            advice = strategy.advise(state, dice)
            filled = state.sheets[0].columns["free"].cells
            assert all(isinstance(item, Advice) for item in advice)
            assert not any(item.box in filled for item in advice)
            assert {item.box for item in advice} == {box for _, box in state.preview(dice)}
            values = [item.expected_total for item in advice]
            assert values == sorted(values, reverse=True)
            assert np.isfinite(values).all()
            chosen = chooser.choice(advice).box
            state = state.play(Entry(0, "free", chosen, dice))
        # The last box's advice is the final total itself: nothing is left to expect.
        assert values[[item.box for item in advice].index(chosen)] == state.sheets[0].total


def test_advice_refuses_what_it_cannot_advise(strategy):
    rules = Rules()
    over = solo_state(rules, dict.fromkeys(rules.boxes, 0))
    with pytest.raises(RuleError, match="La partie est terminée"):
        strategy.advise(over, (1, 2, 3, 4, 5))
    state = solo_state(rules, _end_game_sheet())
    with pytest.raises(RuleError, match="Pas assez de dés : il en faut 5, pas 4"):
        strategy.advise(state, "1234")
    for other in (
        Rules(joker="free"),
        Rules(plus_minus=True),
        Rules(dice=6),
        Rules(columns=("down", "free")),
    ):
        with pytest.raises(RuleError, match="d'autres règles"):
            strategy.advise(solo_state(other, {}), "1" * other.dice)
    # La vache is played on the same tables: its floors count at request time.
    assert strategy.advise(solo_state(Rules(vache=True), _end_game_sheet()), "12345")


def test_build_once_then_load_from_the_instance_folder(tmp_path, fake_build):
    rules = Rules()
    assert load(rules, tmp_path) is None
    seen = []
    built = load_or_build(rules, tmp_path / "instance", progress=lambda *news: seen.append(news))
    assert built.start_value == FAKE_START_VALUE
    # Counted over every table the rules need, in states solved.
    total = SheetIndex(rules).to_solve
    assert seen == [(1, total), (2, total)]
    assert cache_path(rules, tmp_path / "instance").exists()
    assert list((tmp_path / "instance").iterdir()) == [cache_path(rules, tmp_path / "instance")]
    loaded = load_or_build(rules, tmp_path / "instance")
    assert len(fake_build) == 1
    assert loaded.start_value == FAKE_START_VALUE
    np.testing.assert_array_equal(loaded.tables["free"], built.tables["free"])


def test_a_damaged_cache_file_is_rebuilt(tmp_path, fake_build):
    rules = Rules()
    cache_path(rules, tmp_path).write_bytes(b"not a table")
    assert load(rules, tmp_path) is None
    assert load_or_build(rules, tmp_path).start_value == FAKE_START_VALUE
    assert len(fake_build) == 1
    np.save(cache_path(rules, tmp_path), np.zeros((3, 3)))
    assert load(rules, tmp_path) is None
    cache_path(rules, tmp_path).write_bytes(b"")
    assert load(rules, tmp_path) is None


def test_each_table_has_its_own_file(tmp_path):
    # The classique without the +100 and Yatzy (no +100 either) differ only by their sheet.
    paths = {
        cache_path(Rules.from_dict(options), tmp_path)
        for options in [
            {},
            {"joker": "free"},
            {"yams_bonus": False},
            {"four_kind": "fixed40"},
            {"four_kind": "base", "three_kind": "base", "full_house": "base"},
            {"preset": "yatzy"},
        ]
    }
    assert len(paths) == 6
    assert all(path.parent == tmp_path and path.suffix == ".npy" for path in paths)
    # Options the table does not depend on do not change its file.
    assert cache_path(Rules(), tmp_path) == cache_path(
        Rules.from_dict({"columns": ["free"]}), tmp_path
    )
    # Each column kind has its table, shared by every game that plays it.
    triple = Rules.from_dict({"preset": "triple", "vache": True})
    kinds = {cache_path(triple, tmp_path, kind) for kind in ("down", "up", "free", "sec")}
    assert len(kinds) == 4 and cache_path(Rules(), tmp_path) in kinds
    assert cache_path(triple, tmp_path) == cache_path(Rules(columns=("down",)), tmp_path)
    # Six dice and Plus et Moins change the table.
    assert (
        len(
            {
                cache_path(Rules(dice=6), tmp_path),
                cache_path(Rules(plus_minus=True), tmp_path),
                cache_path(Rules(), tmp_path),
            }
        )
        == 3
    )
