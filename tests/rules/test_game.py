"""Turns, totals, bonus progress, end of game and ranking."""

import pytest

from scorekeeper.rules import Entry, GameState, IllegalEntry, RuleError, Rules, replay

from .helpers import cell, play, solo


def test_players_play_in_seat_order():
    state = GameState.start(Rules(), ["Mag", "Alix", "Zoé"])
    assert state.active_player == 0
    state = state.play(Entry(0, "free", "chance", (1, 2, 3, 4, 5)))
    assert state.active_player == 1
    with pytest.raises(RuleError) as caught:
        state.play(Entry(0, "free", "sixes", (6, 6, 6, 6, 6)))
    assert "c'est à Alix de jouer" in str(caught.value)


def test_a_filled_box_is_refused_even_when_it_holds_zero():
    state = solo([("yams", (1, 2, 3, 4, 5))])
    assert cell(state, "yams").points == 0
    with pytest.raises(RuleError, match="déjà remplie"):
        state.play(Entry(0, "free", "yams", (3, 3, 3, 3, 3)))


def test_unknown_box_and_column_are_named():
    state = GameState.start(Rules(), ["Mag"])
    with pytest.raises(RuleError, match="« plus »"):
        state.play(Entry(0, "free", "plus", (1, 2, 3, 4, 5)))
    with pytest.raises(RuleError, match="« up »"):
        state.play(Entry(0, "up", "ones", (1, 2, 3, 4, 5)))


def test_upper_bonus_and_its_progress():
    state = solo([("sixes", (6, 6, 6, 6, 2)), ("ones", (1, 2, 3, 4, 5))])
    column = state.sheets[0].columns["free"]
    assert column.upper == 25
    assert column.bonus_missing == 38
    assert column.bonus_balance == (24 - 18) + (1 - 3)
    state = solo(
        [
            ("ones", (1, 1, 1, 2, 2)),
            ("twos", (2, 2, 2, 1, 1)),
            ("threes", (3, 3, 3, 1, 1)),
            ("fours", (4, 4, 4, 1, 1)),
            ("fives", (5, 5, 5, 1, 1)),
            ("sixes", (6, 6, 6, 1, 1)),
        ]
    )
    column = state.sheets[0].columns["free"]
    assert (column.upper, column.bonus_missing, column.bonus_balance) == (63, 0, 0)
    assert column.upper_bonus == 35
    assert state.sheets[0].total == 98


def test_whole_game_ends_and_ranks_with_ties():
    boxes = Rules().boxes
    turns = []
    for box in boxes:
        turns += [(box, (1, 2, 3, 4, 6)), (box, (1, 2, 3, 4, 6)), (box, (6, 6, 6, 6, 6))]
    state = play(Rules(), ["Mag", "Alix", "Zoé"], turns)
    assert state.is_over and state.active_player is None
    ranking = state.ranking()
    assert [(s.rank, s.name) for s in ranking] == [(1, "Zoé"), (2, "Mag"), (2, "Alix")]
    with pytest.raises(RuleError, match="terminée"):
        state.play(Entry(0, "free", "ones", (1, 1, 1, 1, 1)))


def test_replay_names_the_first_illegal_entry():
    entries = [
        Entry(0, "free", "sixes", (6, 6, 6, 6, 2)),
        Entry(0, "free", "fives", (5, 5, 5, 5, 2)),
    ]
    with pytest.raises(IllegalEntry) as caught:
        replay(Rules(), ["Mag", "Alix"], entries)
    assert caught.value.number == 2


@pytest.mark.parametrize(
    ("players", "fragment"),
    [
        ([], "de 1 à 10 joueurs"),
        ([f"J{i}" for i in range(11)], "pas 11"),
        (["Mag", "mag"], "« mag »"),
        (["x" * 41], "dépasse 40"),
        ([""], "besoin d'un nom"),
        (["Ma\u200bg"], "invisibles"),
    ],
)
def test_bad_player_lists(players, fragment):
    with pytest.raises(RuleError) as caught:
        GameState.start(Rules(), players)
    assert fragment in str(caught.value)


def test_names_are_any_printable_unicode():
    state = GameState.start(Rules(), ["Zoé 🎲", "李", "x" * 40])
    assert state.players == ("Zoé 🎲", "李", "x" * 40)


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"colour": "red"}, "« colour »"),
        ({"preset": "farkle"}, "« farkle »"),
        ({"four_kind": "sum40"}, "« sum40 »"),
        ({"dice": 7}, "« 7 »"),
        ({"vache": "yes"}, "« vache »"),
        ({"columns": ["free", "diagonal"]}, "« diagonal »"),
        ({"columns": []}, "columns"),
        ({"columns": ["up", "up"]}, "deux fois"),
        ({"preset": "yatzy", "joker": "free"}, "« joker »"),
        ({"preset": "kniffel", "joker": "free"}, "« joker »"),
        ({"preset": "yahtzee", "four_kind": "fixed40"}, "« four_kind »"),
        ({"preset": "yahtzee", "dice": 6}, "« dice »"),
        ("classique", "objet JSON"),
    ],
)
def test_bad_options_are_named(options, fragment):
    with pytest.raises(RuleError) as caught:
        Rules.from_dict(options)
    assert fragment in str(caught.value)


