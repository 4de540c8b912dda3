"""The chances to win at Generala (docs/advisor-winning.md, « Generala »): the exact end game,
whose turns may end on the first throw with the servida's points or win the game at once,
against the independent brute force; the estimate's instant wins (each player's hazards
beside a sub-distribution of their totals) against the table and against each other."""

import random

import numpy as np
import pytest

from scorekeeper.advisor.choices import POINT_UTILITY
from scorekeeper.advisor.endgame import CHANCES, EndGame, fits
from scorekeeper.advisor.futures import Futures, SheetModel, seats, sheet_index
from scorekeeper.advisor.solver import build_table
from scorekeeper.advisor.spreads import build_spreads
from scorekeeper.advisor.turn import ROLLS
from scorekeeper.advisor.winning import WinChances
from scorekeeper.rules import Entry, RuleError, Rules
from tests.advisor.brute_force_game import POINTS, SHARE, TIE, WIN, GameBruteForce
from tests.advisor.helpers import game, random_two_player_game, seated_end_game

# The brute force and the end game do the same sums in another order.
EXACT = 1e-9
GENERALA = {"preset": "generala"}
NO_INSTANT_WIN = {"preset": "generala", "servida_wins": False}

# (rules, each player's sheet as (boxes left, points written)), the active player first to
# play: players before them have one box fewer left.
END_GAMES = [
    pytest.param(
        GENERALA,
        {
            "Mag": (["full_house"], {"sixes": 24, "generala": 50}),
            "Alix": (["four_kind"], {"sixes": 18, "fives": 20, "generala": 50}),
        },
        id="last-round-servida-points",
    ),
    pytest.param(
        GENERALA,
        {
            "Mag": (["straight", "four_kind"], {"sixes": 18, "generala": 50}),
            "Alix": (["full_house", "fives"], {"sixes": 24, "generala": 50}),
        },
        id="two-boxes-each",
    ),
    pytest.param(
        GENERALA,
        {
            "Mag": (["generala", "fours"], {"sixes": 18, "full_house": 30}),
            "Alix": (["straight", "double_generala"], {"sixes": 24, "generala": 50}),
        },
        id="generala-box-free-wins-at-once",
    ),
    pytest.param(
        NO_INSTANT_WIN,
        {
            "Mag": (["generala", "fours"], {"sixes": 18, "full_house": 30}),
            "Alix": (["straight", "double_generala"], {"sixes": 24, "generala": 50}),
        },
        id="servida-wins-off",
    ),
    pytest.param(
        {"preset": "generala", "servida": False},
        {
            "Mag": (["generala", "four_kind"], {"sixes": 18, "full_house": 30}),
            "Alix": (["four_kind", "double_generala"], {"sixes": 24, "generala": 50}),
        },
        id="servida-points-off-instant-win-on",
    ),
    pytest.param(
        GENERALA,
        {
            "Mag": (["generala", "fours"], {"sixes": 18, "full_house": 30}),
            "Alix": (["generala", "straight"], {"sixes": 24, "four_kind": 40}),
        },
        id="both-generala-boxes-free",
    ),
    pytest.param(
        GENERALA,
        {
            "Mag": (["generala"], {"sixes": 18, "full_house": 30}),
            "Alix": (["full_house"], {"sixes": 24, "four_kind": 40}),
            "Zoé": (["generala"], {"fives": 25, "straight": 20}),
        },
        id="three-players-a-later-instant-win",
    ),
]


def _end_game(options, players):
    """The end game of these sheets (``seated_end_game``), with Generala's whole table (it
    builds in a few hundredths of a second)."""
    rules = Rules.from_dict(options)
    state = seated_end_game(rules, players)
    values = build_table(rules)
    return state, WinChances(rules, values, np.zeros((3,) + values.shape))


def _close(chance, value):
    assert chance.win == pytest.approx(value[WIN], abs=EXACT)
    assert chance.tie == pytest.approx(value[TIE], abs=EXACT)
    assert chance.share == pytest.approx(value[SHARE], abs=EXACT)


