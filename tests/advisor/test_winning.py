"""The chances to win: the exact end game against an independent brute force, and what the
estimate must always hold."""

import json
import random

import numpy as np
import pytest

from scorekeeper.advisor import endgame
from scorekeeper.advisor.choices import POINT_UTILITY
from scorekeeper.advisor.endgame import fits
from scorekeeper.advisor.futures import seats
from scorekeeper.advisor.solver import build_table
from scorekeeper.advisor.spreads import build_spreads
from scorekeeper.advisor.strategy import Strategy
from scorekeeper.advisor.winning import WinChances
from scorekeeper.rules import Entry, RuleError, Rules
from tests.advisor.brute_force_game import SHARE, TIE, WIN, GameBruteForce
from tests.advisor.helpers import END_GAME_FILLED, game, seated_end_game

# A tenth of a percentage point, the bound; the two agree far closer.
BOUND = 1e-3


# (rules, each player's sheet as (boxes left, points written)), the active player first to
# play: players before them have one box fewer left.
END_GAMES = [
    pytest.param(
        {},
        {
            "Mag": (["yams"], {"sixes": 24, "chance": 22}),
            "Alix": (["chance"], {"sixes": 18, "yams": 50, "fives": 20}),
        },
        id="last-round-two-players",
    ),
    pytest.param(
        {},
        {
            "Mag": (["large_straight", "yams"], {"chance": 25, "sixes": 18}),
            "Alix": (["full_house", "small_straight"], {"chance": 20, "fives": 20}),
        },
        id="two-boxes-each",
    ),
    pytest.param(
        {},
        {
            "Mag": (["fours"], {"sixes": 24, "fives": 20, "threes": 6}),
            "Alix": (["large_straight"], {"chance": 23, "sixes": 12}),
            "Zoé": (["yams"], {"chance": 26, "fives": 10}),
        },
        id="three-players-upper-bonus",
    ),
    pytest.param(
        {},
        {
            "Mag": (["fours", "full_house"], {"yams": 50, "sixes": 18}),
            "Alix": (["small_straight"], {"yams": 50, "fives": 15, "chance": 20}),
        },
        id="joker-and-100",
    ),
    pytest.param(
        {"vache": True},
        {
            "Mag": (["sixes"], {"chance": 20, "fives": 15}),
            "Alix": (["sixes"], {"chance": 20, "fives": 15}),
            "Zoé": (["sixes", "large_straight"], {"chance": 8}),
        },
        id="vache-floors-rise",
    ),
    pytest.param(
        {"preset": "yatzy"},
        {
            "Mag": (["pair", "yams"], {"chance": 20}),
            "Alix": (["two_pairs"], {"chance": 24, "sixes": 6}),
        },
        id="yatzy",
    ),
    pytest.param(
        {"preset": "kniffel"},
        {
            "Mag": (["fours", "full_house"], {"yams": 0, "sixes": 18}),
            "Alix": (["fours"], {"yams": 50, "fives": 15, "chance": 20}),
        },
        id="kniffel-50",
    ),
    pytest.param(
        {"preset": "yahtzee", "joker": "free_choice"},
        {
            "Mag": (["twos", "large_straight"], {"yams": 50, "sixes": 18}),
            "Alix": (["large_straight"], {"yams": 50, "chance": 20}),
        },
        id="yahtzee-verhoeffs-joker",
    ),
]


def _end_game(options, players):
    """The end game of these sheets (``seated_end_game``), its table only over the boxes
    they all have filled."""
    state = seated_end_game(Rules.from_dict(options), players)
    common = set.intersection(*(set(sheet.columns["free"].cells) for sheet in state.sheets))
    values = build_table(state.rules, filled=common)
    return state, WinChances(state.rules, values, np.zeros((3,) + values.shape))


