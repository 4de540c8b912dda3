"""Upgrades keep data: a database made by the first schema version migrates with every game.

tests/fixtures/games_0001.sqlite was built by tests/fixtures/make_games_0001.py with only
migration 0001: six games (finished, in progress, abandoned, empty; classique with every
scoring option, triple with vache and sec, yatzy), players shared between games under
another case, accents and a hostile name.
"""

import json
import random
import re
import shutil
import sqlite3
from contextlib import closing

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import text

from scorekeeper.app import DATABASE_FILE, STORE_EXTENSION, create_app
from scorekeeper.play import load
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.documents import check_files
from scorekeeper.store.migrations import alembic_config
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.store.transfer import import_games
from testing.samples import random_document
from testing.tables import expected_tables, stored_tables
from tests.fixtures.make_games_0001 import FIXTURE, GAMES

pytestmark = pytest.mark.sqlite_only("upgrades the SQLite file games_0001.sqlite")

# The tables and columns of schema 0001, read back before and after the upgrade.
TABLES_0001 = {
    "games": "id, rules, status, created_at, updated_at, finished_at",
    "players": "id, name, name_key, created_at",
    "game_players": "game_id, seat, player_id, name",
    "entries": 'id, game_id, seq, seat, "column", box, dice, score, created_at',
}


def _rows_0001(path) -> dict[str, list[tuple]]:
    with closing(sqlite3.connect(path)) as connection:
        return {
            table: connection.execute(f"SELECT {columns} FROM {table} ORDER BY 1, 2").fetchall()
            for table, columns in TABLES_0001.items()
        }


def _revision(path) -> str:
    with closing(sqlite3.connect(path)) as connection:
        return connection.execute("SELECT version_num FROM alembic_version").fetchone()[0]


@pytest.fixture
def upgraded(tmp_path):
    """An instance whose database is a copy of the 0001 fixture, started once (migrated)."""
    instance = tmp_path / "instance"
    instance.mkdir()
    shutil.copyfile(FIXTURE, instance / DATABASE_FILE)
    before = _rows_0001(instance / DATABASE_FILE)
    app = create_app({"TESTING": True}, instance_path=instance)
    yield app, before
    app.extensions[STORE_EXTENSION].dispose()


def test_the_fixture_is_a_first_version_database():
    assert _revision(FIXTURE) == "0001"
    rows = _rows_0001(FIXTURE)
    assert len(rows["games"]) == len(GAMES) == 6
    assert [game[2] for game in rows["games"]] == [status for *_, status in GAMES]
    assert len(rows["entries"]) == 26 + 30 + 15 + 28 + 7


def test_migrating_keeps_every_row_of_every_game(upgraded):
    app, before = upgraded
    database = app.instance_path + "/" + DATABASE_FILE
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head != "0001", "no migration after 0001 yet: nothing to upgrade"
    assert _revision(database) == head
    assert _rows_0001(database) == before


def test_every_game_replays_and_shows_the_same_totals(upgraded):
    app, before = upgraded
    store = app.extensions[STORE_EXTENSION]
    client = app.test_client()
    for game_id, *_ in before["games"]:
        record, state = load(store, game_id, household=HOME_HOUSEHOLD)
        stored = [(e.seat, e.column, e.box, e.score) for e in record.entries]
        replayed = [
            (
                e.player,
                e.column,
                e.box,
                state.sheets[e.player].columns[e.column].cells[e.box].points,
            )
            for e in state.entries
        ]
        assert stored == replayed
        html = client.get(f"/games/{game_id}").get_data(as_text=True)
        assert re.findall(r'data-total="(\d+)"', html) == [str(s.total) for s in state.sheets]
    assert "&lt;img src=x onerror=alert(1)&gt;" in client.get("/games/6").get_data(as_text=True)