@pytest.mark.parametrize(("options", "players"), END_GAMES)
def test_exact_end_game_matches_brute_force(options, players):
    state, chances = _end_game(options, players)
    assert fits(seats(state))
    reference = GameBruteForce(POINT_UTILITY)
    standings = chances.standings(state)
    for player, chance in enumerate(standings):
        _close(chance, reference.value(state)[player])
    assert sum(chance.share for chance in standings) == pytest.approx(1, abs=EXACT)
    # Every player's final total to expect, which settles their equal shares: a game won at
    # once ends on the totals then held.
    solved = EndGame(state.rules, chances.values, state)
    for player in solved.playing[0]:
        total = solved.values[0][0, solved._player_column(0, player) + CHANCES] + solved.refs[0]
        assert total == pytest.approx(reference.value(state)[player, POINTS], abs=EXACT)

    player = state.active_player
    compared = 0
    for dice in [
        (6, 6, 6, 6, 6),
        (6, 6, 6, 5, 5),
        (2, 3, 4, 5, 6),
        (4, 4, 4, 4, 1),
        (1, 1, 2, 3, 5),
    ]:
        # The boxes: after the last throw, and after the first as a servida.
        for throw, said in ((3, None), (1, 1)):
            advice = chances.advise(state, dice, throw, boxes=True)
            assert advice.exact
            boxes = reference.box_values(state, dice, said)
            assert {option.box for option in advice.options} == set(boxes)
            for option in advice.options:
                _close(option.chance, boxes[option.box][player])
                compared += 1
        for throw in (1, 2):
            after = reference.throw_values(state, throw + 1)
            for option in chances.advise(state, dice, throw).options:
                keep = tuple(sorted(option.keep))
                value = reference.keep_value(keep, after)
                if len(keep) == 5:
                    # Keeping all five dice is scoring them: after the last throw, or at
                    # once after the first (a servida), whichever is better.
                    value = reference.now_or(
                        state, keep, throw, reference.throw_values(state, 3)[keep]
                    )
                _close(option.chance, value[player])
                compared += 1
    assert compared > 100


def test_a_generala_servida_wins_at_once_in_the_exact_end_game():
    state, chances = _end_game(*END_GAMES[2].values)
    advice = chances.advise(state, (3, 3, 3, 3, 3), 1, boxes=True)
    best = advice.options[0]
    assert (best.box, best.chance.share, best.chance.win) == ("generala", 1.0, 1.0)
    # The same dice after the last throw: 50 points, no win at once.
    later = {option.box: option.chance for option in chances.advise(state, (3,) * 5, 3).options}
    assert later["generala"].share < 1
    # Without the instant win the servida is only its 50.
    off, off_chances = _end_game(*END_GAMES[3].values)
    served = off_chances.advise(off, (3, 3, 3, 3, 3), 1, boxes=True).options
    assert {option.box: option.chance.share for option in served}["generala"] < 1


def test_chances_are_for_their_own_instant_win_rule():
    """Generala's table is one with or without the instant win; its chances are not."""
    state, chances = _end_game(*END_GAMES[2].values)
    off = Rules.from_dict(NO_INSTANT_WIN)
    other = WinChances(off, chances.values, chances.spreads)
    with pytest.raises(RuleError, match="d'autres règles"):
        other.advise(state, (3, 3, 3, 3, 3), 1)


def test_a_game_won_at_once_is_its_winner_s():
    state, chances = _end_game(*END_GAMES[2].values)
    player = state.active_player
    won = state.play(Entry(player, "free", "generala", (2, 2, 2, 2, 2), 1))
    assert won.is_over
    shares = [chance.share for chance in chances.standings(won)]
    assert shares[player] == 1.0 and sum(shares) == 1.0


# -- the estimate ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tables():
    return {
        wins: build_table(Rules.from_dict(GENERALA | {"servida_wins": wins}))
        for wins in (True, False)
    }


def _futures(tables, wins, state):
    rules = Rules.from_dict(GENERALA | {"servida_wins": wins})
    model = SheetModel(rules, tables[wins], [0] * len(rules.boxes))
    return model, Futures(model, [state])


