"""A whole game through the web, as a family would play it, with CSRF on."""

from scorekeeper.rules import Rules
from scorekeeper.store.play import load

from .conftest import DEFAULT_OPTIONS

# Two players, 13 turns each: (Mag's dice, box), (Alix's dice, box).
GAME = [
    (("66662", "sixes"), ("11123", "ones")),
    (("55553", "fives"), ("22245", "twos")),
    (("44441", "fours"), ("33312", "threes")),
    (("33361", "threes"), ("44413", "fours")),
    (("22216", "twos"), ("55512", "fives")),
    (("11156", "ones"), ("66612", "sixes")),
    (("66655", "three_kind"), ("12345", "large_straight")),
    (("55552", "four_kind"), ("22233", "full_house")),
    (("22233", "full_house"), ("12346", "small_straight")),
    (("12346", "small_straight"), ("66666", "yams")),
    (("23456", "large_straight"), ("55555", "four_kind")),
    (("44444", "yams"), ("12356", "chance")),
    (("66543", "chance"), ("66655", "three_kind")),
]


def test_whole_two_player_game(table, app):
    game_id = table.new_game(["Mag", "Alix"])
    seq = 0
    for mag, alix in GAME:
        for dice, box in (mag, alix):
            response = table.play(game_id, seq, dice, f"free:{box}")
            assert response.status_code == 303, response.get_data(as_text=True)[:2000]
            seq += 1
    assert response.headers["Location"].endswith(f"/games/{game_id}/ranking")
    page = table.client.get(f"/games/{game_id}/ranking").get_data(as_text=True)
    record, state = load(app.extensions["scorekeeper.store"], game_id)
    assert record.status == "finished" and record.finished_at is not None
    mag, alix = state.sheets
    # Mag: upper 24+20+16+9+6+3 = 78 (+35); lower 28+22+25+30+40+50+24 = 219.
    assert (mag.upper, mag.upper_bonus, mag.lower, mag.total) == (78, 35, 219, 332)
    # Alix: upper 3+6+9+12+15+18 = 63 (+35); lower 40+25+30+50+25+17+28; Yams +100 once.
    assert (alix.upper, alix.upper_bonus, alix.lower, alix.yams_bonus) == (63, 35, 215, 100)
    assert "Mag" in page and f"{mag.total} points" in page and f"{alix.total} points" in page
    assert page.index("Alix") < page.index(f"{mag.total} points")  # Alix first: 413 > 332


def test_home_lists_games_in_progress(table):
    game_id = table.new_game(["Mag", "Alix"])
    page = table.client.get("/").get_data(as_text=True)
    assert f"/games/{game_id}" in page and "Mag, Alix" in page


def test_preview_shows_what_each_box_would_score(table):
    game_id = table.new_game(["Mag"])
    page = table.client.get(f"/games/{game_id}?dice=66653").get_data(as_text=True)
    assert 'value="free:sixes"' in page
    assert 'aria-label="Six : 18"' in page and 'aria-label="Brelan : 26"' in page
    response = table.post(f"/games/{game_id}/entries",
                          {"seq": 0, "dice": "66653", "preview": "Voir"})
    assert response.status_code == 200 and 'aria-label="Chance : 26"' in response.get_data(
        as_text=True)


def test_sheet_shows_bonus_progress(table):
    game_id = table.new_game(["Mag", "Alix"])
    table.play(game_id, 0, "66662", "free:sixes")
    page = table.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "il manque 39" in page and "(+6)" in page
    assert "À Alix de jouer" in page


def test_barred_box_asks_for_confirmation(table, snapshot):
    game_id = table.new_game(["Mag"])
    before = snapshot()
    response = table.play(game_id, 0, "12346", "free:yams")
    page = response.get_data(as_text=True)
    assert response.status_code == 200 and "Barrer la case Yams ?" in page
    assert snapshot() == before
    response = table.play(game_id, 0, "12346", "free:yams", confirm=True)
    assert response.status_code == 303
    page = table.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "Mag barre la case Yams." in page


def test_joker_forced_placement_is_explained(table):
    game_id = table.new_game(["Mag"])
    table.play(game_id, 0, "66666", "free:yams")
    page = table.client.get(f"/games/{game_id}?dice=44444").get_data(as_text=True)
    assert "Joker : ce Yams doit aller dans la case Quatre." in page
    response = table.play(game_id, 1, "44444", "free:chance")
    assert response.status_code == 422
    assert "Joker : ce Yams doit aller dans la case Quatre." in response.get_data(as_text=True)
    assert table.play(game_id, 1, "44444", "free:fours").status_code == 303
    page = table.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "Encore un Yams : +100 !" in page


def test_undo_back_to_the_start(table, app):
    game_id = table.new_game(["Mag", "Alix"])
    table.play(game_id, 0, "66662", "free:sixes")
    table.play(game_id, 1, "11123", "free:ones")
    page = table.client.get(f"/games/{game_id}/undo").get_data(as_text=True)
    assert "Alix a marqué 3 en As" in page
    for seq in (2, 1):
        response = table.post(f"/games/{game_id}/undo", {"seq": seq})
        assert response.status_code == 303
    record, state = load(app.extensions["scorekeeper.store"], game_id)
    assert record.entries == () and state.active_player == 0
    response = table.post(f"/games/{game_id}/undo", {"seq": 1})
    assert response.status_code == 303


def test_undo_after_the_end_reopens_the_game(table, app):
    game_id = table.new_game(["Solo"])
    for seq, (dice, box) in enumerate(mag for mag, _ in GAME):
        table.play(game_id, seq, dice, f"free:{box}")
    store = app.extensions["scorekeeper.store"]
    assert load(store, game_id)[0].status == "finished"
    table.post(f"/games/{game_id}/undo", {"seq": 13})
    record, state = load(store, game_id)
    assert record.status == "in_progress" and not state.is_over


def test_new_game_with_house_rules(table, app):
    game_id = table.new_game(["Mag", "Alix"], preset="triple", vache="y", sec="y",
                             four_kind="fixed40", dice="6")
    record, _ = load(app.extensions["scorekeeper.store"], game_id)
    rules = Rules.from_dict(record.rules)
    assert rules.columns == ("down", "up", "free", "sec")
    assert (rules.vache, rules.four_kind, rules.dice) == (True, "fixed40", 6)
    page = table.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "règle de la vache" in page and "Carré 40" in page


def test_default_options_are_the_classique_rules(table, app):
    game_id = table.new_game(["Mag"])
    record, _ = load(app.extensions["scorekeeper.store"], game_id)
    assert Rules.from_dict(record.rules) == Rules()
    assert DEFAULT_OPTIONS["preset"] == "classique"
