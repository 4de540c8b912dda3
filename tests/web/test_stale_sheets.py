"""A page shown before something changed the game never writes on the game as it is now.

Each form carries the version of the game it was filled on; an abandoned game takes no
entry; a confirmed undo removes the entry confirmed and no other; reopening a finished
game asks for the household PIN when there is one.
"""

import pytest

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.games import load_game
from tests.support.apps import PIN
from tests.support.table import Table


def _entries(app, game_id):
    return load_game(app.extensions[STORE_EXTENSION], game_id, household=HOME_HOUSEHOLD).entries


def test_a_deleted_games_number_is_never_given_again(table, app, snapshot):
    table.new_game(["Mag"])
    newest = table.new_game(["Mag", "Alix"])
    stale = table.version(newest)
    assert table.post(f"/games/{newest}/delete", {"submit": "Oui"}).status_code == 303
    again = table.new_game(["Eve", "Bob"])
    assert again == newest + 1
    before = snapshot()
    # The tablet still showing the deleted game's sheet.
    response = table.play(newest, 0, "66662", "free:sixes", version=stale)
    assert response.status_code == 404
    assert snapshot() == before


def test_an_abandoned_game_refuses_an_entry_from_a_sheet_opened_before(table, app, snapshot):
    game_id = table.new_game(["Solo"])
    boxes = Rules().boxes
    for seq, box in enumerate(boxes[:-1]):
        assert table.play(game_id, seq, "12346", f"free:{box}", confirm=True).status_code == 303
    seen = table.version(game_id)
    assert table.post(f"/games/{game_id}/abandon", {"submit": "Oui"}).status_code == 303
    before = snapshot()
    response = table.play(
        game_id, len(boxes) - 1, "12346", f"free:{boxes[-1]}", confirm=True, version=seen
    )
    assert response.status_code == 409
    page = response.get_data(as_text=True)
    assert "abandonnée" in page and "Reprendre la partie" in page
    assert f'href="/games/{game_id}/review"' in page
    # Not even with the sheet's new version: an abandoned game is taken up first.
    assert (
        table.play(game_id, len(boxes) - 1, "12346", f"free:{boxes[-1]}", confirm=True).status_code
        == 409
    )
    assert table.undo(game_id, len(boxes) - 1).status_code == 409
    assert snapshot() == before
    assert "Solo" not in table.client.get("/hall-of-fame").get_data(as_text=True)


def test_a_form_typed_before_an_undo_and_another_entry_is_refused(table, app, snapshot):
    game_id = table.new_game(["Mag", "Alix"])
    table.play(game_id, 0, "66662", "free:sixes")
    typed_on = table.version(game_id)
    # Another device: undo Mag's Six, then Mag writes something else at the same turn.
    assert table.undo(game_id, 1).status_code == 303
    assert table.play(game_id, 0, "11123", "free:ones").status_code == 303
    before = snapshot()
    # The first device's form for Alix, at seq 1 as the game has again.
    response = table.play(game_id, 1, "55555", "free:yams", version=typed_on)
    assert response.status_code == 409
    assert "La feuille a changé entre-temps" in response.get_data(as_text=True)
    assert snapshot() == before


@pytest.mark.parametrize("version", ["", "1:2020-01-01T00:00:00+00:00", "x" * 65])
def test_an_entry_without_the_games_version_is_refused(table, snapshot, version):
    game_id = table.new_game(["Mag"])
    before = snapshot()
    response = table.play(game_id, 0, "66662", "free:sixes", version=version or " ")
    assert response.status_code in (400, 409)
    assert snapshot() == before


def test_an_undo_confirmation_is_for_one_entry(table, app):
    game_id = table.new_game(["Mag", "Alix"])
    for seq, (dice, box) in enumerate([("66662", "sixes"), ("11123", "ones"), ("22234", "twos")]):
        table.play(game_id, seq, dice, f"free:{box}")
    confirmed = table.version(game_id)
    assert table.undo(game_id, 3, version=confirmed).status_code == 303
    assert len(_entries(app, game_id)) == 2
    # Back: the same confirmation, tapped again, must not remove a second entry.
    response = table.undo(game_id, 3, version=confirmed)
    assert response.status_code == 303
    assert len(_entries(app, game_id)) == 2
    assert "n&#39;est plus la dernière" in table.client.get(f"/games/{game_id}").get_data(
        as_text=True
    )
    # Nor after another entry brought the count back to what the page showed.
    table.play(game_id, 2, "33345", "free:threes")
    assert table.undo(game_id, 3, version=confirmed).status_code == 303
    entries = _entries(app, game_id)
    assert len(entries) == 3 and entries[-1].box == "threes"


def test_the_undo_page_carries_the_version_it_confirms(table):
    game_id = table.new_game(["Mag"])
    table.play(game_id, 0, "66662", "free:sixes")
    page = table.client.get(f"/games/{game_id}/undo").get_data(as_text=True)
    assert f'name="version" value="{table.version(game_id)}"' in page


def _finished_solo(table):
    game_id = table.new_game(["Solo"])
    for seq, box in enumerate(Rules().boxes):
        assert table.play(game_id, seq, "12346", f"free:{box}", confirm=True).status_code == 303
    return game_id


def test_reopening_a_finished_game_asks_for_the_pin(pin_app, pin_table):
    game_id = _finished_solo(pin_table)
    turns = len(Rules().boxes)
    asked = pin_table.undo(game_id, turns)
    assert asked.status_code == 403
    assert 'name="household_pin"' in asked.get_data(as_text=True)
    assert len(_entries(pin_app, game_id)) == turns
    held = {"seq": turns, "version": pin_table.version(game_id), "household_replay": "1"}
    wrong = pin_table.post(f"/games/{game_id}/undo", {**held, "household_pin": "0000"})
    assert wrong.status_code == 403
    assert len(_entries(pin_app, game_id)) == turns
    right = pin_table.post(f"/games/{game_id}/undo", {**held, "household_pin": PIN})
    assert right.status_code == 303
    assert len(_entries(pin_app, game_id)) == turns - 1
    # A game in progress: undo is an everyday gesture, no PIN.
    other = pin_table.new_game(["Mag"])
    pin_table.play(other, 0, "66662", "free:sixes")
    with pin_app.test_client() as fresh:
        fresh_table = Table(fresh)
        assert fresh_table.undo(other, 1).status_code == 303


def test_without_a_pin_a_finished_game_reopens_at_once(table, app):
    game_id = _finished_solo(table)
    assert table.undo(game_id, len(Rules().boxes)).status_code == 303
    record = load_game(app.extensions[STORE_EXTENSION], game_id, household=HOME_HOUSEHOLD)
    assert record.status == "in_progress"
