"""Maxi Yatzy's saved throws in the store (docs/rules.md §15): an entry keeps the throws its
turn used (migration 0022), every player's saved throws replay from them, undo takes them
back, and import and export carry them whole."""

import json

import pytest

from scorekeeper.play import load, play_turn, start_game, undo_turn
from scorekeeper.rules import RuleError, Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.documents import check_files
from scorekeeper.store.exports import export_documents, json_array
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.store.results import stored_state
from scorekeeper.store.transfer import import_games

MAXI = Rules.from_dict({"preset": "maxi_yatzy"})


def _state(store, game_id):
    return load(store, game_id, household=HOME_HOUSEHOLD)[1]


def _play(store, game_id, box, dice, throws=None):
    seq = len(_state(store, game_id).entries)
    return play_turn(
        store, game_id, seq, "free", box, dice, household=HOME_HOUSEHOLD, throws=throws
    )


def test_the_throws_a_turn_used_are_stored_and_the_saved_throws_replay(store):
    game_id = start_game(store, MAXI, ["Mag", "Alix"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    _play(store, game_id, "chance", "123456", throws=1)
    _play(store, game_id, "ones", "111234")
    record, state = load(store, game_id, household=HOME_HOUSEHOLD)
    assert [entry.throws for entry in record.entries] == [1, None]
    assert state.saved_throws == (2, 0)
    # A fresh replay from the rows, as the results and the coach read them.
    with store.engine.connect() as connection:
        assert stored_state(connection, game_id)[2].saved_throws == (2, 0)
    _play(store, game_id, "villa", "222555", throws=5)
    assert _state(store, game_id).saved_throws == (0, 0)
    undo_turn(store, game_id, 3, household=HOME_HOUSEHOLD)
    assert _state(store, game_id).saved_throws == (2, 0)


def test_more_throws_than_the_player_has_write_nothing(store):
    game_id = start_game(store, MAXI, ["Mag"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    for throws in (0, 4):
        with pytest.raises(RuleError):
            _play(store, game_id, "chance", "123456", throws=throws)
    assert _state(store, game_id).entries == ()
    classique = start_game(store, Rules(), ["Mag"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    with pytest.raises(RuleError, match="Maxi Yatzy"):
        _play(store, classique, "chance", "12345", throws=3)
    assert _state(store, classique).entries == ()


def test_import_and_export_keep_the_throws(store, other_store):
    document = {
        "rules": {"preset": "maxi_yatzy", "columns": ["free"]},
        "players": ["Mag", "Alix"],
        "entries": [
            {"player": "Mag", "box": "villa", "dice": [2, 2, 2, 5, 5, 5], "throws": 2},
            {"player": "Alix", "box": "tower", "dice": [3, 3, 6, 6, 6, 6]},
            {"player": "Mag", "box": "maxi_yatzy", "dice": [4, 4, 4, 4, 4, 4], "throws": 4},
        ],
    }
    (game_id,) = import_games(
        store,
        check_files([("maxi.json", json.dumps([document]))]),
        household=HOME_HOUSEHOLD,
        quotas=NO_QUOTAS,
    )
    assert _state(store, game_id).saved_throws == (0, 0)
    exported = "".join(json_array(export_documents(store, household=HOME_HOUSEHOLD)))
    (written,) = json.loads(exported)
    assert written["entries"] == document["entries"]
    (again,) = import_games(
        other_store,
        check_files([("again.json", exported)]),
        household=HOME_HOUSEHOLD,
        quotas=NO_QUOTAS,
    )
    assert [
        entry.throws for entry in load(other_store, again, household=HOME_HOUSEHOLD)[0].entries
    ] == [2, None, 4]