def test_rules_round_trip_through_their_dict():
    for options in (
        {},
        {"preset": "triple"},
        {"preset": "yatzy", "vache": True},
        {
            "columns": ["sec", "up", "down", "free"],
            "dice": 6,
            "plus_minus": True,
            "joker": "free",
            "four_kind": "base",
            "yams_bonus": False,
        },
    ):
        rules = Rules.from_dict(options)
        assert Rules.from_dict(rules.to_dict()) == rules


def test_triple_is_39_turns_and_52_with_sec():
    assert Rules.from_dict({"preset": "triple"}).turns_per_player == 39
    assert (
        Rules.from_dict(
            {"preset": "triple", "columns": ["down", "up", "free", "sec"]}
        ).turns_per_player
        == 52
    )
    assert Rules.from_dict({"preset": "triple"}).columns == ("down", "up", "free")


def test_messages_translate_their_labels():
    state = solo([("yams", (6, 6, 6, 6, 6))])
    error = state.placement(0, "free", (4, 4, 4, 4, 4)).forced
    english = {
        "Quatre": "Fours",
        "Joker : ce {yams} doit aller dans la case {forced_box}.": (
            "Joker: this {yams} must go in {forced_box}."
        ),
    }
    assert error.render(lambda text: english.get(text, text)) == (
        "Joker: this Yams must go in Fours."
    )


def refusal_text(state, kind, box, dice=None):
    refusal = state.refusal(0, kind, box, dice)
    return None if refusal is None else str(refusal)


def test_a_refused_box_says_why_in_a_few_words():
    state = solo(
        [("free", "sixes", (6, 6, 6, 6, 2)), ("down", "ones", (1, 1, 1, 2, 3))], preset="triple"
    )
    assert refusal_text(state, "free", "sixes") == "Six : déjà remplie"
    assert refusal_text(state, "down", "fours") == "Colonne Descendante : d'abord Deux"
    assert refusal_text(state, "up", "ones") == "Colonne Montante : d'abord Chance"
    assert refusal_text(state, "down", "twos") is None
    assert refusal_text(state, "free", "chance", (1, 2, 3, 4, 5)) is None
    assert refusal_text(state, "free", "nope") is None  # score() names what is unknown


def test_the_joker_says_which_box_it_imposes():
    state = solo([("yams", (6, 6, 6, 6, 6))])
    assert refusal_text(state, "free", "chance", (3, 3, 3, 3, 3)) == (
        "Le joker impose la case Trois"
    )
    assert refusal_text(state, "free", "threes", (3, 3, 3, 3, 3)) is None
    state = solo([("yams", (6, 6, 6, 6, 6)), ("threes", (3, 3, 1, 2, 4))])
    assert refusal_text(state, "free", "ones", (3, 3, 3, 3, 3)) == (
        "Le joker impose une case du bas"
    )
    lower = ["three_kind", "four_kind", "full_house", "small_straight", "large_straight", "chance"]
    state = solo(
        [
            ("yams", (6, 6, 6, 6, 6)),
            ("threes", (3, 3, 1, 2, 4)),
            *[(box, (1, 2, 3, 4, 6)) for box in lower],
        ]
    )
    assert refusal_text(state, "free", "ones", (3, 3, 3, 3, 3)) is None
    assert refusal_text(state, "free", "threes", (3, 3, 3, 3, 3)) == "Trois : déjà remplie"


@pytest.mark.parametrize("options", [{}, {"preset": "triple"}, {"joker": "free"}])
def test_a_box_is_refused_exactly_when_score_refuses_it(options):
    """The short line and the full sentence never disagree, for every box and some rolls."""
    rules = Rules.from_dict(options)
    second = (
        ("down", "ones", (1, 1, 2, 3, 4))
        if "down" in rules.columns
        else ("free", "fives", (5, 5, 1, 2, 3))
    )
    state = solo([("free", "yams", (5, 5, 5, 5, 5)), second], **options)
    for dice in [(2, 2, 2, 2, 2), (5, 5, 5, 5, 5), (1, 2, 3, 4, 5), (6, 6, 6, 1, 1)]:
        for kind in rules.columns:
            for box in rules.boxes:
                refused = state.refusal(0, kind, box, dice) is not None
                try:
                    state.score(Entry(0, kind, box, dice))
                except RuleError:
                    assert refused, (kind, box, dice)
                else:
                    assert not refused, (kind, box, dice)