@pytest.mark.parametrize(("options", "players"), END_GAMES)
def test_exact_end_game_matches_brute_force(options, players):
    state, chances = _end_game(options, players)
    assert fits(seats(state))
    reference = GameBruteForce(POINT_UTILITY)
    expected = reference.value(state)
    standings = chances.standings(state)
    for player, chance in enumerate(standings):
        assert chance.win == pytest.approx(expected[player, WIN], abs=BOUND)
        assert chance.tie == pytest.approx(expected[player, TIE], abs=BOUND)
        assert chance.share == pytest.approx(expected[player, SHARE], abs=BOUND)
    assert sum(chance.share for chance in standings) == pytest.approx(1)

    player = state.active_player
    for dice in [(6, 6, 6, 5, 3), (1, 2, 3, 4, 5), (4, 4, 4, 4, 4)]:
        advice = chances.advise(state, dice, 3)
        assert advice.exact
        boxes = reference.box_values(state, dice)
        assert {option.box for option in advice.options} == set(boxes)
        for option in advice.options:
            assert option.chance.share == pytest.approx(boxes[option.box][player, SHARE], abs=BOUND)
            assert option.chance.win == pytest.approx(boxes[option.box][player, WIN], abs=BOUND)
        for throw in (1, 2):
            after = reference.throw_values(state, throw + 1)
            advice = chances.advise(state, dice, throw)
            for option in advice.options:
                keep = tuple(sorted(option.keep))
                # Keeping all five dice is scoring them now.
                value = (
                    reference.throw_values(state, 3)[keep]
                    if len(keep) == 5
                    else reference.keep_value(keep, after)
                )
                assert option.chance.share == pytest.approx(value[player, SHARE], abs=BOUND), keep


def test_the_options_are_ranked_by_the_chance_to_win():
    state, chances = _end_game(
        {},
        {
            "Mag": (["yams"], {"sixes": 24, "chance": 22}),
            "Alix": (["chance"], {"sixes": 18, "yams": 50, "fives": 20}),
        },
    )
    advice = chances.advise(state, (6, 6, 6, 2, 1), 1)
    shares = [option.chance.share for option in advice.options]
    assert shares == sorted(shares, reverse=True)
    # Behind by 33 with only the Yams left: keep the three sixes and go for it.
    assert advice.options[0].keep == (6, 6, 6)
    assert all(option.chance.loss >= 0 for option in advice.options)
    # What `advise --to-win` prints: the options as without it, and the chances.
    printed = json.loads(json.dumps([option.as_dict() for option in advice.options]))
    assert printed[0] == {
        "keep": [6, 6, 6],
        "expected_total": round(advice.options[0].expected_total, 4),
        "win_chance": round(shares[0], 4),
        "win": round(advice.options[0].chance.win, 4),
        "tie": round(advice.options[0].chance.tie, 4),
    }
    boxes = chances.advise(state, (6, 6, 6, 2, 1), 3).options
    assert {"box", "column", "expected_total", "win_chance"} <= set(boxes[0].as_dict())


def test_bad_requests_are_refused_in_french():
    state, chances = _end_game({}, {"Mag": (["yams"], {}), "Alix": (["chance"], {})})
    with pytest.raises(RuleError, match="Pas assez de dés : il en faut 5, pas 4"):
        chances.advise(state, "1234", 3)
    with pytest.raises(RuleError, match="choisissez 1, 2 ou 3"):
        chances.advise(state, "12345", 4)
    with pytest.raises(RuleError, match="d'autres règles"):
        chances.advise(game(Rules(joker="free"), {"Mag": {}, "Alix": {}}), "12345", 3)
    over = state.play(Entry(0, "free", "yams", (1, 2, 3, 4, 5)))
    over = over.play(Entry(1, "free", "chance", (1, 2, 3, 4, 5)))
    with pytest.raises(RuleError, match="La partie est terminée"):
        chances.advise(over, "12345", 3)
    assert [chance.share for chance in chances.standings(over)] == [0.0, 1.0]


# -- the estimate ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def estimate():
    """The table and spreads of the last seven turns of a sheet (END_GAME_FILLED)."""
    rules = Rules()
    values = build_table(rules, filled=END_GAME_FILLED)
    return WinChances(rules, values, build_spreads(rules, values, filled=END_GAME_FILLED))


def _estimated_game(**sheets):
    return game(
        Rules(),
        {name: {box: 0 for box in END_GAME_FILLED} | points for name, points in sheets.items()},
    )


