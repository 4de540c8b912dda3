"""A whole game through the web, as a family would play it, with CSRF on."""

from scorekeeper.play import load
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.games import games_in_progress, rematch
from scorekeeper.store.lifecycle import delete_game
from scorekeeper.web import main
from tests.support.forms import csrf_token
from tests.support.games import GAME


def test_whole_two_player_game(table, app):
    game_id = table.new_game(["Mag", "Alix"])
    seq = 0
    for mag, alix in GAME:
        for dice, box in (mag, alix):
            response = table.play(game_id, seq, dice, f"free:{box}")
            assert response.status_code == 303, response.get_data(as_text=True)[:2000]
            seq += 1
    # The last turn stays on the sheet, which names the winner.
    assert response.headers["Location"].endswith(f"/games/{game_id}")
    page = table.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "Alix gagne avec 413 points !" in page
    page = table.client.get(f"/games/{game_id}/ranking").get_data(as_text=True)
    record, state = load(app.extensions["scorekeeper.store"], game_id, household=HOME_HOUSEHOLD)
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


def test_home_lists_a_bounded_number_of_games_and_links_to_the_rest(table, monkeypatch):
    monkeypatch.setattr(main, "HOME_GAMES", 2)
    monkeypatch.setattr(main, "IN_PROGRESS_PAGE_SIZE", 2)
    ids = [table.new_game([f"Joueur {number}"]) for number in range(5)]
    home = table.client.get("/").get_data(as_text=True)
    # The two most recent, and a link to all five.
    assert [f'/games/{game_id}"' in home for game_id in ids] == [False, False, False, True, True]
    assert "/games/in-progress" in home and "Toutes les parties en cours (5)" in home
    pages = [
        table.client.get(f"/games/in-progress?page={number}").get_data(as_text=True)
        for number in (1, 2, 3)
    ]
    listed = [
        sorted(
            (game_id for game_id in ids if f'/games/{game_id}"' in page),
            key=lambda game_id, page=page: page.index(f'/games/{game_id}"'),
        )
        for page in pages
    ]
    assert listed == [[ids[4], ids[3]], [ids[2], ids[1]], [ids[0]]]
    assert table.client.get("/games/in-progress?page=4").status_code == 404


def test_home_links_to_no_other_list_when_every_game_is_shown(table):
    table.new_game(["Mag"])
    assert "/games/in-progress" not in table.client.get("/").get_data(as_text=True)


def test_preview_shows_what_each_box_would_score(table):
    game_id = table.new_game(["Mag"])
    page = table.client.get(f"/games/{game_id}?dice=66653").get_data(as_text=True)
    assert 'value="free:sixes"' in page
    assert 'aria-label="Six, 18 points possibles"' in page
    assert 'aria-label="Brelan, 26 points possibles"' in page
    response = table.entry_form(game_id, 0, dice="66653", preview="Voir")
    assert response.status_code == 200
    assert 'aria-label="Chance, 26 points possibles"' in response.get_data(as_text=True)


def test_sheet_shows_bonus_progress(table):
    game_id = table.new_game(["Mag", "Alix"])
    table.play(game_id, 0, "66662", "free:sixes")
    page = table.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "encore 39 pour 35" in page and "en avance de 6" in page
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
        response = table.undo(game_id, seq)
        assert response.status_code == 303
    record, state = load(app.extensions["scorekeeper.store"], game_id, household=HOME_HOUSEHOLD)
    assert record.entries == () and state.active_player == 0
    response = table.undo(game_id, 1)
    assert response.status_code == 303


def test_undo_after_the_end_reopens_the_game(table, app):
    game_id = table.new_game(["Solo"])
    for seq, (dice, box) in enumerate(mag for mag, _ in GAME):
        table.play(game_id, seq, dice, f"free:{box}")
    store = app.extensions["scorekeeper.store"]
    assert load(store, game_id, household=HOME_HOUSEHOLD)[0].status == "finished"
    table.undo(game_id, 13)
    record, state = load(store, game_id, household=HOME_HOUSEHOLD)
    assert record.status == "in_progress" and not state.is_over


def test_new_game_with_house_rules(table, app):
    game_id = table.new_game(
        ["Mag", "Alix"], preset="triple", vache="y", sec="y", four_kind="fixed40", dice="6"
    )
    record, _ = load(app.extensions["scorekeeper.store"], game_id, household=HOME_HOUSEHOLD)
    rules = Rules.from_dict(record.rules)
    assert rules.columns == ("down", "up", "free", "sec")
    assert (rules.vache, rules.four_kind, rules.dice) == (True, "fixed40", 6)
    page = table.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "règle de la vache" in page and "Carré 40" in page


