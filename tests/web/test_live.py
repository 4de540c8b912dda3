"""What keeps every open sheet live: the game's version, and the spectator page."""


def test_version_changes_with_every_entry_and_undo(table):
    game_id = table.new_game(["Mag", "Alix"])
    first = table.client.get(f"/games/{game_id}/version").get_json()
    assert first["seq"] == 0 and first["status"] == "in_progress"
    table.play(game_id, 0, "66662", "free:sixes")
    second = table.client.get(f"/games/{game_id}/version").get_json()
    assert second["seq"] == 1 and second["version"] != first["version"]
    table.undo(game_id, 1)
    table.play(game_id, 0, "11123", "free:ones")
    # The same count as before the undo, but another sheet: the version tells them apart.
    third = table.client.get(f"/games/{game_id}/version").get_json()
    assert third["seq"] == 1 and third["version"] != second["version"]


def test_version_of_an_unknown_game(client):
    assert client.get("/games/999/version").status_code == 404


def test_pages_carry_what_the_live_script_needs(table):
    game_id = table.new_game(["Mag"])
    table.play(game_id, 0, "66662", "free:sixes")
    page = table.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert f'data-live-url="/games/{game_id}/version" data-live-seq="1"' in page
    assert "js/live.js" in page
    assert f"/games/{game_id}/watch" in page


def test_spectator_page_is_read_only(table):
    game_id = table.new_game(["Mag", "Alix"])
    table.play(game_id, 0, "66662", "free:sixes")
    response = table.client.get(f"/games/{game_id}/watch")
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "À Alix de jouer" in page
    assert f"/games/{game_id}/entries" not in page and 'name="target"' not in page
    assert 'data-live-seq="1"' in page and "24" in page
    assert table.client.get("/games/999/watch").status_code == 404
