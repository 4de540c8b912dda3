"""Hosted, a copy of the database opens nothing: device, spectator and join link tokens are
kept as their hash, and the upgrade that hashed the tokens stored before keeps every tablet
joined and every spectator link working. Both engines (the `database_url` fixture)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from alembic import command
from flask_login.utils import encode_cookie
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.store.migrations import alembic_config
from testing.tables import expected_tables, stored_tables
from tests.support.apps import PASSPHRASE
from tests.support.forms import csrf_token, page_text
from tests.support.walk import snapshot

# The migration before the one that hashed device and spectator tokens.
BEFORE_HASHING = "0014"


def _post(client, form_page: str, path: str, data: dict | None = None):
    return client.post(path, data={**(data or {}), "csrf_token": csrf_token(client, form_page)})


def _signup(client, name="Les Martin"):
    response = _post(
        client, "/household/new", "/household/new", {"name": name, "passphrase": PASSPHRASE}
    )
    assert response.status_code == 303


def _join(client, name="Les Martin"):
    response = _post(
        client, "/household/join", "/household/join", {"name": name, "passphrase": PASSPHRASE}
    )
    assert response.status_code == 303


def _device_token(client) -> str:
    """The token a device's cookies carry: its session's user, as its remember-me cookie's."""
    with client.session_transaction() as session:
        token = session["_user_id"]
    assert client.get_cookie("remember_token").value.startswith(f"{token}|")
    return token


def _join_link(client) -> str:
    page = _post(client, "/household/devices", "/household/join-link").get_data(as_text=True)
    return re.search(r'class="join-link" href="[^"]*/join/([^"]+)"', page).group(1)


def _new_game(client) -> int:
    response = _post(client, "/games/new", "/games/new", {"names-0": "Zoé", "preset": "classique"})
    return int(response.headers["Location"].rsplit("/", 1)[1])


def _spectator_link(client, game_id: int) -> str:
    """A new spectator link of the game: its token, read on the page that shows it once."""
    path = f"/games/{game_id}/spectator-link"
    _post(client, path, path)
    page = client.get(path).get_data(as_text=True)
    return re.search(r'class="spectator-link" href="[^"]*/watch/([^"]+)"', page).group(1)


def _accepted(app, value: str) -> list[str]:
    """What the server lets `value` do: sign a device in (as its session's or its remember-me
    cookie's token), show a game (as a spectator link), join a household (as a join link)."""
    done = []
    client = app.test_client()
    with client.session_transaction() as session:
        session["_user_id"] = value
    if client.get("/").status_code == 200:
        done.append("signs in from a session")
    client = app.test_client()
    with app.test_request_context():
        client.set_cookie("remember_token", encode_cookie(value))
    if client.get("/").status_code == 200:
        done.append("signs in from a remember-me cookie")
    if "/" in value or not value:
        return done  # no path segment: no link could carry it
    if app.test_client().get(f"/watch/{value}").status_code == 200:
        done.append("opens a spectator link")
    if app.test_client().get(f"/join/{value}").status_code == 200:
        done.append("opens a join link")
    return done


def _stored_strings(app) -> set[str]:
    """Every text of every row of every table the database lists."""
    tables = snapshot(app.extensions[STORE_EXTENSION].engine)
    return {
        str(value)
        for rows in tables.values()
        for row in rows.values()
        for value in row.values()
        if value is not None
    }


def test_a_copy_of_the_database_signs_no_device_in_and_opens_no_link(hosted):
    kitchen, living_room, phone = (hosted.test_client() for _ in range(3))
    _signup(kitchen)
    _join(living_room)
    joining = _join_link(kitchen)
    assert _post(phone, f"/join/{joining}", f"/join/{joining}").status_code == 303
    unused_join_link = _join_link(kitchen)
    game_id = _new_game(kitchen)
    watching = _spectator_link(kitchen, game_id)
    _spectator_link(kitchen, _new_game(kitchen))
    tokens = {_device_token(client) for client in (kitchen, living_room, phone)}
    # The probe works: each of what the devices and links hold is accepted as it is.
    for token in tokens:
        assert _accepted(hosted, token) == [
            "signs in from a session",
            "signs in from a remember-me cookie",
        ]
    assert _accepted(hosted, watching) == ["opens a spectator link"]
    assert _accepted(hosted, unused_join_link) == ["opens a join link"]

    stored = _stored_strings(hosted)
    assert len(stored) > 20
    for secret in [*tokens, watching, unused_join_link]:
        assert not any(secret in value for value in stored)
    accepted = {value: done for value in stored if (done := _accepted(hosted, value))}
    assert accepted == {}


