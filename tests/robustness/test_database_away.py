"""The database away: every route of the URL map, every method, is a 503 with Retry-After and
a page that says nothing was lost, logged in one line; a process started meanwhile serves as
soon as the database is back, without a restart. On the suite's database, SQLite or
PostgreSQL (tests/support/outages.py takes it away).
"""

from __future__ import annotations

import logging

import pytest

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.store.households import create_household
from scorekeeper.web.passphrases import passphrase_hash
from tests.support.apps import HOSTED, PASSPHRASE, app_on
from tests.support.forms import page_text
from tests.support.outages import Outage
from tests.support.walk import fill_household, filled_paths, join_household, snapshot

NAMES = ["Ana", "Bruno", "Chloé"]
ANSWERED_WITHOUT_DATABASE = {"static"}


@pytest.fixture
def outage(database_url, tmp_path):
    outage = Outage(database_url, tmp_path)
    yield outage
    outage.close()


def _every_request(app, filled):
    """(method, path) for every rule of the URL map and every method it takes, its ids
    those of the household's games and players."""
    values = {
        "game_id": filled["games"][:1],
        "player_id": filled["players"][:1],
        "token": [filled["token"]],
    }
    for rule in sorted(app.url_map.iter_rules(), key=lambda rule: rule.rule):
        if rule.endpoint in ANSWERED_WITHOUT_DATABASE:
            continue
        unknown = rule.arguments - set(values)
        assert not unknown, f"{rule.rule}: give this test values for {sorted(unknown)}"
        for path in filled_paths(rule, values):
            for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
                yield method, path


def _check_unavailable(response, method, path):
    assert response.status_code == 503, (method, path, response.status_code)
    assert int(response.headers["Retry-After"]) > 0, (method, path)
    text = page_text(response)
    said = "Rien n'est perdu" if method == "GET" else "Rien n'a été enregistré"
    assert said in text and "réessayez" in text, (method, path, text)


def test_every_route_is_a_503_while_the_database_is_away(
    instance_path, outage, caplog, monkeypatch
):
    with app_on(instance_path, outage.url, **HOSTED, WTF_CSRF_ENABLED=False) as app:
        store = app.extensions[STORE_EXTENSION]
        household = create_household(store, "Les A", passphrase_hash(PASSPHRASE))
        filled = fill_household(store, household, NAMES, 1)
        client = app.test_client()
        join_household(client, "Les A", PASSPHRASE)
        client.post("/household-pin", data={"household_pin": PASSPHRASE, "household_next": "/"})
        before = snapshot(store.engine)
        requests = list(_every_request(app, filled))

        outage.away(store)
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger=app.logger.name):
            for method, path in requests:
                response = client.open(
                    path, method=method, data={"seq": "0", "name": "X", "dice": "12345"}
                )
                _check_unavailable(response, method, path)
        # One line each, no traceback: the condition is expected, not a bug. The app's own
        # lines: the log also catches other libraries' (asyncio's about a task of an earlier
        # browser test collected meanwhile, once).
        said = [record for record in caplog.records if record.name == app.logger.name]
        assert len(said) == len(requests)
        assert all(record.levelno == logging.WARNING and not record.exc_info for record in said)

        outage.back()
        assert client.get("/").status_code == 200
        assert snapshot(store.engine) == before
    assert len(requests) >= 40, len(requests)
    print(f"database away: {len(requests)} requests, all 503 with Retry-After")


def test_a_process_started_while_the_database_is_away_serves_on_its_return(instance_path, outage):
    outage.away()
    # The app builds (a gunicorn worker that failed to boot would stop the whole server).
    with app_on(instance_path, outage.url, WTF_CSRF_ENABLED=False) as app:
        client = app.test_client()
        for path in ("/", "/games/new", "/players"):
            _check_unavailable(client.get(path), "GET", path)
        _check_unavailable(client.post("/games/new", data={"players": "Ana"}), "POST", "/")
        outage.back()
        assert client.get("/").status_code == 200
        assert client.get("/games/new").status_code == 200
