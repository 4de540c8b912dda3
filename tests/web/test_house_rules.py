"""House rules through the web: chosen on the new-game screen, enforced from the dice."""

import pytest

from scorekeeper.play import load
from scorekeeper.rules import Entry
from scorekeeper.store import HOME_HOUSEHOLD


def state_of(app, game_id):
    return load(app.extensions["scorekeeper.store"], game_id, household=HOME_HOUSEHOLD)[1]


def test_la_vache_floor_shows_and_bars(table, app, snapshot):
    game_id = table.new_game(["Mag", "Alix"], vache="y")
    table.play(game_id, 0, "66662", "free:sixes")
    page = table.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "≥24" in page
    before = snapshot()
    response = table.play(game_id, 1, "66612", "free:sixes")
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "Règle de la vache : il faut au moins 24 dans cette case" in page
    assert snapshot() == before
    table.play(game_id, 1, "66612", "free:sixes", confirm=True)
    cell = state_of(app, game_id).sheets[1].columns["free"].cells["sixes"]
    assert (cell.points, cell.barred_by) == (0, "vache")


def test_triple_columns_keep_their_order(table, app, snapshot):
    game_id = table.new_game(["Mag"], preset="triple")
    before = snapshot()
    response = table.play(game_id, 0, "66666", "down:sixes")
    assert response.status_code == 422
    assert "La colonne Descendante se remplit dans l&#39;ordre : la prochaine case est As." in (
        response.get_data(as_text=True)
    )
    assert snapshot() == before
    assert table.play(game_id, 0, "11123", "down:ones").status_code == 303
    assert table.play(game_id, 1, "12346", "up:chance").status_code == 303
    assert table.play(game_id, 2, "12346", "free:small_straight").status_code == 303
    sheet = state_of(app, game_id).sheets[0]
    assert {kind: column.total for kind, column in sheet.columns.items()} == {
        "down": 3,
        "up": 16,
        "free": 30,
    }
    assert list(sheet.columns) == ["down", "up", "free"]


def test_a_column_the_game_does_not_have(table, snapshot):
    game_id = table.new_game(["Mag"])
    before = snapshot()
    response = table.play(game_id, 0, "12345", "sec:chance")
    assert response.status_code == 422
    assert "Cette partie n&#39;a pas de colonne « sec »." in response.get_data(as_text=True)
    assert snapshot() == before


def test_sec_column_reminds_one_throw(table):
    game_id = table.new_game(["Mag"], sec="y")
    page = table.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "un seul lancer" in page
    assert table.play(game_id, 0, "12345", "sec:large_straight").status_code == 303


def test_plus_minus(table, app):
    game_id = table.new_game(["Mag"], plus_minus="y")
    table.play(game_id, 0, "66655", "free:minus")
    response = table.play(game_id, 1, "66654", "free:plus")
    assert "Le Plus doit finir au-dessus du Moins" in response.get_data(as_text=True)
    table.play(game_id, 1, "66666", "free:plus")
    cells = state_of(app, game_id).sheets[0].columns["free"].cells
    assert (cells["minus"].points, cells["plus"].points) == (28, 30)


def test_yams_6_wants_six_dice(table, app, snapshot):
    game_id = table.new_game(["Mag"], dice="6")
    before = snapshot()
    response = table.play(game_id, 0, "12345", "free:chance")
    assert response.status_code == 422
    assert "Pas assez de dés : il en faut 6, pas 5." in response.get_data(as_text=True)
    assert snapshot() == before
    assert table.play(game_id, 0, "123456", "free:chance").status_code == 303
    assert state_of(app, game_id).sheets[0].total == 20


def test_six_dice_in_a_five_dice_game(table, snapshot):
    game_id = table.new_game(["Mag"])
    before = snapshot()
    response = table.play(game_id, 0, "123456", "free:chance")
    assert response.status_code == 422
    assert "Trop de dés : il en faut 5, pas 6." in response.get_data(as_text=True)
    assert snapshot() == before


@pytest.mark.parametrize(
    ("options", "box", "dice", "points"),
    [
        ({"four_kind": "fixed40"}, "four_kind", "22221", 40),
        ({"four_kind": "base"}, "four_kind", "33336", 32),
        ({"three_kind": "base"}, "three_kind", "44421", 22),
        ({"full_house": "base"}, "full_house", "55222", 26),
        ({"three_kind": "matching"}, "three_kind", "66416", 18),
        ({"four_kind": "matching"}, "four_kind", "55552", 20),
    ],
)
def test_scoring_options(table, app, options, box, dice, points):
    game_id = table.new_game(["Mag"], **options)
    assert table.play(game_id, 0, dice, f"free:{box}").status_code == 303
    assert state_of(app, game_id).sheets[0].columns["free"].cells[box].points == points


def test_free_joker_and_no_yams_bonus(table, app):
    game_id = table.new_game(["Mag"], joker="free", yams_bonus=False)
    table.play(game_id, 0, "66666", "free:yams")
    assert table.play(game_id, 1, "44444", "free:full_house").status_code == 303
    sheet = state_of(app, game_id).sheets[0]
    assert sheet.columns["free"].cells["full_house"].points == 25
    assert sheet.yams_bonus == 0
    page = table.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "joker libre" in page and "sans prime Yams" in page


def test_yatzy_preset(table, app):
    game_id = table.new_game(["Mag"], preset="yatzy")
    assert table.play(game_id, 0, "66551", "free:two_pairs").status_code == 303
    state = state_of(app, game_id)
    assert state.rules.is_yatzy and state.sheets[0].total == 22
    page = table.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "Deux paires" in page and "Prime (50)" in page and "Prime Yams" not in page


def test_a_yatzy_game_names_its_last_box_yatzy(table, app):
    game_id = table.new_game(["Mag", "Alix"], preset="yatzy")
    page = table.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert '<th scope="row" class="box-name">Yatzy</th>' in page
    assert 'class="box-name">Yams<' not in page
    table.play(game_id, 0, "66666", "free:yams")
    page = table.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "Mag marque 50 en Yatzy." in page
    undo = table.client.get(f"/games/{game_id}/undo").get_data(as_text=True)
    assert "50 en Yatzy" in undo
    state = state_of(app, game_id)
    assert state.refusal(0, "free", "yams").render() == "Yatzy : déjà remplie"
    # A classique game keeps its Yams.
    classique = state_of(app, table.new_game(["Mag"]))
    assert (
        classique.play(Entry(0, "free", "yams", (6, 6, 6, 6, 6)))
        .refusal(0, "free", "yams")
        .render()
        == "Yams : déjà remplie"
    )


def test_rules_cannot_change_after_the_first_entry(table, app):
    """There is no way to post new rules to a game: its stored rules stay as they were."""
    game_id = table.new_game(["Mag"], vache="y")
    table.play(game_id, 0, "12345", "free:chance")
    response = table.entry_form(
        game_id, 1, dice="12345", target="free:ones", vache="", rules='{"preset": "yatzy"}'
    )
    assert response.status_code == 303
    assert state_of(app, game_id).rules.vache