def _upgrade_from_before_hashing(store, rows: list[tuple[str, dict]]) -> None:
    """Take the database back to the migration before hashing, store `rows` as the server of
    that time did (tokens as they are), then upgrade it again."""
    cfg = alembic_config()
    with store.engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            # As Store.migrate does: rebuilding a table with foreign keys on would cascade.
            connection.connection.driver_connection.execute("PRAGMA foreign_keys = OFF")
        connection.begin()
        cfg.attributes["connection"] = connection
        command.downgrade(cfg, BEFORE_HASHING)
        # The downgrade cannot turn hashes back into tokens: it signed every device out.
        assert connection.scalar(text("SELECT count(*) FROM devices")) == 0
        assert connection.scalar(text("SELECT count(*) FROM spectator_links")) == 0
        for statement, values in rows:
            connection.execute(text(statement), values)
        command.upgrade(cfg, "head")
        assert stored_tables(connection) == expected_tables(connection)
        connection.commit()
        if sqlite:
            connection.connection.driver_connection.execute("PRAGMA foreign_keys = ON")
    store.engine.dispose()


def test_tablets_joined_and_spectator_links_made_before_hashing_keep_working(hosted):
    kitchen, living_room = hosted.test_client(), hosted.test_client()
    _signup(kitchen)
    _join(living_room)
    game_id = _new_game(kitchen)
    watching = _spectator_link(kitchen, game_id)
    store = hosted.extensions[STORE_EXTENSION]
    with store.engine.connect() as connection:
        household, name = connection.execute(
            text("SELECT id, name FROM households WHERE name = 'Les Martin'")
        ).one()
    now = datetime.now(UTC)
    devices = [
        (_device_token(client), label)
        for client, label in ((kitchen, "Cuisine"), (living_room, "Salon"))
    ]
    _upgrade_from_before_hashing(
        store,
        [
            (
                "INSERT INTO devices (household_id, token, name, created_at, last_seen_at) "
                "VALUES (:household, :token, :name, :now, :now)",
                {"household": household, "token": token, "name": label, "now": now},
            )
            for token, label in devices
        ]
        + [
            (
                "INSERT INTO spectator_links (token, game_id) VALUES (:token, :game)",
                {"token": watching, "game": game_id},
            )
        ],
    )
    # Still one device a token: the unique key came through the columns' renaming.
    with pytest.raises(IntegrityError), store.engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO devices (household_id, token_hash, name, created_at, last_seen_at) "
                "SELECT household_id, token_hash, name, created_at, last_seen_at FROM devices"
            )
        )
    stored = _stored_strings(hosted)
    for token, _label in devices:
        assert token not in stored
    assert watching not in stored
    # Each tablet, with the cookies it had, is still in its household, and its device page
    # still tells it which device it is.
    for client, label in ((kitchen, "Cuisine"), (living_room, "Salon")):
        assert name in page_text(client.get("/"))
        devices_page = page_text(client.get("/household/devices"))
        assert f"{label} (cet appareil)" in re.sub(r"<[^>]+>", "", devices_page)
    # A tablet whose session has ended comes back by its remember-me cookie alone.
    kitchen.delete_cookie("session")
    assert kitchen.get("/").status_code == 200
    screen = hosted.test_client()
    watched = screen.get(f"/watch/{watching}")
    assert watched.status_code == 200 and "Zoé" in watched.get_data(as_text=True)
    assert screen.get(f"/watch/{watching}/version").json["seq"] == 0
