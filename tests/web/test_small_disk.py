"""A home server on a small disk: the write-ahead log stays small, a full disk is a 503 that
says so and changes nothing, and a page never fails because a cache could not be written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sqlalchemy import event

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.config import TEMPLATE_CACHE_DIR
from scorekeeper.play import play_turn, start_game
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.quotas import NO_QUOTAS
from tests.support.apps import app_on
from tests.support.forms import page_text
from tests.support.table import Table

BOXES = Rules().boxes


@pytest.mark.sqlite_only("SQLite's write-ahead log file")
def test_the_write_ahead_log_stays_small(store, database_url):
    for _game in range(8):
        game_id = start_game(
            store, Rules(), ["Ana", "Bruno"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
        )
        for seq in range(2 * len(BOXES)):
            box = BOXES[seq // 2]
            play_turn(store, game_id, seq, "free", box, "12346", household=HOME_HOUSEHOLD)
    wal = Path(database_url.removeprefix("sqlite:///") + "-wal")
    database = Path(database_url.removeprefix("sqlite:///"))
    # 208 turns: SQLite's own checkpoint every 1,000 pages left a log of megabytes.
    print(f"write-ahead log {wal.stat().st_size} bytes, database {database.stat().st_size}")
    assert wal.stat().st_size <= 512 * 1024, (wal.stat().st_size, database.stat().st_size)


@pytest.mark.sqlite_only("SQLite's page limit stands for a full disk")
@pytest.mark.parametrize(
    ("lang", "sentence"),
    [("fr", "Le disque du serveur est plein"), ("en", "The server's disk is full")],
)
def test_a_full_disk_is_a_503_that_says_so_and_changes_nothing(app, snapshot, lang, sentence):
    table = Table(app.test_client())
    table.client.set_cookie("lang", lang)
    game_id = table.new_game(["Ana"])
    store = app.extensions[STORE_EXTENSION]

    def no_more_pages(dbapi_connection, _record):
        # SQLite answers SQLITE_FULL, "database or disk is full", as on a full disk.
        pages = dbapi_connection.execute("PRAGMA page_count").fetchone()[0]
        dbapi_connection.execute(f"PRAGMA max_page_count = {pages}")

    event.listen(store.engine, "connect", no_more_pages)
    store.engine.dispose()
    # Games started until one no longer fits (the free pages of the file used up).
    for number in range(500):
        before = snapshot()
        response = table.post("/games/new", {"preset": "classique", "names-0": f"Joueur {number}"})
        if response.status_code != 303:
            break
    assert response.status_code == 503 and response.headers["Retry-After"] == "60"
    text = page_text(response)
    assert sentence in text, text
    assert snapshot() == before
    # What was stored is still shown.
    assert table.client.get(f"/games/{game_id}").status_code == 200


def test_a_page_is_served_when_the_template_cache_cannot_be_written(instance_path, database_url):
    cache = instance_path / TEMPLATE_CACHE_DIR
    with app_on(instance_path, database_url, TEMPLATE_CACHE_FOLDER=str(cache)) as app:
        shutil.rmtree(cache)
        # Where the compiled templates would go, a file: every write there fails.
        cache.write_text("")
        assert app.test_client().get("/games/new").status_code == 200
