"""Replays kept in memory: used only while the stored game is exactly the one replayed."""

import json

import pytest

from scorekeeper import play as play_module
from scorekeeper.play import Replays, load, play_turn, start_game, state_of, undo_turn
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD, GameNotFound, StaleSheet, Store
from scorekeeper.store.documents import check_files
from scorekeeper.store.exports import export_documents
from scorekeeper.store.games import load_game
from scorekeeper.store.lifecycle import abandon_game, delete_game
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.store.transfer import import_games

RULES = Rules.from_dict({"preset": "classique"})


@pytest.fixture
def replayed(monkeypatch):
    """How many times a log was replayed from the database."""
    calls = []

    def counting_state_of(record):
        calls.append(record.id)
        return state_of(record)

    monkeypatch.setattr(play_module, "state_of", counting_state_of)
    return calls


@pytest.fixture
def other_process(store):
    """A second store on the same database file, as another server process would hold."""
    other = Store(str(store.engine.url))
    yield other
    other.dispose()


def fresh(store, game_id):
    """The game as a replay of what the database holds now, nothing kept."""
    return state_of(load_game(store, game_id, household=HOME_HOUSEHOLD))


def test_a_second_load_of_an_unchanged_game_does_not_replay(store, replayed):
    game_id = start_game(store, RULES, ["Mag", "Alix"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    play_turn(store, game_id, 0, "free", "sixes", "66653", household=HOME_HOUSEHOLD)

    first = load(store, game_id, household=HOME_HOUSEHOLD)
    second = load(store, game_id, household=HOME_HOUSEHOLD)

    assert second == first
    assert replayed == [game_id]


def test_the_turn_written_is_kept_as_the_store_now_holds_it(store, replayed):
    game_id = start_game(store, RULES, ["Mag", "Alix"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    load(store, game_id, household=HOME_HOUSEHOLD)

    turn = play_turn(store, game_id, 0, "free", "sixes", "66653", household=HOME_HOUSEHOLD)
    record, state = load(store, game_id, household=HOME_HOUSEHOLD)

    assert replayed == [game_id]  # the load before the turn only
    assert state is turn.state
    assert record == turn.record
    assert record == load_game(store, game_id, household=HOME_HOUSEHOLD)
    assert state.sheets[0].total == fresh(store, game_id).sheets[0].total == 18


def test_the_last_turn_keeps_the_finished_game(store, replayed):
    rules = Rules.from_dict({"preset": "classique"})
    game_id = start_game(store, rules, ["Solo"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    _record, state = load(store, game_id, household=HOME_HOUSEHOLD)
    boxes = state.rules.boxes
    for seq, box in enumerate(boxes):
        play_turn(store, game_id, seq, "free", box, "12345", household=HOME_HOUSEHOLD)

    record, state = load(store, game_id, household=HOME_HOUSEHOLD)

    assert state.is_over
    assert record == load_game(store, game_id, household=HOME_HOUSEHOLD)
    assert record.status == "finished" and record.finished_at is not None
    assert replayed == [game_id]


@pytest.mark.parametrize("change", ["entry", "undo", "abandon"])
def test_a_change_made_by_another_process_is_seen(store, other_process, change):
    game_id = start_game(store, RULES, ["Mag", "Alix"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    play_turn(store, game_id, 0, "free", "sixes", "66653", household=HOME_HOUSEHOLD)
    load(store, game_id, household=HOME_HOUSEHOLD)

    if change == "entry":
        play_turn(other_process, game_id, 1, "free", "fives", "55521", household=HOME_HOUSEHOLD)
    elif change == "undo":
        undo_turn(other_process, game_id, 1, household=HOME_HOUSEHOLD)
    else:
        abandon_game(other_process, game_id, household=HOME_HOUSEHOLD)
    record, state = load(store, game_id, household=HOME_HOUSEHOLD)

    assert record == load_game(other_process, game_id, household=HOME_HOUSEHOLD)
    assert [e.box for e in state.entries] == [e.box for e in fresh(store, game_id).entries]


def test_an_undo_then_another_turn_is_not_mistaken_for_the_kept_game(store, other_process):
    game_id = start_game(store, RULES, ["Mag", "Alix"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    play_turn(store, game_id, 0, "free", "sixes", "66653", household=HOME_HOUSEHOLD)
    load(store, game_id, household=HOME_HOUSEHOLD)

    undo_turn(other_process, game_id, 1, household=HOME_HOUSEHOLD)
    play_turn(other_process, game_id, 0, "free", "ones", "11234", household=HOME_HOUSEHOLD)
    _record, state = load(store, game_id, household=HOME_HOUSEHOLD)

    assert [(e.box, e.dice) for e in state.entries] == [("ones", (1, 1, 2, 3, 4))]
    assert state.sheets[0].total == 2


def test_a_deleted_game_is_not_found_though_it_was_kept(store):
    game_id = start_game(store, RULES, ["Mag"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    load(store, game_id, household=HOME_HOUSEHOLD)

    delete_game(store, game_id, household=HOME_HOUSEHOLD)

    with pytest.raises(GameNotFound):
        load(store, game_id, household=HOME_HOUSEHOLD)


def test_only_the_latest_games_are_kept(store, replayed):
    kept = Replays(size=2)
    game_ids = [
        start_game(store, RULES, ["Mag"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
        for _ in range(3)
    ]
    records = [load_game(store, game_id, household=HOME_HOUSEHOLD) for game_id in game_ids]
    for record in records:
        kept.keep(record, state_of(record))

    assert kept.get(records[0].id, records[0].version) is None
    assert kept.get(records[2].id, records[2].version) is not None
    assert kept.get(records[2].id, records[1].version) is None


def test_a_turn_on_a_game_undone_and_played_again_elsewhere_is_refused(store, other_process):
    game_id = start_game(store, RULES, ["Mag", "Alix"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    play_turn(store, game_id, 0, "free", "sixes", "66653", household=HOME_HOUSEHOLD)
    record, state = load(store, game_id, household=HOME_HOUSEHOLD)  # this device's sheet: Mag's Six

    # Another device undoes Mag's Six and writes her As instead: the log has one entry again.
    undo_turn(other_process, game_id, 1, household=HOME_HOUSEHOLD)
    play_turn(other_process, game_id, 0, "free", "ones", "11234", household=HOME_HOUSEHOLD)
    with pytest.raises(StaleSheet):
        play_turn(
            store,
            game_id,
            1,
            "free",
            "fives",
            "55521",
            household=HOME_HOUSEHOLD,
            loaded=(record, state),
        )

    record, state = load(store, game_id, household=HOME_HOUSEHOLD)
    assert [(e.box, e.dice) for e in record.entries] == [("ones", (1, 1, 2, 3, 4))]
    assert [e.box for e in state.entries] == ["ones"]


def test_a_game_imported_under_the_id_of_a_deleted_one_is_not_the_deleted_one(store):
    game_id = start_game(store, RULES, ["Mag"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    for seq, box in enumerate(RULES.boxes):
        play_turn(store, game_id, seq, "free", box, "12345", household=HOME_HOUSEHOLD)
    load(store, game_id, household=HOME_HOUSEHOLD)
    exported = next(export_documents(store, game_id, household=HOME_HOUSEHOLD))
    document = json.loads(json.dumps(exported).replace('"Mag"', '"Maggie"'))

    delete_game(store, game_id, household=HOME_HOUSEHOLD)
    [imported] = import_games(
        store,
        check_files([("partie.json", json.dumps(document))]),
        household=HOME_HOUSEHOLD,
        quotas=NO_QUOTAS,
    )
    record, state = load(store, imported, household=HOME_HOUSEHOLD)

    assert record.players == state.players == ("Maggie",)
