"""Games, players and the log of entries, through the Store's public API."""

import threading
from datetime import UTC

import pytest
from sqlalchemy import event, func, select

from scorekeeper.store import (
    FINISHED,
    HOME_HOUSEHOLD,
    IN_PROGRESS,
    EntryRecord,
    GameNotFound,
    InvalidPlayers,
    NothingToUndo,
    StaleSheet,
    Store,
)
from scorekeeper.store.households import create_household
from scorekeeper.store.schema import entries, players
from tests.support.threads import WAIT_SECONDS, joined

RULES = {"preset": "classique", "columns": ["free"], "yams_bonus": True}


def entry(seq, seat=0, box="sixes", dice=(6, 6, 6, 5, 3), score=18, column="free"):
    return EntryRecord(seq=seq, seat=seat, column=column, box=box, dice=dice, score=score)


def count_rows(store, table):
    with store.engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(table))


def test_create_game_stores_rules_players_and_an_empty_log(store):
    game_id = store.create_game(RULES, ["Alice", "Bob"], household=HOME_HOUSEHOLD)

    game = store.load_game(game_id, household=HOME_HOUSEHOLD)

    assert game.id == game_id
    assert game.rules == RULES
    assert game.players == ("Alice", "Bob")
    assert game.entries == ()
    assert game.status == IN_PROGRESS
    assert game.finished_at is None
    assert game.created_at.tzinfo == UTC
    assert game.updated_at == game.created_at


def test_load_game_of_an_unknown_id_is_none(store):
    assert store.load_game(404, household=HOME_HOUSEHOLD) is None


def test_a_name_ignoring_case_is_the_same_player(store):
    first = store.create_game(RULES, ["Éloïse", "Bob"], household=HOME_HOUSEHOLD)
    second = store.create_game(RULES, ["ÉLOÏSE  "], household=HOME_HOUSEHOLD)

    assert count_rows(store, players) == 2
    assert store.load_game(first, household=HOME_HOUSEHOLD).players == ("Éloïse", "Bob")
    assert store.load_game(second, household=HOME_HOUSEHOLD).players == ("ÉLOÏSE",)
    with store.engine.connect() as connection:
        assert connection.scalars(select(players.c.name).order_by(players.c.id)).all() == [
            "Éloïse",
            "Bob",
        ]


@pytest.mark.parametrize(
    "names",
    [[], [""], ["   "], ["x" * 41], ["Alice", "alice"]],
    ids=["none", "empty", "blank", "too-long", "twice"],
)
def test_create_game_refuses_bad_names_and_stores_nothing(store, names):
    with pytest.raises(InvalidPlayers):
        store.create_game(RULES, names, household=HOME_HOUSEHOLD)
    assert store.games_in_progress(household=HOME_HOUSEHOLD) == []
    assert count_rows(store, players) == 0


def test_add_entry_appends_to_the_log(store):
    game_id = store.create_game(RULES, ["Alice", "Bob"], household=HOME_HOUSEHOLD)

    store.add_entry(game_id, 0, entry(0, seat=0), finished=False, household=HOME_HOUSEHOLD)
    store.add_entry(
        game_id,
        1,
        entry(1, seat=1, box="chance", dice=(1, 2, 3, 4, 6), score=16),
        finished=False,
        household=HOME_HOUSEHOLD,
    )

    game = store.load_game(game_id, household=HOME_HOUSEHOLD)
    assert game.entries == (
        entry(0, seat=0),
        entry(1, seat=1, box="chance", dice=(1, 2, 3, 4, 6), score=16),
    )
    assert game.updated_at > game.created_at
    assert game.status == IN_PROGRESS


@pytest.mark.parametrize("expected_seq", [0, 2])
def test_add_entry_on_a_stale_sequence_changes_nothing(store, expected_seq):
    game_id = store.create_game(RULES, ["Alice"], household=HOME_HOUSEHOLD)
    store.add_entry(game_id, 0, entry(0), finished=False, household=HOME_HOUSEHOLD)
    before = store.load_game(game_id, household=HOME_HOUSEHOLD)

    with pytest.raises(StaleSheet):
        store.add_entry(
            game_id,
            expected_seq,
            entry(expected_seq, box="ones"),
            finished=True,
            household=HOME_HOUSEHOLD,
        )

    assert store.load_game(game_id, household=HOME_HOUSEHOLD) == before


def test_add_entry_whose_seq_differs_from_the_expected_one_is_stale(store):
    game_id = store.create_game(RULES, ["Alice"], household=HOME_HOUSEHOLD)
    with pytest.raises(StaleSheet):
        store.add_entry(game_id, 0, entry(1), finished=False, household=HOME_HOUSEHOLD)
    assert store.load_game(game_id, household=HOME_HOUSEHOLD).entries == ()


