"""A turn sent twice is written once: the key its tablet made for it finds the entry.

sheet.js sends each turn with a key of its own and sends it again, with the same key, when
the network dropped before the answer came. The game that has an entry of that key answers
as the first time (the next sheet, « Déjà enregistré : … »), however the game moved since;
a key is looked for in its own game only; a key that is no key is refused with a message and
changes nothing; a form without a key plays as before.

Runs on SQLite, and on PostgreSQL with SCOREKEEPER_TEST_DATABASE_URL.
"""

import re

import pytest

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.play import load, play_turn, start_game
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD, StaleSheet
from scorekeeper.store.games import load_game
from scorekeeper.store.households import create_household
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.web.passphrases import passphrase_hash
from tests.support.apps import HOSTED, PASSPHRASE, app_on
from tests.support.forms import csrf_token, page_text
from tests.support.table import Table
from tests.support.walk import join_household

SWAP = {"X-Sheet-Swap": "1"}
KEY = "5f0c2a9e41d8b7c3a6e2f9d0c4b1a8e7"


def _entries(app, game_id, household=HOME_HOUSEHOLD):
    return load_game(app.extensions[STORE_EXTENSION], game_id, household=household).entries


def _send(table, game_id, seq, dice, target, key=KEY, version=None, swap=True):
    """The turn as sheet.js posts it: with its key, and the header of a sheet swapped in."""
    data = {
        "csrf_token": csrf_token(table.client),
        "seq": seq,
        "dice": dice,
        "target": target,
        "version": version or table.version(game_id),
        "turn_key": key,
    }
    return table.client.post(f"/games/{game_id}/entries", data=data, headers=SWAP if swap else {})


def test_the_same_turn_sent_twice_is_written_once_and_answered_alike(app, table):
    game_id = table.new_game(["Mag", "Alix"])
    seen = table.version(game_id)
    first = _send(table, game_id, 0, "66662", "free:sixes", version=seen)
    assert first.status_code == 200
    assert "Mag marque 24 en Six." in page_text(first)
    # The answer was lost on the way: the tablet sends the same turn, as it was typed.
    again = _send(table, game_id, 0, "66662", "free:sixes", version=seen)
    assert again.status_code == 200
    said = page_text(again)
    assert "Déjà enregistré : Mag marque 24 en Six." in said
    assert "À Alix de jouer" in said
    entries = _entries(app, game_id)
    assert [(e.seat, e.box, e.score, e.turn_key) for e in entries] == [(0, "sixes", 24, KEY)]


def test_a_turn_sent_again_after_the_game_moved_on_still_finds_its_entry(app, table):
    game_id = table.new_game(["Mag", "Alix"])
    seen = table.version(game_id)
    assert _send(table, game_id, 0, "66662", "free:sixes", version=seen).status_code == 200
    # Alix plays on another tablet before the first one hears back.
    assert table.play(game_id, 1, "11123", "free:ones").status_code == 303
    again = _send(table, game_id, 0, "66662", "free:sixes", version=seen, swap=False)
    # Without the header, as the first answer without it: the sheet, and the line said there.
    assert again.status_code == 303
    sheet = page_text(table.client.get(again.headers["Location"]))
    assert "Déjà enregistré : Mag marque 24 en Six." in sheet
    assert [e.box for e in _entries(app, game_id)] == ["sixes", "ones"]


def test_the_same_key_in_another_turn_of_the_game_is_that_turn(app, table):
    """A key names one turn: sent with other dice (a tablet that reused it), it is still the
    turn written, never a second entry."""
    game_id = table.new_game(["Mag", "Alix"])
    assert _send(table, game_id, 0, "66662", "free:sixes").status_code == 200
    again = _send(table, game_id, 1, "55555", "free:yams")
    assert "Déjà enregistré : Mag marque 24 en Six." in page_text(again)
    assert len(_entries(app, game_id)) == 1


def test_a_turn_undone_then_sent_again_is_refused_as_stale(app, table, snapshot):
    """The entry of the key is gone: the turn is one of a sheet that changed since."""
    game_id = table.new_game(["Mag", "Alix"])
    seen = table.version(game_id)
    assert _send(table, game_id, 0, "66662", "free:sixes", version=seen).status_code == 200
    assert table.undo(game_id, 1).status_code == 303
    before = snapshot()
    again = _send(table, game_id, 0, "66662", "free:sixes", version=seen)
    assert again.status_code == 409
    said = page_text(again)
    assert "La feuille a changé entre-temps" in said and "rien n'a été enregistré" in said
    assert 'value="66662"' in said  # the dice still typed
    assert snapshot() == before


