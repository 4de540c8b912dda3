"""Games, players and the log of entries, through the store's functions of games."""

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
)
from scorekeeper.store.games import (
    add_entry,
    count_games_in_progress,
    create_game,
    games_in_progress,
    load_game,
    undo_entry,
)
from scorekeeper.store.households import create_household
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.store.schema import entries, players
from tests.support.games import append_entry
from tests.support.threads import WAIT_SECONDS, joined

RULES = {"preset": "classique", "columns": ["free"], "yams_bonus": True}


def entry(seq, seat=0, box="sixes", dice=(6, 6, 6, 5, 3), score=18, column="free"):
    return EntryRecord(seq=seq, seat=seat, column=column, box=box, dice=dice, score=score)


def count_rows(store, table):
    with store.engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(table))


def test_create_game_stores_rules_players_and_an_empty_log(store):
    game_id = create_game(
        store, RULES, ["Alice", "Bob"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
    )

    game = load_game(store, game_id, household=HOME_HOUSEHOLD)

    assert game.id == game_id
    assert game.rules == RULES
    assert game.players == ("Alice", "Bob")
    assert game.entries == ()
    assert game.status == IN_PROGRESS
    assert game.finished_at is None
    assert game.created_at.tzinfo == UTC
    assert game.updated_at == game.created_at


def test_load_game_of_an_unknown_id_is_none(store):
    assert load_game(store, 404, household=HOME_HOUSEHOLD) is None


def test_a_name_ignoring_case_is_the_same_player(store):
    first = create_game(store, RULES, ["Éloïse", "Bob"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    second = create_game(store, RULES, ["ÉLOÏSE  "], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)

    assert count_rows(store, players) == 2
    assert load_game(store, first, household=HOME_HOUSEHOLD).players == ("Éloïse", "Bob")
    assert load_game(store, second, household=HOME_HOUSEHOLD).players == ("ÉLOÏSE",)
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
        create_game(store, RULES, names, household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    assert games_in_progress(store, household=HOME_HOUSEHOLD) == []
    assert count_rows(store, players) == 0


def seen(store, game_id):
    """The version of the game a writer replayed: its ``updated_at``."""
    return load_game(store, game_id, household=HOME_HOUSEHOLD).updated_at


def take_back(store, game_id):
    """The last entry of the game as it is now taken back."""
    game = load_game(store, game_id, household=HOME_HOUSEHOLD)
    return undo_entry(
        store, game_id, len(game.entries), seen_at=game.updated_at, household=HOME_HOUSEHOLD
    )


def test_add_entry_appends_to_the_log(store):
    game_id = create_game(
        store, RULES, ["Alice", "Bob"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
    )

    append_entry(store, game_id, entry(0, seat=0))
    append_entry(store, game_id, entry(1, seat=1, box="chance", dice=(1, 2, 3, 4, 6), score=16))

    game = load_game(store, game_id, household=HOME_HOUSEHOLD)
    assert game.entries == (
        entry(0, seat=0),
        entry(1, seat=1, box="chance", dice=(1, 2, 3, 4, 6), score=16),
    )
    assert game.updated_at > game.created_at
    assert game.status == IN_PROGRESS


def test_add_entry_on_a_game_changed_since_its_writer_read_it_changes_nothing(store):
    game_id = create_game(store, RULES, ["Alice"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    read_before = seen(store, game_id)
    append_entry(store, game_id, entry(0))
    before = load_game(store, game_id, household=HOME_HOUSEHOLD)

    with pytest.raises(StaleSheet):
        add_entry(
            store,
            game_id,
            entry(1, box="ones"),
            seen_at=read_before,
            finished=True,
            household=HOME_HOUSEHOLD,
        )

    assert load_game(store, game_id, household=HOME_HOUSEHOLD) == before


def test_finishing_entry_marks_the_game_finished_and_undo_reopens_it(store):
    game_id = create_game(store, RULES, ["Alice"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    append_entry(store, game_id, entry(0), finished=True)

    finished = load_game(store, game_id, household=HOME_HOUSEHOLD)
    assert finished.status == FINISHED
    assert finished.finished_at is not None
    assert games_in_progress(store, household=HOME_HOUSEHOLD) == []

    assert take_back(store, game_id) == entry(0)

    reopened = load_game(store, game_id, household=HOME_HOUSEHOLD)
    assert reopened.status == IN_PROGRESS
    assert reopened.finished_at is None
    assert reopened.entries == ()


def test_undo_removes_only_the_last_entry(store):
    game_id = create_game(
        store, RULES, ["Alice", "Bob"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
    )
    append_entry(store, game_id, entry(0, seat=0))
    append_entry(store, game_id, entry(1, seat=1, box="yams", dice=(2,) * 5, score=50))

    undone = take_back(store, game_id)

    assert undone == entry(1, seat=1, box="yams", dice=(2,) * 5, score=50)
    assert load_game(store, game_id, household=HOME_HOUSEHOLD).entries == (entry(0, seat=0),)


def test_undo_on_a_game_changed_since_changes_nothing(store):
    game_id = create_game(store, RULES, ["Alice"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    append_entry(store, game_id, entry(0))
    read_before = seen(store, game_id)
    append_entry(store, game_id, entry(1, box="fives", dice=(5, 5, 1, 2, 3), score=10))
    before = load_game(store, game_id, household=HOME_HOUSEHOLD)

    with pytest.raises(StaleSheet):
        undo_entry(store, game_id, 1, seen_at=read_before, household=HOME_HOUSEHOLD)

    assert load_game(store, game_id, household=HOME_HOUSEHOLD) == before


def test_undo_of_an_empty_log_is_nothing_to_undo(store):
    game_id = create_game(store, RULES, ["Alice"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    with pytest.raises(NothingToUndo):
        take_back(store, game_id)


def test_undo_from_a_sheet_that_showed_entries_on_an_emptied_log_is_stale(store):
    game_id = create_game(store, RULES, ["Alice"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    append_entry(store, game_id, entry(0))
    shown = seen(store, game_id)
    take_back(store, game_id)
    with pytest.raises(StaleSheet):
        undo_entry(store, game_id, 1, seen_at=shown, household=HOME_HOUSEHOLD)


def test_unknown_game_is_reported(store):
    game_id = create_game(store, RULES, ["Alice"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    some_time = seen(store, game_id)
    with pytest.raises(GameNotFound):
        add_entry(store, 404, entry(0), seen_at=some_time, household=HOME_HOUSEHOLD)
    with pytest.raises(GameNotFound):
        undo_entry(store, 404, 1, seen_at=some_time, household=HOME_HOUSEHOLD)


def test_dice_must_be_faces_of_a_die(store):
    game_id = create_game(store, RULES, ["Alice"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    with pytest.raises(ValueError):
        append_entry(store, game_id, entry(0, dice=(6, 6, 7, 1, 1)))
    assert load_game(store, game_id, household=HOME_HOUSEHOLD).entries == ()


def test_six_dice_round_trip(store):
    game_id = create_game(store, {"dice": 6}, ["Alice"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    append_entry(store, game_id, entry(0, dice=(6, 6, 6, 6, 6, 1), score=30))
    assert load_game(store, game_id, household=HOME_HOUSEHOLD).entries[0].dice == (6, 6, 6, 6, 6, 1)


def test_racing_submissions_of_the_same_turn_write_one_entry(store):
    game_id = create_game(store, RULES, ["Alice"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    read = seen(store, game_id)
    start = threading.Barrier(2)
    outcomes = []

    def submit(box):
        start.wait(timeout=WAIT_SECONDS)
        try:
            add_entry(store, game_id, entry(0, box=box), seen_at=read, household=HOME_HOUSEHOLD)
            outcomes.append("written")
        except StaleSheet:
            outcomes.append("stale")

    threads = [threading.Thread(target=submit, args=(box,)) for box in ("sixes", "chance")]
    for thread in threads:
        thread.start()
    joined(threads)

    assert sorted(outcomes) == ["stale", "written"]
    assert len(load_game(store, game_id, household=HOME_HOUSEHOLD).entries) == 1


def test_unique_sequence_violation_is_a_stale_sheet_and_keeps_one_entry(store):
    """The last guard: an entry of a number the log has already, on the game's version."""
    game_id = create_game(store, RULES, ["Alice"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    append_entry(store, game_id, entry(0, box="sixes"))

    with pytest.raises(StaleSheet):
        append_entry(store, game_id, entry(0, box="chance"), finished=True)

    game = load_game(store, game_id, household=HOME_HOUSEHOLD)
    assert [e.box for e in game.entries] == ["sixes"]
    assert game.status == IN_PROGRESS
    assert count_rows(store, entries) == 1


def test_games_in_progress_lists_the_most_recently_played_first(store):
    older = create_game(store, RULES, ["Alice", "Bob"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    newer = create_game(store, RULES, ["Chloé"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    done = create_game(store, RULES, ["Dan"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    append_entry(store, done, entry(0), finished=True)
    append_entry(store, older, entry(0))

    summaries = games_in_progress(store, household=HOME_HOUSEHOLD)

    assert [s.id for s in summaries] == [older, newer]
    assert summaries[0].players == ("Alice", "Bob")
    assert summaries[0].entry_count == 1
    assert summaries[1].players == ("Chloé",)
    assert summaries[1].entry_count == 0
    assert summaries[0].updated_at > summaries[0].created_at


def test_games_in_progress_are_paged_and_counted_within_their_household(store):
    other = create_household(store, "Les Voisins", "hash")
    mine = [
        create_game(store, RULES, ["Alice"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
        for _ in range(3)
    ]
    theirs = create_game(store, RULES, ["Alice"], household=other, quotas=NO_QUOTAS)

    assert count_games_in_progress(store, household=HOME_HOUSEHOLD) == 3
    assert count_games_in_progress(store, household=other) == 1
    first_page = games_in_progress(store, household=HOME_HOUSEHOLD, limit=2)
    assert [s.id for s in first_page] == [mine[2], mine[1]]
    second_page = games_in_progress(store, household=HOME_HOUSEHOLD, offset=2, limit=2)
    assert [s.id for s in second_page] == [mine[0]]
    assert [s.id for s in games_in_progress(store, household=other)] == [theirs]
    assert games_in_progress(store, household=other, offset=1) == []


def test_a_game_is_read_as_one_state_while_an_entry_is_written(store):
    """The game's row, its players and its log are read in one state of the database: an
    entry written between two of those reads would give a version that never was (the new
    log with the old ``updated_at``), whose sheet every tap would then find outdated."""
    game_id = create_game(
        store, RULES, ["Alice", "Bob"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
    )
    append_entry(store, game_id, entry(0))
    before = load_game(store, game_id, household=HOME_HOUSEHOLD)
    written = []

    def write_between_the_reads(connection, cursor, statement, parameters, context, many):
        # Once, as the log is about to be read, from another connection and thread.
        if not written and "FROM entries" in statement and "ORDER BY" in statement:
            written.append(True)
            writer = threading.Thread(
                target=add_entry,
                args=(
                    store,
                    game_id,
                    entry(1, seat=1, box="fives", dice=(5, 5, 5, 2, 1), score=15),
                ),
                kwargs={"seen_at": before.updated_at, "household": HOME_HOUSEHOLD},
            )
            writer.start()
            joined([writer], seconds=WAIT_SECONDS)

    event.listen(store.engine, "before_cursor_execute", write_between_the_reads)
    try:
        read = load_game(store, game_id, household=HOME_HOUSEHOLD)
    finally:
        event.remove(store.engine, "before_cursor_execute", write_between_the_reads)
    after = load_game(store, game_id, household=HOME_HOUSEHOLD).version
    assert written and len(read.entries) in (1, 2)
    assert after != before.version
    assert read.version in (before.version, after), read.version