def test_finishing_entry_marks_the_game_finished_and_undo_reopens_it(store):
    game_id = store.create_game(RULES, ["Alice"], household=HOME_HOUSEHOLD)
    store.add_entry(game_id, 0, entry(0), finished=True, household=HOME_HOUSEHOLD)

    finished = store.load_game(game_id, household=HOME_HOUSEHOLD)
    assert finished.status == FINISHED
    assert finished.finished_at is not None
    assert store.games_in_progress(household=HOME_HOUSEHOLD) == []

    assert store.undo_entry(game_id, 1, household=HOME_HOUSEHOLD) == entry(0)

    reopened = store.load_game(game_id, household=HOME_HOUSEHOLD)
    assert reopened.status == IN_PROGRESS
    assert reopened.finished_at is None
    assert reopened.entries == ()


def test_undo_removes_only_the_last_entry(store):
    game_id = store.create_game(RULES, ["Alice", "Bob"], household=HOME_HOUSEHOLD)
    store.add_entry(game_id, 0, entry(0, seat=0), finished=False, household=HOME_HOUSEHOLD)
    store.add_entry(
        game_id,
        1,
        entry(1, seat=1, box="yams", dice=(2,) * 5, score=50),
        False,
        household=HOME_HOUSEHOLD,
    )

    undone = store.undo_entry(game_id, 2, household=HOME_HOUSEHOLD)

    assert undone == entry(1, seat=1, box="yams", dice=(2,) * 5, score=50)
    assert store.load_game(game_id, household=HOME_HOUSEHOLD).entries == (entry(0, seat=0),)


@pytest.mark.parametrize("expected_seq", [0, 1, 3])
def test_undo_on_a_stale_sequence_changes_nothing(store, expected_seq):
    game_id = store.create_game(RULES, ["Alice"], household=HOME_HOUSEHOLD)
    store.add_entry(game_id, 0, entry(0), finished=False, household=HOME_HOUSEHOLD)
    store.add_entry(
        game_id,
        1,
        entry(1, box="fives", dice=(5, 5, 1, 2, 3), score=10),
        False,
        household=HOME_HOUSEHOLD,
    )
    before = store.load_game(game_id, household=HOME_HOUSEHOLD)

    with pytest.raises(StaleSheet):
        store.undo_entry(game_id, expected_seq, household=HOME_HOUSEHOLD)

    assert store.load_game(game_id, household=HOME_HOUSEHOLD) == before


def test_undo_of_an_empty_log_is_nothing_to_undo(store):
    game_id = store.create_game(RULES, ["Alice"], household=HOME_HOUSEHOLD)
    with pytest.raises(NothingToUndo):
        store.undo_entry(game_id, 0, household=HOME_HOUSEHOLD)


def test_undo_from_a_sheet_that_showed_entries_on_an_emptied_log_is_stale(store):
    game_id = store.create_game(RULES, ["Alice"], household=HOME_HOUSEHOLD)
    store.add_entry(game_id, 0, entry(0), finished=False, household=HOME_HOUSEHOLD)
    store.undo_entry(game_id, 1, household=HOME_HOUSEHOLD)
    with pytest.raises(StaleSheet):
        store.undo_entry(game_id, 1, household=HOME_HOUSEHOLD)


def test_unknown_game_is_reported(store):
    with pytest.raises(GameNotFound):
        store.add_entry(404, 0, entry(0), finished=False, household=HOME_HOUSEHOLD)
    with pytest.raises(GameNotFound):
        store.undo_entry(404, 1, household=HOME_HOUSEHOLD)


def test_dice_must_be_faces_of_a_die(store):
    game_id = store.create_game(RULES, ["Alice"], household=HOME_HOUSEHOLD)
    with pytest.raises(ValueError):
        store.add_entry(
            game_id, 0, entry(0, dice=(6, 6, 7, 1, 1)), finished=False, household=HOME_HOUSEHOLD
        )
    assert store.load_game(game_id, household=HOME_HOUSEHOLD).entries == ()


def test_six_dice_round_trip(store):
    game_id = store.create_game({"dice": 6}, ["Alice"], household=HOME_HOUSEHOLD)
    store.add_entry(
        game_id, 0, entry(0, dice=(6, 6, 6, 6, 6, 1), score=30), False, household=HOME_HOUSEHOLD
    )
    assert store.load_game(game_id, household=HOME_HOUSEHOLD).entries[0].dice == (6, 6, 6, 6, 6, 1)


