"""House rules of docs/rules.md §3 to §10 and how they interact."""

import pytest

from scorekeeper.rules import Entry, GameState, RuleError, Rules

from .helpers import cell, play, solo

TRIPLE = {"preset": "triple"}


def test_down_column_is_filled_top_to_bottom():
    state = GameState.start(Rules.from_dict(TRIPLE), ["Mag"])
    assert state.placement(0, "down", (1, 2, 3, 4, 5)).boxes == ("ones",)
    with pytest.raises(RuleError) as caught:
        state.play(Entry(0, "down", "twos", (2, 2, 2, 2, 1)))
    assert "la prochaine case est As" in str(caught.value)


def test_up_column_is_filled_bottom_to_top():
    state = GameState.start(Rules.from_dict(TRIPLE), ["Mag"])
    assert state.placement(0, "up", (1, 2, 3, 4, 5)).boxes == ("chance",)
    state = state.play(Entry(0, "up", "chance", (1, 2, 3, 4, 5)))
    assert state.placement(0, "up", (1, 2, 3, 4, 5)).boxes == ("yams",)


def test_each_column_has_its_own_bonus_and_yams():
    rules = Rules.from_dict(TRIPLE)
    state = play(
        rules,
        ["Mag"],
        [
            ("up", "chance", (1, 1, 1, 1, 2)),
            ("up", "yams", (5, 5, 5, 5, 5)),
            ("free", "fives", (5, 5, 5, 5, 5)),
        ],
    )
    # The free column's Yams box is empty: no joker there, no +100.
    assert cell(state, "fives").yams_bonus == 0
    state = state.play(Entry(0, "up", "large_straight", (2, 2, 2, 2, 2)))
    up = state.sheets[0].columns["up"]
    assert up.cells["large_straight"].points == 40  # joker: full value, the column's order
    assert up.cells["large_straight"].yams_bonus == 100
    assert up.total == 6 + 50 + 40 + 100


def test_joker_in_a_down_column_follows_the_order():
    rules = Rules.from_dict({"columns": ["down", "free"]})
    state = play(rules, ["Mag"], [("free", "yams", (6, 6, 6, 6, 6))])
    # The free column's Yams holds 50 but the down column's does not: no joker in down.
    placement = state.placement(0, "down", (3, 3, 3, 3, 3))
    assert placement.boxes == ("ones",) and placement.forced is None
    assert state.preview((3, 3, 3, 3, 3))["down", "ones"].yams_bonus == 0


def test_plus_must_end_above_moins():
    rules = Rules(plus_minus=True)
    state = play(rules, ["Mag"], [("minus", (3, 3, 4, 4, 5))])  # Moins 19
    assert state.preview((3, 3, 4, 4, 5))["free", "plus"].barred_by == "plus_minus"
    assert state.preview((3, 3, 4, 4, 6))["free", "plus"].points == 20
    state = play(rules, ["Mag"], [("plus", (3, 3, 4, 4, 5))])  # Plus 19
    assert state.preview((3, 3, 4, 4, 5))["free", "minus"].barred_by == "plus_minus"
    assert state.preview((3, 3, 4, 4, 4))["free", "minus"].points == 18


def test_plus_minus_is_checked_before_la_vache():
    rules = Rules(plus_minus=True, vache=True)
    state = play(rules, ["Mag", "Alix"], [("plus", (6, 6, 6, 6, 5)), ("minus", (6, 6, 5, 5, 5))])
    # Alix's Moins is 27; her Plus must beat it and also reach Mag's 29.
    preview = state.preview((6, 6, 6, 5, 5), player=1)  # 28: above her Moins, below the floor
    assert preview["free", "plus"].barred_by == "vache"
    preview = state.preview((3, 3, 4, 4, 5), player=1)  # 19: under her own Moins first
    assert preview["free", "plus"].barred_by == "plus_minus"


def test_la_vache_leaves_fixed_boxes_alone_and_counts_columns_apart():
    rules = Rules.from_dict({"vache": True, "columns": ["free", "sec"]})
    state = play(
        rules,
        ["Mag", "Alix"],
        [
            ("free", "full_house", (2, 2, 3, 3, 3)),
            ("sec", "chance", (1, 1, 2, 2, 3)),
            ("free", "chance", (6, 6, 6, 6, 6)),
        ],
    )
    assert state.vache_floor(1, "free", "full_house") is None
    assert state.vache_floor(1, "free", "chance") == 30
    assert state.vache_floor(1, "sec", "chance") is None
    assert state.vache_floor(0, "sec", "chance") == 9


def test_la_vache_after_a_joker_still_gives_the_100():
    rules = Rules(vache=True)
    state = play(
        rules,
        ["Mag", "Alix"],
        [
            ("three_kind", (6, 6, 6, 5, 5)),
            ("yams", (2, 2, 2, 2, 2)),
            ("chance", (1, 1, 1, 2, 2)),
            ("twos", (2, 2, 1, 1, 1)),
            ("ones", (1, 2, 3, 4, 6)),
            ("three_kind", (2, 2, 2, 2, 2)),
        ],
    )
    brelan = cell(state, "three_kind", player=1)
    assert (brelan.points, brelan.barred_by, brelan.joker, brelan.yams_bonus) == (
        0,
        "vache",
        True,
        100,
    )
    assert state.sheets[1].yams_bonus == 100


def test_yams_6_with_the_joker():
    rules = Rules(dice=6)
    state = play(rules, ["Mag"], [("yams", (5, 5, 5, 5, 5, 1))])
    assert cell(state, "yams").points == 50
    placement = state.placement(0, "free", (3, 3, 3, 3, 3, 6))
    assert placement.boxes == ("threes",)
    state = state.play(Entry(0, "free", "threes", (3, 3, 3, 3, 3, 6)))
    assert (cell(state, "threes").points, cell(state, "threes").yams_bonus) == (15, 100)
    with pytest.raises(RuleError, match="il en faut 6, pas 5"):
        state.play(Entry(0, "free", "chance", (1, 2, 3, 4, 5)))


def test_six_dice_in_a_five_dice_game_are_refused():
    with pytest.raises(RuleError, match="Trop de dés : il en faut 5, pas 6"):
        solo([("chance", (1, 2, 3, 4, 5, 6))])


def test_sec_column_is_free_order():
    rules = Rules.from_dict({"columns": ["free", "sec"]})
    state = GameState.start(rules, ["Mag"])
    assert len(state.placement(0, "sec", (1, 2, 3, 4, 5)).boxes) == 13
    assert rules.turns_per_player == 26