@pytest.mark.parametrize(
    "written", [{}, {"generala": 50, "sixes": 24}, {"generala": 0, "ones": 2}, {"fours": 12}]
)
def test_sub_distribution_and_instant_wins_against_the_table(tables, written):
    """Without the instant win the distribution's mean is the table's value (the solitaire
    table values a Generala servida as its 50 and the game going on); with it, the games
    won at once leave the distribution (never adding to it) and its lost mass is the chance
    of winning at once, 1/1296 at each turn whose Generala box is free."""
    rules = Rules.from_dict(GENERALA)
    index = sheet_index(rules)
    mask, yams50, upper, _ = (int(part[0]) for part in index.state(written))
    state = (mask, yams50, upper)
    _, off = _futures(tables, False, state)
    _, on = _futures(tables, True, state)
    plain = off.distribution(state)
    place = index.place(index.state(written))[0]
    assert plain @ np.arange(len(plain)) == pytest.approx(tables[False][place], abs=1e-7)
    assert off.hazards(state).sum() == 0
    assert plain.sum() == pytest.approx(1, abs=1e-9)
    sub, hazards = on.distribution(state), on.hazards(state)
    assert len(hazards) == len(rules.boxes) - len(written)
    assert sub.sum() + hazards.sum() == pytest.approx(1, abs=1e-9)
    assert np.all(sub <= np.pad(plain, (0, max(0, len(sub) - len(plain))))[: len(sub)] + 1e-15)
    if "generala" in written:
        assert hazards.sum() == 0
        np.testing.assert_allclose(sub, plain, atol=1e-15)
    else:
        assert hazards[0] == pytest.approx(6 / 6**5, abs=1e-15)
        assert 0 < hazards[-1] < hazards[0]
        # A turn's instant win needs the box still free: each turn keeps it so at most
        # 1295/1296 of the time, and less, as the strategy writes 50 there with five alike
        # of a later throw (some 4 % of turns).
        assert np.all(hazards[1:] <= hazards[:-1] * (1 - 6 / 6**5) + 1e-18)
        assert hazards[1] < 0.99 * hazards[0]


def _estimated(tables, written_by_player):
    rules = Rules.from_dict(GENERALA)
    state = game(rules, written_by_player)
    return state, WinChances(rules, tables[True], np.zeros((3,) + tables[True].shape))


def test_estimated_shares_add_up_with_the_instant_wins(tables):
    state, chances = _estimated(
        tables, {"Mag": {"sixes": 24}, "Alix": {"sixes": 18}, "Zoé": {"fives": 20}}
    )
    assert not fits(seats(state))
    standings = chances.standings(state)
    assert sum(chance.share for chance in standings) == pytest.approx(1, abs=1e-9)
    for chance in standings:
        assert chance.win <= chance.share <= chance.win + chance.tie + 1e-12
    # Alike sheets: the first to play may win at once first, and so has the edge.
    alike = chances.standings(game(Rules.from_dict(GENERALA), {"Mag": {}, "Alix": {}}))
    assert alike[0].share > 0.5 > alike[1].share
    assert sum(chance.share for chance in alike) == pytest.approx(1, abs=1e-9)


def test_the_instant_win_in_the_seat_order(tables):
    """Three boxes left each (estimated): each player's share is their instant wins, each
    before the other's of the same round for the first to play, plus their totals' share
    when nobody wins at once; written out here for two players from their futures."""
    rules = Rules.from_dict(GENERALA)
    left = ["generala", "double_generala", "fours"]
    sheets = {
        "Mag": {box: 0 for box in rules.boxes if box not in left} | {"sixes": 18},
        "Alix": {box: 0 for box in rules.boxes if box not in left} | {"sixes": 24},
    }
    state, chances = _estimated(tables, sheets)
    assert not fits(seats(state))
    model, futures = _futures(tables, True, seats(state)[0].state)
    sub, hazards = (
        futures.distribution(seats(state)[0].state),
        futures.hazards(seats(state)[0].state),
    )
    assert hazards[0] == pytest.approx(6 / 6**5, abs=1e-15)
    mag, alix = (seat.total for seat in seats(state))

    def by_totals(own, other):  # P(own total beats the other's) + half a tie
        return sum(
            sub[x] * sub[y] * ((own + x > other + y) + 0.5 * (own + x == other + y))
            for x in range(len(sub))
            for y in range(len(sub))
        )

    first = sum(h * (1 - hazards[:j].sum()) for j, h in enumerate(hazards))
    second = sum(h * (1 - hazards[: j + 1].sum()) for j, h in enumerate(hazards))
    standings = chances.standings(state)
    assert standings[0].share == pytest.approx(first + by_totals(mag, alix), abs=1e-12)
    assert standings[1].share == pytest.approx(second + by_totals(alix, mag), abs=1e-12)
    assert sum(chance.share for chance in standings) == pytest.approx(1, abs=1e-9)
    # A box's chance is the standings once it is written (the other plays next).
    dice = (5, 5, 5, 5, 5)
    for option in chances.advise(state, dice, 3).options:
        after = state.play(Entry(0, "free", option.box, dice))
        assert option.chance.share == pytest.approx(chances.standings(after)[0].share, abs=1e-12)
    won = chances.advise(state, dice, 1, boxes=True).options[0]
    assert (won.box, won.chance.share) == ("generala", 1.0)
    assert model.instant


