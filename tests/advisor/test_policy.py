"""The advice of several columns (Triple, Triple with Sec) and of la vache: the turn is played
exactly against the columns' tables, la vache's floors counted; the simulated games it plays
are the rules engine's. bench/advisor.py measures it over tens of thousands of games."""

import random
from collections import Counter
from dataclasses import replace
from itertools import product

import pytest

from scorekeeper.advisor.review import review_game
from scorekeeper.advisor.simulation import mean_interval, play_games
from scorekeeper.advisor.strategy import Strategy, load_or_build
from scorekeeper.rules import Entry, Rules, replay
from tests.advisor.brute_force import BruteForce, keeps
from tests.advisor.helpers import columns_game

TRIPLE_SEC = Rules.from_dict({"preset": "triple", "columns": ["down", "up", "free", "sec"]})
TRIPLE = Rules.from_dict({"preset": "triple"})
CHANCES = Counter(tuple(sorted(throw)) for throw in product(range(1, 7), repeat=5))


@pytest.fixture(scope="session")
def triple_sec(tmp_path_factory):
    """The four real tables of Triple with Sec (seconds for the free and sec columns)."""
    return load_or_build(TRIPLE_SEC, tmp_path_factory.mktemp("advisor"))


def _strategy(tables: Strategy, rules: Rules) -> Strategy:
    """The strategy of ``rules`` on the tables already built."""
    return Strategy(rules, tables.tables, tables.sheets)


def _played(rules: Rules, turns: int, seed: int, players=("Solo",)):
    """A game part played with random dice and boxes."""
    chooser = random.Random(seed)
    state = columns_game(rules, {name: {} for name in players})
    for _ in range(turns):
        dice = tuple(chooser.randint(1, 6) for _ in range(rules.dice))
        column, box = chooser.choice(sorted(state.preview(dice)))
        state = state.play(Entry(state.active_player, column, box, dice))
    return state


def _turn_reference(strategy: Strategy, state, throw: int) -> dict:
    """Each keep's final total by brute force over this one turn: the rules engine's boxes
    and points (la vache's floors included), the columns' tables for what comes after."""
    player = state.active_player
    sheet = state.sheets[player]
    rests = {kind: strategy.expected_rest(column) for kind, column in sheet.columns.items()}

    def scored(roll, first_throw):
        best = []
        for (kind, _box), cell in state.preview(roll, player).items():
            if kind == "sec" and not first_throw:
                continue
            column = sheet.columns[kind]
            after = column.with_score(cell)
            best.append(
                sheet.total
                - column.total
                + after.total
                + strategy.expected_rest(after)
                + sum(rest for other, rest in rests.items() if other != kind)
            )
        return max(best, default=float("-inf"))

    reference = BruteForce()
    last = {roll: scored(roll, False) for roll in CHANCES}
    after = reference.best_keeps(last) if throw == 1 else last
    now = {
        roll: max(last[roll], scored(roll, True) if throw == 1 else last[roll]) for roll in CHANCES
    }
    return {
        keep: (now[keep] if len(keep) == 5 else reference.keep_value(keep, after))
        for roll in CHANCES
        for keep in keeps(roll)
    }


@pytest.mark.parametrize(
    ("rules", "turns", "seed"),
    [
        (TRIPLE_SEC, 30, 1),
        (TRIPLE_SEC, 49, 2),
        (TRIPLE, 20, 3),
        (replace(TRIPLE_SEC, vache=True), 40, 4),
    ],
)
def test_every_keep_is_the_brute_force_of_the_turn(triple_sec, rules, turns, seed):
    players = ("Mag", "Alix") if rules.vache else ("Solo",)
    state = _played(rules, turns, seed, players)
    strategy = _strategy(triple_sec, rules)
    for throw in (1, 2):
        reference = _turn_reference(strategy, state, throw)
        for dice in ("55521", "66666", "13462"):
            advice = strategy.advise_keeps(state, dice, throw)
            assert {item.keep: item.expected_total for item in advice} == pytest.approx(
                {keep: reference[keep] for keep in (item.keep for item in advice)}, abs=1e-9
            )


def test_with_one_column_left_the_advice_is_that_columns_own(triple_sec):
    # Descendante and Montante full: Triple's advice is the free column's exact advice.
    filled = {box: 3 * index for index, box in enumerate(TRIPLE.boxes)}
    free = {"ones": 2, "fours": 16, "yams": 50, "chance": 23, "full_house": 25}
    state = columns_game(TRIPLE, {"Solo": {"down": filled, "up": filled, "free": free}})
    free_rules = Rules()
    alone = columns_game(
        free_rules,
        {
            "Solo": {
                "free": {
                    box: cell.points for box, cell in state.sheets[0].columns["free"].cells.items()
                }
            }
        },
    )
    strategy = _strategy(triple_sec, TRIPLE)
    exact = _strategy(triple_sec, free_rules)
    ordered_total = sum(state.sheets[0].columns[kind].total for kind in ("down", "up"))
    for dice in ("66653", "12345", "44444"):
        _same_advice(strategy.advise(state, dice), exact.advise(alone, dice), ordered_total)
        for throw in (1, 2):
            _same_advice(
                strategy.advise_keeps(state, dice, throw),
                exact.advise_keeps(alone, dice, throw),
                ordered_total,
            )