def test_default_options_are_the_classique_rules(table, app):
    game_id = table.new_game(["Mag"])
    record, _ = load(app.extensions["scorekeeper.store"], game_id, household=HOME_HOUSEHOLD)
    assert Rules.from_dict(record.rules) == Rules()


def finish(table, game_id, start=0, stop=None):
    """Play GAME's turns from the entry ``start`` on (up to ``stop``, the last by default)."""
    turns = [(dice, box) for pair in GAME for dice, box in pair]
    for seq, (dice, box) in enumerate(turns[start:stop], start):
        table.play(game_id, seq, dice, f"free:{box}")


def test_rematch_same_players_next_seat_first_same_rules(table, app):
    game_id = table.new_game(["Mag", "Alix"], four_kind="fixed40", joker="free")
    finish(table, game_id)
    page = table.client.get(f"/games/{game_id}/ranking").get_data(as_text=True)
    assert f'action="/games/{game_id}/rematch"' in page and "Revanche" in page
    assert "/hall-of-fame?rules=" in page and f"/games/{game_id}/review" in page
    response = table.post(f"/games/{game_id}/rematch", {})
    assert response.status_code == 303
    new_id = int(response.headers["Location"].rsplit("/", 1)[1])
    store = app.extensions["scorekeeper.store"]
    _old, before = load(store, game_id, household=HOME_HOUSEHOLD)
    _new, after = load(store, new_id, household=HOME_HOUSEHOLD)
    assert new_id != game_id and not after.entries
    assert list(after.players) == ["Alix", "Mag"]
    assert after.rules == before.rules and after.rules.four_kind == "fixed40"


def test_a_rematch_is_made_once(table, app):
    """Revanche, Back, Revanche (or a second tablet): the game the first tap made, again."""
    game_id = table.new_game(["Mag", "Alix"])
    finish(table, game_id)
    store = app.extensions["scorekeeper.store"]
    first = table.post(f"/games/{game_id}/rematch", {}).headers["Location"]
    in_progress = games_in_progress(store, household=HOME_HOUSEHOLD)
    again = table.post(f"/games/{game_id}/rematch", {}).headers["Location"]
    assert again == first
    assert games_in_progress(store, household=HOME_HOUSEHOLD) == in_progress
    rematch_id = int(first.rsplit("/", 1)[1])
    assert rematch(store, game_id, household=HOME_HOUSEHOLD) == rematch_id
    # Deleted, the rematch can be made anew.
    delete_game(store, rematch_id, household=HOME_HOUSEHOLD)
    assert rematch(store, game_id, household=HOME_HOUSEHOLD) is None
    remade = table.post(f"/games/{game_id}/rematch", {}).headers["Location"]
    assert remade != first


def test_rematch_refused_before_the_end_and_without_token(table, snapshot):
    game_id = table.new_game(["Mag", "Alix"])
    before = snapshot()
    response = table.post(f"/games/{game_id}/rematch", {})
    assert response.status_code == 303 and response.headers["Location"].endswith(f"/{game_id}")
    page = table.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "La revanche se joue une fois la partie terminée." in page
    response = table.post(f"/games/{game_id}/rematch", {}, token=False)
    assert response.status_code == 400
    assert snapshot() == before


def test_a_turn_sent_by_the_sheet_script_answers_with_the_next_sheet(table, app):
    """One request a turn: the next sheet itself, with the turn's message, instead of a
    redirect; after the last turn, the finished sheet naming the winner."""
    game_id = table.new_game(["Mag", "Alix"])

    def post(**data):
        data["csrf_token"] = csrf_token(table.client)
        data["version"] = table.version(game_id)
        return table.client.post(
            f"/games/{game_id}/entries", data=data, headers={"X-Sheet-Swap": "1"}
        )

    response = post(seq=0, dice="66662", target="free:sixes")
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "Mag marque 24 en Six." in page and "<title>À Alix de jouer · " in page
    assert 'data-live-seq="1"' in page and 'name="seq" value="1"' in page
    # The next turn is typed on this sheet: it carries the game's version after this turn.
    assert f'name="version" value="{table.version(game_id)}"' in page
    response = post(seq=0, dice="11111", target="free:ones")
    assert response.status_code == 409
    assert "La feuille a changé" in response.get_data(as_text=True)
    finish(table, game_id, start=1, stop=-1)
    response = post(seq=25, dice="66655", target="free:three_kind")
    page = response.get_data(as_text=True)
    assert response.status_code == 200 and 'class="turn-panel end-panel"' in page
    assert "gagne avec" in page and f'action="/games/{game_id}/rematch"' in page
