"""The new-game screen offers the household's players as one-tap chips, the most recent
first; without scripts the ticked ones sit after the names typed."""

import re

from scorekeeper.play import load
from scorekeeper.store import HOME_HOUSEHOLD
from testing.samples import new_game_form
from tests.support.forms import page


def chips(html):
    return re.findall(
        r'<label class="player-chip"><input type="checkbox" name="known-\d+" '
        r'value="([^"]*)"',
        html,
    )


def test_no_chip_before_the_first_game(client):
    assert chips(page(client, "/games/new")) == []
    assert "Déjà venus" not in page(client, "/games/new")


def test_chips_name_the_players_of_the_latest_games_first(table):
    table.new_game(["Alix", "Mag"])
    table.new_game(["Zoé"])
    table.new_game(["Mag"])  # Mag played again: before Zoé now
    table.new_game(["Bob"])
    assert chips(page(table.client, "/games/new")) == ["Bob", "Mag", "Zoé", "Alix"]


def test_ticked_chips_sit_after_the_names_typed_once_each(table, app):
    table.new_game(["Mag", "Alix", "Zoé"])
    data = new_game_form(["Bob", "alix"])
    # Zoé and Mag ticked (in the chips' order), Alix ticked but typed already.
    data.update({"known-0": "Zoé", "known-1": "Alix", "known-2": "Mag"})
    response = table.post("/games/new", data)
    assert response.status_code == 303
    game_id = int(response.headers["Location"].rsplit("/", 1)[1])
    _record, state = load(app.extensions["scorekeeper.store"], game_id, household=HOME_HOUSEHOLD)
    assert list(state.players) == ["Bob", "alix", "Zoé", "Mag"]


def test_a_refused_form_keeps_the_chips_ticked(table):
    table.new_game(["Mag", "Alix"])
    data = {**new_game_form(["x" * 41]), "known-0": "Alix"}
    response = table.post("/games/new", data)
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert re.search(r'name="known-\d+" value="Alix" checked>', html)
    assert not re.search(r'name="known-\d+" value="Mag" checked>', html)


def test_eleven_players_with_the_chips_are_refused_in_words(table, snapshot):
    table.new_game([f"Joueur {number}" for number in range(10)])
    before = snapshot()
    data = new_game_form(["Bob"])
    data.update({f"known-{index}": f"Joueur {index}" for index in range(10)})
    response = table.post("/games/new", data)
    assert response.status_code == 422
    assert "10 joueurs" in response.get_data(as_text=True)
    assert snapshot() == before