def _same_advice(advice, exact, offset):
    """The same choices in the same order, the totals apart by ``offset``."""
    choice = (lambda item: item.keep) if hasattr(exact[0], "keep") else (lambda item: item.box)
    assert [choice(item) for item in advice] == [choice(item) for item in exact]
    assert [item.expected_total - offset for item in advice] == pytest.approx(
        [item.expected_total for item in exact], abs=1e-9
    )


@pytest.mark.parametrize("turns", [0, 17, 45])
def test_the_turn_is_never_expected_below_the_columns_sum(triple_sec, turns):
    # Committing the turn to one column before throwing is worth the sum of the columns'
    # values; choosing on the dice is worth at least as much.
    state = _played(TRIPLE_SEC, turns, turns)
    strategy = _strategy(triple_sec, TRIPLE_SEC)
    committed = state.sheets[0].total + sum(
        strategy.expected_rest(column) for column in state.sheets[0].columns.values()
    )
    turn = (
        sum(
            CHANCES[roll] * strategy.advise_keeps(state, roll, 1)[0].expected_total
            for roll in CHANCES
        )
        / 6**5
    )
    assert turn >= committed - 1e-9
    if turns == 0:
        assert committed == pytest.approx(strategy.start_value)
        assert turn > committed + 1  # the choice of column is worth something at once


def test_sec_takes_the_dice_of_the_first_throw_only(triple_sec):
    state = _played(TRIPLE_SEC, 10, 6)
    strategy = _strategy(triple_sec, TRIPLE_SEC)
    for throw, with_sec in ((1, True), (2, False), (3, False)):
        columns = {item.column for item in strategy.advise(state, "66653", throw)}
        assert ("sec" in columns) == with_sec and "free" in columns
    # Only Sec left: the turn is one throw, whatever throw the dice are said to be.
    sec_only = columns_game(
        TRIPLE_SEC,
        {"Solo": {kind: dict.fromkeys(TRIPLE_SEC.boxes, 0) for kind in ("down", "up", "free")}},
    )
    for throw in (1, 2, 3):
        assert {item.column for item in strategy.advise(sec_only, "66653", throw)} == {"sec"}
    only_keep = strategy.advise_keeps(sec_only, "66653", 2)
    assert [item.keep for item in only_keep] == [(3, 5, 6, 6, 6)]
    assert only_keep[0].expected_total == pytest.approx(
        strategy.advise(sec_only, "66653")[0].expected_total
    )


@pytest.mark.parametrize(
    ("options", "players", "advised_seat"),
    [
        ({"preset": "triple", "columns": ["down", "up", "free", "sec"], "vache": True}, 2, None),
        ({"columns": ["down", "up"], "plus_minus": True, "dice": 6, "vache": True}, 3, 1),
        ({"preset": "yatzy", "columns": ["up", "down"], "vache": True}, 2, 0),
        ({"preset": "kniffel", "columns": ["up", "down"], "vache": True}, 2, 1),
        ({"preset": "yahtzee", "columns": ["up", "sec"], "joker": "free_choice"}, 1, 0),
    ],
)
def test_simulated_games_are_the_rules_engines(
    triple_sec, tmp_path, options, players, advised_seat
):
    # The simulator writes what the rules engine writes: its games, replayed entry by
    # entry, end on the same totals.
    rules = Rules.from_dict(options)
    strategy = (
        _strategy(triple_sec, rules)
        if rules.columns == TRIPLE_SEC.columns
        else load_or_build(rules, tmp_path)
    )
    games = play_games(strategy, 6, players, advised_seat, seed=7, logged=6)
    names = [f"P{seat}" for seat in range(players)]
    for log, totals in zip(games.logs, games.totals, strict=True):
        final = replay(rules, names, log)
        assert final.is_over
        assert [sheet.total for sheet in final.sheets] == list(totals)


def test_a_short_simulation_already_beats_turn_about(triple_sec):
    # bench/advisor.py plays 20,000 games; 300 already tell the policy from the reference.
    strategy = _strategy(triple_sec, TRIPLE)
    mean, half_width = mean_interval(play_games(strategy, 300, seed=8).totals[:, 0])
    assert mean - half_width > strategy.start_value


def test_a_game_of_several_columns_is_reviewed_turn_by_turn(triple_sec):
    # The review judges each entry's box among those its throw allowed: Sec's entries as
    # dice of a first throw. The advised players' own choices give nothing away.
    rules = replace(TRIPLE_SEC, vache=True)
    strategy = _strategy(triple_sec, rules)
    games = play_games(strategy, 1, 2, seed=9, logged=1)
    final = replay(rules, ["Mag", "Alix"], games.logs[0])
    turns, players = review_game(strategy, final)
    assert len(turns) == 2 * rules.turns_per_player
    assert [turn.player for turn in turns] == [entry.player for entry in final.entries]
    assert all(turn.given_away == pytest.approx(0, abs=1e-9) for turn in turns)
    assert [player.precision for player in players] == [100.0, 100.0]