def test_a_form_without_a_key_plays_as_before(app, table):
    game_id = table.new_game(["Mag", "Alix"])
    seen = table.version(game_id)
    assert table.play(game_id, 0, "66662", "free:sixes", version=seen).status_code == 303
    # The same form posted again is the sheet of before: refused, as it always was.
    assert table.play(game_id, 0, "66662", "free:sixes", version=seen).status_code == 409
    assert [(e.box, e.turn_key) for e in _entries(app, game_id)] == [("sixes", None)]


@pytest.mark.parametrize(
    "key",
    [
        "short",
        "x" * 65,
        "5f0c2a9e41d8b7c3 a6e2f9d0c4b1a8e7",
        "5f0c2a9e41d8b7c3a6e2f9d0c4b1a8e7\n",
        " " * 20,
        "é" * 20,
        "5f0c2a9e41d8'--;a6e2f9d0c4b1a8e7",
    ],
)
def test_a_key_that_is_no_key_is_refused_with_a_message_and_changes_nothing(table, snapshot, key):
    game_id = table.new_game(["Mag"])
    before = snapshot()
    response = _send(table, game_id, 0, "66662", "free:sixes", key=key)
    assert response.status_code == 400
    assert "Ce tour porte une clé illisible : rien n'a été enregistré." in page_text(response)
    assert snapshot() == before


def test_a_key_is_looked_for_in_its_own_game_only(app, table):
    """Another game's key finds nothing there: the turn is judged as any other (written, or
    refused as stale), and nothing of the game that has the key is shown."""
    first = table.new_game(["Mag", "Alix"])
    assert _send(table, first, 0, "66662", "free:sixes").status_code == 200
    other = table.new_game(["Chloé", "Bérénice"])
    stale = _send(table, other, 3, "66662", "free:sixes")
    assert stale.status_code == 409
    assert "Mag" not in page_text(stale) and "Déjà enregistré" not in page_text(stale)
    assert _entries(app, other) == ()
    # The key is the first game's: in this one the same key makes this game's entry.
    written = _send(table, other, 0, "55555", "free:yams")
    assert written.status_code == 200
    assert "Chloé marque 50 en Yams." in page_text(written)
    assert [e.box for e in _entries(app, other)] == ["yams"]
    assert [e.box for e in _entries(app, first)] == ["sixes"]


def test_another_households_game_is_not_reached_by_its_key(instance_path, database_url):
    with app_on(instance_path, database_url, **HOSTED) as app:
        store = app.extensions[STORE_EXTENSION]
        tables = {}
        for name in ("Les A", "Les B"):
            create_household(store, name, passphrase_hash(PASSPHRASE))
            client = app.test_client()
            join_household(client, name, PASSPHRASE)
            tables[name] = Table(client)
        game_id = tables["Les A"].new_game(["Aglaé", "Anatole"])
        sheet = tables["Les A"].client.get(f"/games/{game_id}").get_data(as_text=True)
        seen = re.search(r'name="version" value="([^"]+)"', sheet).group(1)
        assert (
            _send(tables["Les A"], game_id, 0, "66662", "free:sixes", version=seen).status_code
            == 200
        )
        # B's device with A's game, its key and the version A's tablet saw: no such game.
        response = _send(tables["Les B"], game_id, 0, "66662", "free:sixes", version=seen)
        assert response.status_code == 404
        assert "Aglaé" not in page_text(response)


def test_two_requests_of_one_turn_at_the_same_moment_write_it_once(store):
    """Sent again while the first was still on its way: both loaded the game before either
    wrote; the second's write finds the game moved, and then the entry of its key."""
    game_id = start_game(
        store, Rules(), ["Mag", "Alix"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
    )
    loaded = load(store, game_id, household=HOME_HOUSEHOLD)
    turns = [
        play_turn(
            store,
            game_id,
            0,
            "free",
            "sixes",
            "66662",
            household=HOME_HOUSEHOLD,
            loaded=loaded,
            turn_key=KEY,
        )
        for _ in range(2)
    ]
    assert turns[0].repeated is None and turns[1].repeated is not None
    assert turns[1].repeated.seq == 0 and turns[1].cell.points == 24
    assert len(load_game(store, game_id, household=HOME_HOUSEHOLD).entries) == 1
    # Without a key the second is what it always was: a turn on a sheet that changed.
    with pytest.raises(StaleSheet):
        play_turn(
            store, game_id, 0, "free", "sixes", "66662", household=HOME_HOUSEHOLD, loaded=loaded
        )