def test_the_games_finished_before_the_upgrade_enter_the_hall_of_fame(upgraded):
    app, before = upgraded
    with app.extensions[STORE_EXTENSION].engine.connect() as connection:
        assert stored_tables(connection) == expected_tables(connection)
        seats = connection.execute(
            text(
                "SELECT count(*) FROM results JOIN games ON games.id = results.game_id "
                "WHERE games.status = 'finished'"
            )
        ).scalar()
    assert seats == 2 + 1 + 2
    html = app.test_client().get("/hall-of-fame").get_data(as_text=True)
    assert "Mag" in html and "Alix" in html


def test_a_second_start_changes_nothing(upgraded):
    app, _before = upgraded
    app.extensions[STORE_EXTENSION].dispose()
    database = app.instance_path + "/" + DATABASE_FILE
    with closing(sqlite3.connect(database)) as connection:
        first = connection.execute("SELECT * FROM results ORDER BY 1, 2").fetchall()
        rows = _rows_0001(database)
    again = create_app({"TESTING": True}, instance_path=app.instance_path)
    again.extensions[STORE_EXTENSION].dispose()
    with closing(sqlite3.connect(database)) as connection:
        assert connection.execute("SELECT * FROM results ORDER BY 1, 2").fetchall() == first
    assert _rows_0001(database) == rows


def _rule_set_columns(connection) -> list[list[str]]:
    return sorted(
        json.loads(rules)["columns"]
        for (rules,) in connection.execute(text("SELECT rules FROM rule_sets"))
    )


OLD_ORDER = ["free", "down", "up", "sec"]
NEW_ORDER = ["down", "up", "free", "sec"]


def _barred_columns(connection) -> list[list[str]]:
    """The column of each barred cell of each result, in the order the result lists them."""
    return [
        [cell.split(":")[0] for cell in cells.split()]
        for (cells,) in connection.execute(text("SELECT barred_cells FROM results"))
    ]


def test_rule_sets_follow_the_column_order_of_the_sheet(store):
    """Migrations 0004 and 0012: a Triple rule set stored with (free, down, up) gets the key a
    Triple game finished today gets, in its results and in its players' aggregates, and its
    results list their barred cells in that order, as a replay does."""
    rng = random.Random(3)
    documents = [
        random_document(Rules.from_dict(rules), ["Mag", "Alix"], rng)
        for rules in (
            {"preset": "triple"},
            {"preset": "triple", "vache": True},
            {"columns": ["free", "sec"]},
            {},
        )
    ]
    import_games(
        store,
        check_files([("games.json", json.dumps(documents))]),
        household=HOME_HOUSEHOLD,
        quotas=NO_QUOTAS,
    )
    cfg = alembic_config()
    with store.engine.connect() as connection:
        if connection.dialect.name == "sqlite":
            # As Store.migrate does: a later migration rebuilds the games table, which with
            # foreign keys on would delete every entry.
            connection.connection.driver_connection.execute("PRAGMA foreign_keys = OFF")
        connection.begin()
        cfg.attributes["connection"] = connection
        command.downgrade(cfg, "0003")
        assert _rule_set_columns(connection) == [
            ["free"],
            ["free", "down", "up"],
            ["free", "down", "up"],
            ["free", "sec"],
        ]
        # The tables as 0003 had them: the keys of the old column order, and the barred
        # cells of each result listed in it.
        old_keys = set(connection.scalars(text("SELECT rules_key FROM results")))
        barred_columns = _barred_columns(connection)
        assert any(len(set(columns)) > 1 for columns in barred_columns)
        for columns in barred_columns:
            assert columns == sorted(columns, key=OLD_ORDER.index)
        command.upgrade(cfg, "head")
        assert set(connection.scalars(text("SELECT rules_key FROM results"))) != old_keys
        assert _rule_set_columns(connection) == [
            ["down", "up", "free"],
            ["down", "up", "free"],
            ["free"],
            ["free", "sec"],
        ]
        assert stored_tables(connection) == expected_tables(connection)
        for columns in _barred_columns(connection):
            assert columns == sorted(columns, key=NEW_ORDER.index)
        connection.rollback()
        if connection.dialect.name == "sqlite":
            connection.connection.driver_connection.execute("PRAGMA foreign_keys = ON")