def test_estimated_chances_add_up_and_follow_the_totals(estimate):
    state = _estimated_game(Mag={"sixes": 24}, Alix={"sixes": 12}, Zoe={"sixes": 18})
    assert not fits(seats(state))
    standings = estimate.standings(state)
    assert sum(chance.share for chance in standings) == pytest.approx(1)
    mag, alix, zoe = (chance.share for chance in standings)
    assert mag > zoe > alix  # the same boxes left: the higher total, the better chance
    for chance in standings:
        assert chance.win <= chance.share <= chance.win + chance.tie + 1e-12
    alike = estimate.standings(_estimated_game(Mag={}, Alix={}))
    # The first to play has no edge under the estimate: the players' dice are independent.
    assert alike[0].share == pytest.approx(0.5, abs=1e-9)


def test_a_box_s_chance_is_the_next_position_s(estimate):
    """Six and seven boxes left: the whole distributions on one side, the law of three
    moments on the other; the chance after a box is the standings once it is written."""
    state = _estimated_game(Mag={"sixes": 24}, Alix={"fives": 20})
    state = state.play(Entry(0, "free", "threes", (3, 3, 1, 2, 5)))
    dice = (4, 4, 4, 4, 2)
    for option in estimate.advise(state, dice, 3).options:
        after = state.play(Entry(1, "free", option.box, dice))
        assert option.chance.share == pytest.approx(estimate.standings(after)[1].share, abs=1e-9), (
            option.box
        )


def test_the_review_gives_every_player_s_chance_after_each_turn(estimate):
    start = _estimated_game(Mag={"sixes": 24}, Alix={"fives": 20})
    state = start
    chooser = random.Random(3)
    while not state.is_over:
        dice = tuple(chooser.randint(1, 6) for _ in range(5))
        box = estimate.advise(state, dice, 3).options[0].box
        state = state.play(Entry(state.active_player, "free", box, dice))
    series = estimate.review(state, start)
    assert len(series) == len(state.entries) - len(start.entries) + 1
    assert series[0] == estimate.standings(start)
    for standings in series:
        assert sum(chance.share for chance in standings) == pytest.approx(1)
    totals = [sheet.total for sheet in state.sheets]
    assert [chance.share for chance in series[-1]] == [
        (total == max(totals)) / totals.count(max(totals)) for total in totals
    ]


def test_the_best_score_ranking_is_the_conseil_s(estimate):
    """Each option's final total to expect is the Conseil's (« Pour le meilleur score »),
    in the exact end game as in the estimate."""
    estimated = _estimated_game(Mag={"sixes": 24}, Alix={"fives": 20})
    exact, exact_chances = _end_game(
        {},
        {"Mag": (["yams", "chance"], {"sixes": 24}), "Alix": (["chance", "fives"], {"sixes": 18})},
    )
    for state, chances in ((estimated, estimate), (exact, exact_chances)):
        strategy = Strategy(Rules(), {"free": chances.values})
        for dice in [(6, 6, 6, 5, 3), (2, 2, 3, 4, 5)]:
            advice = chances.advise(state, dice, 3)
            expected = {item.box: item.expected_total for item in strategy.advise(state, dice)}
            assert {
                option.box: option.expected_total for option in advice.options
            } == pytest.approx(expected)
            assert advice.for_best_score.expected_total == pytest.approx(max(expected.values()))
            for throw in (1, 2):
                expected = {
                    item.keep: item.expected_total
                    for item in strategy.advise_keeps(state, dice, throw)
                }
                assert {
                    option.keep: option.expected_total
                    for option in chances.advise(state, dice, throw).options
                } == pytest.approx(expected)


def test_an_end_game_beyond_its_budget_is_estimated(monkeypatch):
    state, chances = _end_game(
        {},
        {
            "Mag": (["large_straight", "yams"], {"chance": 25, "sixes": 18}),
            "Alix": (["full_house", "small_straight"], {"chance": 20, "fives": 20}),
        },
    )
    assert chances.advise(state, (6, 6, 6, 5, 3), 1).exact
    monkeypatch.setattr(endgame, "MAX_POSITIONS", 10)
    advice = chances.advise(state, (6, 6, 6, 5, 3), 1)
    assert not advice.exact
    assert sum(chance.share for chance in chances.standings(state)) == pytest.approx(1)
    assert {option.keep for option in advice.options} == {
        option.keep for option in chances.advise(state, (6, 6, 6, 5, 3), 2).options
    }
