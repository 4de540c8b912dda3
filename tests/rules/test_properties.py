"""Random legal games under random option sets (Hypothesis)."""

from hypothesis import given, settings
from hypothesis import strategies as st

from scorekeeper.rules import (
    UPPER_BOXES,
    Entry,
    GameState,
    Rules,
    read_document,
    replay,
    score,
    write_document,
)

COLUMN_SETS = [
    ["free"],
    ["down"],
    ["up"],
    ["sec"],
    ["free", "down", "up"],
    ["free", "sec"],
    ["free", "down", "up", "sec"],
]


@st.composite
def rule_sets(draw):
    if draw(st.booleans()) and draw(st.booleans()):
        return Rules.from_dict(
            {
                "preset": "yatzy",
                "vache": draw(st.booleans()),
                "columns": draw(st.sampled_from(COLUMN_SETS)),
            }
        )
    return Rules.from_dict(
        {
            "vache": draw(st.booleans()),
            "four_kind": draw(st.sampled_from(["sum", "fixed40", "base", "matching"])),
            "three_kind": draw(st.sampled_from(["sum", "base", "matching"])),
            "full_house": draw(st.sampled_from(["fixed25", "base"])),
            "yams_bonus": draw(st.booleans()),
            "joker": draw(st.sampled_from(["official", "free"])),
            "plus_minus": draw(st.booleans()),
            "columns": draw(st.sampled_from(COLUMN_SETS)),
            "dice": draw(st.sampled_from([5, 6])),
        }
    )


# Yams come often enough to exercise the joker and the +100.
def dice_for(count):
    face = st.integers(1, 6)
    anything = st.tuples(*[face] * count)
    yams = face.map(lambda f: (f,) * count)
    return st.one_of(anything, anything, yams)


@st.composite
def legal_games(draw):
    rules = draw(rule_sets())
    players = [f"P{i}" for i in range(draw(st.integers(1, 3)))]
    state = GameState.start(rules, players)
    turns = draw(st.integers(0, len(players) * rules.turns_per_player))
    for _ in range(turns):
        dice = draw(dice_for(rules.dice))
        options = sorted(state.preview(dice))
        column, box = draw(st.sampled_from(options))
        state = state.play(Entry(state.active_player, column, box, dice))
    return state


def check_totals(state):
    for sheet in state.sheets:
        parts = 0
        for column in sheet.columns.values():
            upper = sum(c.points for b, c in column.cells.items() if b in UPPER_BOXES)
            lower = sum(c.points for b, c in column.cells.items() if b not in UPPER_BOXES)
            bonuses = sum(c.yams_bonus for c in column.cells.values())
            assert column.upper == upper and column.lower == lower
            assert column.upper_bonus == (state.rules.upper_bonus if upper >= 63 else 0)
            assert column.total == upper + column.upper_bonus + lower + bonuses
            parts += column.total
        assert sheet.total == parts
        assert sheet.total == sheet.upper + sheet.upper_bonus + sheet.lower + sheet.yams_bonus


@settings(max_examples=60, deadline=None)
@given(legal_games())
def test_totals_equal_the_sum_of_their_parts(state):
    check_totals(state)


@settings(max_examples=60, deadline=None)
@given(legal_games())
def test_every_cell_is_its_formula_or_barred(state):
    for sheet in state.sheets:
        for column in sheet.columns.values():
            for box, cell in column.cells.items():
                formula = score(state.rules, box, cell.dice, joker=cell.joker)
                assert cell.points in (0, formula)
                assert (cell.points == 0) == (cell.barred_by is not None)
                assert cell.yams_bonus in (0, 100)


@settings(max_examples=60, deadline=None)
@given(legal_games())
def test_replay_is_deterministic_and_undo_then_redo_is_the_same(state):
    again = replay(state.rules, state.players, state.entries)
    assert [s.total for s in again.sheets] == [s.total for s in state.sheets]
    assert again.sheets == state.sheets
    if state.entries:
        undone = replay(state.rules, state.players, state.entries[:-1])
        assert undone.active_player == state.entries[-1].player
        redone = undone.play(state.entries[-1])
        assert redone.sheets == state.sheets


@settings(max_examples=40, deadline=None)
@given(legal_games())
def test_documents_round_trip(state):
    again = read_document(write_document(state)).replay()
    assert again.sheets == state.sheets


@settings(max_examples=30, deadline=None)
@given(legal_games())
def test_a_finished_game_has_every_box_filled(state):
    assert state.is_over == all(sheet.is_full for sheet in state.sheets)
    if state.is_over:
        ranks = [s.rank for s in state.ranking()]
        assert ranks[0] == 1 and ranks == sorted(ranks)
