"""Helpers for driving the app through the Flask test client, CSRF token included."""

import re

import pytest

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.web.conseil import ADVISOR_EXTENSION
from tests.support.apps import HOSTED, PIN, app_on
from tests.support.games import every_row
from tests.support.table import Table
from tests.support.walk import NeverBuiltStrategies


@pytest.fixture
def table(client):
    return Table(client)


@pytest.fixture
def snapshot(app):
    """Every row of every table, to show that a refused request changed nothing."""
    store = app.extensions[STORE_EXTENSION]
    return lambda: every_row(store)


@pytest.fixture
def pin_app(instance_path, database_url):
    """The app of a household whose instance config.py sets a PIN."""
    instance_path.mkdir(parents=True, exist_ok=True)
    (instance_path / "config.py").write_text(f'HOUSEHOLD_PIN = "{PIN}"\n', encoding="utf-8")
    with app_on(instance_path, database_url) as app:
        yield app


@pytest.fixture
def pin_table(pin_app):
    return Table(pin_app.test_client())


@pytest.fixture
def hosted(instance_path, database_url):
    """The app of a hosted server (HOUSEHOLDS), with CSRF on."""
    with app_on(instance_path, database_url, **HOSTED) as app:
        yield app


CLASSIQUE_TURNS = [
    ("66662", "sixes"),
    ("55553", "fives"),
    ("44441", "fours"),
    ("33361", "threes"),
    ("22216", "twos"),
    ("11156", "ones"),
    ("66655", "three_kind"),
    ("55552", "four_kind"),
    ("22233", "full_house"),
    ("12346", "small_straight"),
    ("23456", "large_straight"),
    ("12346", "yams"),
    ("66543", "chance"),
]


@pytest.fixture
def seeded(table, app):
    """A game in progress, a finished one, an abandoned Triple, their players, a hall of fame.

    The advisor's table is never built here (a minute of CPU, going on after the test): it
    stays "being prepared".
    """
    app.extensions[ADVISOR_EXTENSION] = NeverBuiltStrategies(app.instance_path)
    finished = table.new_game(["Mag"], vache="y", four_kind="fixed40")
    for seq, (dice, box) in enumerate(CLASSIQUE_TURNS):
        response = table.play(finished, seq, dice, f"free:{box}", confirm=True)
        assert response.status_code == 303
    playing = table.new_game(["Alix", "Sam"])
    for seq, (dice, box) in enumerate(CLASSIQUE_TURNS[:3]):
        table.play(playing, seq, dice, f"free:{box}")
    triple = table.new_game(["Sam", "Mag"], preset="triple", sec="y", plus_minus="y")
    assert table.play(triple, 0, "66653", "down:ones", confirm=True).status_code == 303
    assert table.play(triple, 1, "11111", "sec:yams").status_code == 303
    assert table.post(f"/games/{triple}/abandon", {}).status_code == 303
    players = sorted(
        set(
            map(
                int,
                re.findall(
                    r'href="/players/(\d+)"', table.client.get("/players").get_data(as_text=True)
                ),
            )
        )
    )
    assert len(players) == 3
    return {
        "playing": playing,
        "finished": finished,
        "triple": triple,
        "players": players,
        "seq": 3,
    }
