"""Generala's Conseil (docs/rules.md §14): its exact table, whose first throw may score a
servida, against the independent brute force on the end of a game; the keeps and boxes of
each throw; the table's own value against the best keep of every first roll."""

from itertools import combinations

import pytest

from scorekeeper.advisor.review import review_game
from scorekeeper.advisor.solver import SheetIndex, build_table
from scorekeeper.advisor.strategy import Strategy
from scorekeeper.advisor.tables import cache_path, table_options
from scorekeeper.advisor.turn import FIVE_DICE, ROLLS
from scorekeeper.rules import Entry, GameState, Rules
from tests.advisor.brute_force import BruteForce
from tests.advisor.helpers import solo_state

# The solitaire table values a Generala servida as its 50 and the game going on: the brute
# force plays that game, servida_wins off (the tables of both are one).
NO_INSTANT_WIN = {"preset": "generala", "servida_wins": False}
SUB_GAMES = [
    pytest.param(
        NO_INSTANT_WIN,
        ["straight", "full_house", "four_kind"],
        {"generala": 50},
        id="servida-boxes",
    ),
    pytest.param(
        NO_INSTANT_WIN, ["generala", "double_generala", "sixes"], {}, id="generala-then-doble"
    ),
    pytest.param(
        {**NO_INSTANT_WIN, "ace_high_straight": True},
        ["straight", "twos", "double_generala"],
        {"generala": 50},
        id="ace-high-and-doble",
    ),
]
DICE = ["22333", "66666", "34561", "12345", "44441"]


def _strategy(rules: Rules, written: dict[str, int] | None = None) -> Strategy:
    sheet = SheetIndex(rules)
    return Strategy(rules, {"free": build_table(rules, filled=written or {}, sheet=sheet)})


@pytest.mark.parametrize(("options", "free", "points"), SUB_GAMES)
def test_every_keep_and_box_of_every_throw_matches_brute_force(options, free, points):
    rules = Rules.from_dict(options)
    written = {box: 0 for box in rules.boxes if box not in free} | points
    state = solo_state(rules, written)
    strategy = _strategy(rules, written)
    reference = BruteForce()
    total = state.sheets[0].total
    assert strategy.expected_rest(state.sheets[0].columns["free"]) == pytest.approx(
        reference.rest(state), abs=1e-9
    )
    last = {roll: max(gain for _, gain in reference.choices(state, roll)) for roll in ROLLS}
    served = {roll: max(gain for _, gain in reference.choices(state, roll, 1)) for roll in ROLLS}
    second = reference.best_keeps(last)
    for dice in DICE:
        roll = tuple(sorted(int(face) for face in dice))
        # The boxes: scored as a servida on the first throw, as any roll on the third.
        for throw, gains in (
            (1, reference.choices(state, roll, 1)),
            (3, reference.choices(state, roll)),
        ):
            advice = strategy.advise(state, dice, throw)
            assert {item.box: item.expected_total for item in advice} == pytest.approx(
                {box: total + gain for box, gain in gains}, abs=1e-9
            )
        # The keeps: keeping all on the first throw is the better of the servida now and
        # the roll kept for later.
        for throw, after, now in (
            (1, second, max(served[roll], last[roll])),
            (2, last, last[roll]),
        ):
            advice = strategy.advise_keeps(state, dice, throw)
            expected = {
                keep: total + (now if keep == roll else reference.keep_value(keep, after))
                for keep in {
                    tuple(sorted(kept))
                    for size in range(len(roll) + 1)
                    for kept in combinations(roll, size)
                }
            }
            assert {item.keep: item.expected_total for item in advice} == pytest.approx(
                expected, abs=1e-9
            )


def test_the_best_keep_of_every_first_roll_averages_to_the_start_value():
    rules = Rules.from_dict({"preset": "generala"})
    strategy = _strategy(rules)
    start = GameState.start(rules, ["Solo"])
    average = sum(
        chance * strategy.advise_keeps(start, roll, 1)[0].expected_total
        for roll, chance in zip(FIVE_DICE.rolls, FIVE_DICE.roll_chances, strict=True)
    )
    assert average == pytest.approx(strategy.start_value, abs=1e-9)
    # Sanity: more than without the servida's points, less than with the ace-high straight
    # too; far below the 360 of every combination servida.
    plain = _strategy(Rules.from_dict({"preset": "generala", "servida": False})).start_value
    ace = _strategy(Rules.from_dict({"preset": "generala", "ace_high_straight": True}))
    assert plain < strategy.start_value < ace.start_value < 200


def test_the_first_throw_advises_the_servida_points():
    rules = Rules.from_dict({"preset": "generala"})
    strategy = _strategy(rules)
    start = GameState.start(rules, ["Solo"])
    first = {item.box: item for item in strategy.advise(start, "22333", 1)}
    third = {item.box: item for item in strategy.advise(start, "22333", 3)}
    assert (first["full_house"].points, third["full_house"].points) == (35, 30)
    assert first["full_house"].expected_total == pytest.approx(
        third["full_house"].expected_total + 5
    )
    assert strategy.advise(start, "22333", 1)[0].box == "full_house"
    # A Generala servida: its 50 now, then the game valued as going on.
    generala = {item.box: item for item in strategy.advise(start, "66666", 1)}["generala"]
    assert generala.points == 50


def test_the_instant_win_shares_the_table_and_the_others_options_do_not():
    wins = Rules.from_dict({"preset": "generala"})
    goes_on = Rules.from_dict(NO_INSTANT_WIN)
    assert table_options(wins) == table_options(goes_on)
    assert cache_path(wins, "/i") == cache_path(goes_on, "/i")
    for other in ({"servida": False}, {"ace_high_straight": True}):
        rules = Rules.from_dict({"preset": "generala", **other})
        assert cache_path(rules, "/i") != cache_path(wins, "/i")
    assert cache_path(wins, "/i") != cache_path(Rules(), "/i")


def test_one_place_per_sheet_and_generala_box():
    sheet = SheetIndex(Rules.from_dict({"preset": "generala"}))
    # No upper bonus: the upper total never counts. Every mask, and those with the Generala
    # box filled once more (at 50 or at 0).
    assert sheet.size == 2**11 + 2**10


def test_the_review_judges_a_servida_on_its_first_throw():
    # Only the final dice are known, judged as a last throw's; an entry saying throw 1 was a
    # servida: its boxes are judged as the first throw scores them (Full 35, not 30).
    rules = Rules.from_dict({"preset": "generala"})
    strategy = _strategy(rules)
    start = GameState.start(rules, ["Ana", "Beto"])
    served = Entry(0, "free", "full_house", (2, 2, 3, 3, 3), throw=1)
    later = Entry(1, "free", "twos", (2, 2, 3, 3, 3))
    final = start.play(served).play(later)
    turns, _ = review_game(strategy, final)
    first = {item.box: item for item in strategy.advise(start, "22333", 1)}
    assert final.sheets[0].total == 35
    assert turns[0].chosen_total == pytest.approx(first["full_house"].expected_total)
    assert (turns[0].best_box, turns[0].was_best) == ("full_house", True)
    # The same dice unsaid are judged as a later throw's: the Full then scores 30.
    third = {item.box: item for item in strategy.advise(start.play(served), "22333", 3)}
    assert turns[1].chosen_total == pytest.approx(third["twos"].expected_total)
    assert third["full_house"].points == 30
