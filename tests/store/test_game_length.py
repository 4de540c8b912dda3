"""How long a game took: when its first entry was written (``started_at``) to its last
(``finished_at``), kept by the store, carried by exports and imports."""

import json

import pytest

from scorekeeper.play import load, play_turn, start_game, undo_turn
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.documents import ImportRefused, check_files
from scorekeeper.store.exports import export_documents
from scorekeeper.store.games import load_game
from scorekeeper.store.quotas import NO_QUOTAS
from tests.support.games import duo_document, import_documents


def test_the_first_entry_starts_the_game_and_undoing_it_unstarts_it(store):
    game_id = start_game(
        store, Rules(), ["Mag", "Alix"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
    )
    assert load_game(store, game_id, household=HOME_HOUSEHOLD).started_at is None

    turn = play_turn(store, game_id, 0, "free", "sixes", "66653", household=HOME_HOUSEHOLD)
    stored = load_game(store, game_id, household=HOME_HOUSEHOLD)
    assert stored.started_at == stored.updated_at == turn.record.started_at
    assert stored.length is None  # not finished

    play_turn(store, game_id, 1, "free", "fives", "55512", household=HOME_HOUSEHOLD)
    assert load_game(store, game_id, household=HOME_HOUSEHOLD).started_at == stored.started_at

    undo_turn(store, game_id, 2, household=HOME_HOUSEHOLD)
    assert load_game(store, game_id, household=HOME_HOUSEHOLD).started_at == stored.started_at
    undo_turn(store, game_id, 1, household=HOME_HOUSEHOLD)
    assert load_game(store, game_id, household=HOME_HOUSEHOLD).started_at is None


def test_a_finished_game_s_length_is_from_its_first_entry_to_its_last(store):
    document = duo_document("Mag", "Alix")
    game_id = start_game(
        store, Rules(), ["Mag", "Alix"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
    )
    for seq, entry in enumerate(document["entries"]):
        play_turn(
            store, game_id, seq, "free", entry["box"], entry["dice"], household=HOME_HOUSEHOLD
        )
    record, state = load(store, game_id, household=HOME_HOUSEHOLD)
    assert state.is_over
    assert record.length == record.finished_at - record.started_at
    assert record.length.total_seconds() > 0


def dated(started_at=None, finished_at="2026-11-30T21:12:00+00:00"):
    document = duo_document("Mag", "Alix")
    document |= {"created_at": "2026-11-30T19:55:00+00:00", "finished_at": finished_at}
    if started_at is not None:
        document["started_at"] = started_at
    return document


def test_an_export_carries_the_start_and_an_import_keeps_it(store):
    (game_id,) = import_documents(store, dated("2026-11-30T20:00:00+00:00"))
    record = load_game(store, game_id, household=HOME_HOUSEHOLD)
    assert record.length.total_seconds() == 72 * 60

    (exported,) = export_documents(store, game_id, household=HOME_HOUSEHOLD)
    assert exported["started_at"] == "2026-11-30T20:00:00+00:00"
    assert exported["finished_at"] == "2026-11-30T21:12:00+00:00"
    (again,) = import_documents(store, exported)
    assert load_game(store, again, household=HOME_HOUSEHOLD).length == record.length


def test_a_game_without_a_start_says_no_length_and_exports_none(store):
    (game_id,) = import_documents(store, dated())
    assert load_game(store, game_id, household=HOME_HOUSEHOLD).length is None
    (exported,) = export_documents(store, game_id, household=HOME_HOUSEHOLD)
    assert exported["started_at"] is None


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (dated("2026-11-30T19:00:00+00:00"), "« started_at » précède « created_at »."),
        (dated("2026-11-30T22:00:00+00:00"), "« finished_at » précède « started_at »."),
        (
            {
                "rules": {"preset": "classique"},
                "players": ["Mag"],
                "entries": [],
                "started_at": "2026-11-30T20:00:00+00:00",
            },
            "« started_at » ne va qu'avec une partie commencée.",
        ),
        (dated("hier soir"), "« started_at » est une date ISO 8601"),
    ],
)
def test_a_start_that_cannot_be_is_refused_with_its_reason(document, message):
    with pytest.raises(ImportRefused) as refused:
        check_files([("games.json", json.dumps([document]))])
    assert message in str(refused.value)