def test_racing_submissions_of_the_same_turn_write_one_entry(store):
    game_id = store.create_game(RULES, ["Alice"], household=HOME_HOUSEHOLD)
    start = threading.Barrier(2)
    outcomes = []

    def submit(box):
        start.wait(timeout=WAIT_SECONDS)
        try:
            store.add_entry(game_id, 0, entry(0, box=box), finished=False, household=HOME_HOUSEHOLD)
            outcomes.append("written")
        except StaleSheet:
            outcomes.append("stale")

    threads = [threading.Thread(target=submit, args=(box,)) for box in ("sixes", "chance")]
    for thread in threads:
        thread.start()
    joined(threads)

    assert sorted(outcomes) == ["stale", "written"]
    assert len(store.load_game(game_id, household=HOME_HOUSEHOLD).entries) == 1


def test_unique_sequence_violation_is_a_stale_sheet_and_keeps_one_entry(store, monkeypatch):
    """The last guard: a racer that counted before the other's insert was visible."""
    game_id = store.create_game(RULES, ["Alice"], household=HOME_HOUSEHOLD)
    store.add_entry(game_id, 0, entry(0, box="sixes"), finished=False, household=HOME_HOUSEHOLD)
    monkeypatch.setattr(Store, "_entry_count", staticmethod(lambda connection, game_id: 0))

    with pytest.raises(StaleSheet):
        store.add_entry(game_id, 0, entry(0, box="chance"), finished=True, household=HOME_HOUSEHOLD)

    monkeypatch.undo()
    game = store.load_game(game_id, household=HOME_HOUSEHOLD)
    assert [e.box for e in game.entries] == ["sixes"]
    assert game.status == IN_PROGRESS
    assert count_rows(store, entries) == 1


def test_games_in_progress_lists_the_most_recently_played_first(store):
    older = store.create_game(RULES, ["Alice", "Bob"], household=HOME_HOUSEHOLD)
    newer = store.create_game(RULES, ["Chloé"], household=HOME_HOUSEHOLD)
    done = store.create_game(RULES, ["Dan"], household=HOME_HOUSEHOLD)
    store.add_entry(done, 0, entry(0), finished=True, household=HOME_HOUSEHOLD)
    store.add_entry(older, 0, entry(0), finished=False, household=HOME_HOUSEHOLD)

    summaries = store.games_in_progress(household=HOME_HOUSEHOLD)

    assert [s.id for s in summaries] == [older, newer]
    assert summaries[0].players == ("Alice", "Bob")
    assert summaries[0].entry_count == 1
    assert summaries[1].players == ("Chloé",)
    assert summaries[1].entry_count == 0
    assert summaries[0].updated_at > summaries[0].created_at


def test_games_in_progress_are_paged_and_counted_within_their_household(store):
    other = create_household(store, "Les Voisins", "hash")
    mine = [store.create_game(RULES, ["Alice"], household=HOME_HOUSEHOLD) for _ in range(3)]
    theirs = store.create_game(RULES, ["Alice"], household=other)

    assert store.count_games_in_progress(household=HOME_HOUSEHOLD) == 3
    assert store.count_games_in_progress(household=other) == 1
    first_page = store.games_in_progress(household=HOME_HOUSEHOLD, limit=2)
    assert [s.id for s in first_page] == [mine[2], mine[1]]
    second_page = store.games_in_progress(household=HOME_HOUSEHOLD, offset=2, limit=2)
    assert [s.id for s in second_page] == [mine[0]]
    assert [s.id for s in store.games_in_progress(household=other)] == [theirs]
    assert store.games_in_progress(household=other, offset=1) == []


def test_a_game_is_read_as_one_state_while_an_entry_is_written(store):
    """The game's row, its players and its log are read in one state of the database: an
    entry written between two of those reads would give a version that never was (the new
    log with the old ``updated_at``), whose sheet every tap would then find outdated."""
    game_id = store.create_game(RULES, ["Alice", "Bob"], household=HOME_HOUSEHOLD)
    store.add_entry(game_id, 0, entry(0), finished=False, household=HOME_HOUSEHOLD)
    before = store.load_game(game_id, household=HOME_HOUSEHOLD).version
    written = []

    def write_between_the_reads(connection, cursor, statement, parameters, context, many):
        # Once, as the log is about to be read, from another connection and thread.
        if not written and "FROM entries" in statement and "ORDER BY" in statement:
            written.append(True)
            writer = threading.Thread(
                target=store.add_entry,
                args=(game_id, 1, entry(1, seat=1, box="fives", dice=(5, 5, 5, 2, 1), score=15)),
                kwargs={"finished": False, "household": HOME_HOUSEHOLD},
            )
            writer.start()
            joined([writer], seconds=WAIT_SECONDS)

    event.listen(store.engine, "before_cursor_execute", write_between_the_reads)
    try:
        read = store.load_game(game_id, household=HOME_HOUSEHOLD)
    finally:
        event.remove(store.engine, "before_cursor_execute", write_between_the_reads)
    after = store.load_game(game_id, household=HOME_HOUSEHOLD).version
    assert written and len(read.entries) in (1, 2)
    assert after != before
    assert read.version in (before, after), read.version
