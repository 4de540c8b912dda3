"""What keeps every open sheet live: the game's version, pushed as it changes, and the
spectator page."""

import pytest

from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.lifecycle import abandon_game, delete_game
from scorekeeper.web.store import CHANGES_EXTENSION, STORE_EXTENSION
from tests.support.apps import app_on
from tests.support.live import Stream
from tests.support.table import Table


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
    assert client.get("/games/999/events").status_code == 404


def test_pages_carry_what_the_live_script_needs(table):
    game_id = table.new_game(["Mag"])
    table.play(game_id, 0, "66662", "free:sixes")
    page = table.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert f'data-live-url="/games/{game_id}/version" data-live-seq="1"' in page
    assert f'data-live-events="/games/{game_id}/events"' in page
    assert f'data-live-version="{table.version(game_id)}"' in page
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
    assert f'data-live-version="{table.version(game_id)}"' in page
    assert table.client.get("/games/999/watch").status_code == 404


@pytest.fixture
def live(instance_path, database_url):
    """An app whose streams last a minute, as a server's do (the tests' apps end them at
    once), allowed two at a time."""
    with app_on(instance_path, database_url, LIVE_STREAM_SECONDS=60, LIVE_STREAMS=2) as app:
        yield app


def test_a_stream_sends_the_version_then_every_change_as_it_is_written(live):
    table = Table(live.test_client())
    game_id = table.new_game(["Mag", "Alix"])
    stream = Stream(table.client, f"/games/{game_id}/events")
    assert stream.response.mimetype == "text/event-stream"
    assert stream.response.headers["Cache-Control"] == "no-store"
    first = stream.version()
    assert (first["seq"], first["status"]) == (0, "in_progress")
    table.play(game_id, 0, "66662", "free:sixes")
    # With the version, the sheet itself (tests/web/test_pushed_sheets.py).
    played = stream.version()
    assert played.pop("path") == f"/games/{game_id}" and "À Alix de jouer" in played.pop("sheet")
    assert played == table.client.get(f"/games/{game_id}/version").get_json()
    table.undo(game_id, 1)
    undone = stream.version()
    assert undone["seq"] == 0 and undone["version"] != first["version"]
    store = live.extensions[STORE_EXTENSION]
    abandon_game(store, game_id, household=HOME_HOUSEHOLD)
    assert stream.version()["status"] == "abandoned"
    delete_game(store, game_id, household=HOME_HOUSEHOLD)
    assert stream.version() == {"gone": True}
    stream.close()


def test_a_change_to_another_game_wakes_no_stream(live, monkeypatch):
    table = Table(live.test_client())
    watched, other = table.new_game(["Mag"]), table.new_game(["Alix"])
    stream = Stream(table.client, f"/games/{watched}/events")
    stream.version()
    monkeypatch.setattr("scorekeeper.web.streams.HEARTBEAT_SECONDS", 0.2)
    table.play(other, 0, "66662", "free:sixes")
    # Nothing to say about this game: the next line is the heartbeat, a comment.
    assert stream.next() == ": still here\n\n"
    stream.close()


def test_streams_beyond_the_limit_are_refused_and_a_closed_one_frees_its_place(live):
    table = Table(live.test_client())
    game_id = table.new_game(["Mag"])
    streams = [Stream(table.client, f"/games/{game_id}/events") for _ in range(2)]
    for stream in streams:
        stream.version()
    refused = table.client.get(f"/games/{game_id}/events")
    assert refused.status_code == 503 and refused.headers["Retry-After"] == "5"
    assert "Trop d'écrans ouverts" in refused.get_data(as_text=True)
    streams[0].close()
    again = Stream(table.client, f"/games/{game_id}/events")
    assert again.version()["seq"] == 0
    # A stream dropped without being closed (its client gone) frees its place too.
    streams[1].response = None
    streams[1]._chunks = None
    assert Stream(table.client, f"/games/{game_id}/events").version()["seq"] == 0


def test_every_stream_ends_when_the_server_stops(live):
    table = Table(live.test_client())
    game_id = table.new_game(["Mag"])
    stream = Stream(table.client, f"/games/{game_id}/events")
    stream.version()
    live.extensions[CHANGES_EXTENSION].stop()
    with pytest.raises(StopIteration):
        stream.next()
    assert table.client.get(f"/games/{game_id}/events").status_code == 503