def test_a_box_s_chance_is_the_standings_after_it_whoever_plays(tables):
    """Three players, the second to play (estimated): each box's chance, after the last
    throw and after the first (a servida that may win at once), is the active player's
    share once it is written, the next turns then taken from the third player on."""
    rules = Rules.from_dict(GENERALA)
    left = ["generala", "double_generala", "fours", "fives"]
    filled = {box: 0 for box in rules.boxes if box not in left}
    state, chances = _estimated(
        tables,
        {
            "Mag": filled | {"sixes": 18, "fives": 15},  # she has played this round
            "Alix": filled | {"sixes": 24},
            "Zoé": filled | {"sixes": 12},
        },
    )
    player = state.active_player
    assert player == 1 and not fits(seats(state))
    for dice in [(5, 5, 5, 5, 5), (1, 2, 3, 4, 6)]:
        for throw, said in ((3, None), (1, 1)):
            for option in chances.advise(state, dice, throw, boxes=True).options:
                after = state.play(Entry(player, "free", option.box, dice, said))
                share = chances.standings(after)[player].share
                assert option.chance.share == pytest.approx(share, abs=1e-12), option.box


# -- the models' turn --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options", [GENERALA, NO_INSTANT_WIN, {"preset": "generala", "servida": False}]
)
def test_each_box_of_either_throw_gives_what_the_rules_engine_writes(options):
    """Random Generala sheets: every roll after the last throw and after the first (the
    servida), every box the engine allows, the points the total gains, the state after, and
    whether the game is won at once."""
    rules = Rules.from_dict(options)
    chooser = random.Random(5)
    table = np.zeros(sheet_index(rules).size)
    rolls = len(ROLLS)
    for _ in range(5):
        state = random_two_player_game(rules, chooser, fewest_rounds=1)
        player = state.active_player
        seat = seats(state)[player]
        outcomes = SheetModel(rules, table, seat.floors).outcomes(
            *(np.array([part]) for part in seat.state)
        )
        rows = [rules.boxes[index] for index in outcomes.boxes]
        assert outcomes.allowed.shape[1] == 2 * rolls
        for roll_index, roll in enumerate(ROLLS):
            for throw, row in ((None, roll_index), (1, rolls + roll_index)):
                preview = state.preview(roll, throw=throw)
                allowed = {box for index, box in enumerate(rows) if outcomes.allowed[index, row, 0]}
                assert allowed == {box for _, box in preview}
                for _, box in preview:
                    index = rows.index(box)
                    after = state.play(Entry(player, "free", box, roll, throw))
                    sheet = after.sheets[player]
                    gained = sheet.total - state.sheets[player].total
                    assert outcomes.gain[index, row, 0] == gained, (box, roll, throw)
                    assert outcomes.wins[index, row, 0] == (after.winner is not None)
                    points = {
                        name: cell.points for name, cell in sheet.columns["free"].cells.items()
                    }
                    written = tuple(int(part[0]) for part in sheet_index(rules).state(points)[:3])
                    assert (
                        outcomes.masks[index, row, 0],
                        outcomes.yams50[index, row, 0],
                        outcomes.uppers[index, row, 0],
                    ) == written


@pytest.mark.parametrize("written", [{}, {"generala": 50}, {"generala": 0, "fours": 12}])
def test_spreads_are_the_table_s_game_moments(tables, written):
    """Generala's spreads hold the table's own game (a Generala servida as its 50 and the
    game going on): the central moments of the distribution without the instant win."""
    rules = Rules.from_dict(GENERALA)
    index = sheet_index(rules)
    spreads = build_spreads(rules, tables[True])
    state = tuple(int(part[0]) for part in index.state(written)[:3])
    _, off = _futures(tables, False, state)
    distribution = off.distribution(state)
    points = np.arange(len(distribution))
    mean = distribution @ points
    place = index.place(index.state(written))[0]
    for row, moment in enumerate((2, 3, 4)):
        assert spreads[row, place] == pytest.approx(
            distribution @ (points - mean) ** moment, rel=1e-6
        )
