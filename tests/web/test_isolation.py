"""Isolation of hosted households, proven from the URL map: with household A's device, every
route given household B's ids answers 404, and nothing of B shows in A's pages, PDFs, JSON
or export. A route added later is covered without anyone remembering it.

Runs on SQLite, and on PostgreSQL with SCOREKEEPER_TEST_DATABASE_URL (tests/support/databases.py).
"""

import json
import random
from io import BytesIO

import pytest

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.exports import export_documents
from scorekeeper.store.games import count_games_in_progress, load_game
from scorekeeper.store.households import create_household
from scorekeeper.store.players import list_players
from scorekeeper.web.passphrases import passphrase_hash
from testing.samples import random_document
from tests.support.apps import HOSTED, PASSPHRASE, app_on
from tests.support.prints import read
from tests.support.walk import fill_household, filled_paths, join_household

# Names found nowhere else in the app's pages, in either language.
A_NAMES = ["Aglaé", "Anatole", "Apollinaire"]
B_NAMES = ["Barnabéxq", "Bérénicezw", "Bartholomézk"]
ID_ARGUMENTS = {"game_id", "player_id"}
# Routes whose argument is a secret token rather than an id: whoever holds the token may
# use it (a spectator link shows its game, a join link joins); they take no id of B.
TOKEN_ROUTES = {
    "spectating.spectate",
    "spectating.spectate_version",
    "spectating.spectate_events",
    "joining.join_link",
    "static",
}


@pytest.fixture
def hosted(instance_path, database_url):
    # CSRF off: a POST then reaches its view, whose answer to B's ids is what is tested.
    with app_on(instance_path, database_url, **HOSTED, WTF_CSRF_ENABLED=False) as app:
        yield app


def _join(client, name: str) -> None:
    """Join the household and give its PIN (hosted, the passphrase): the guarded views then
    run, and their answer to another household's ids is what the tests see."""
    join_household(client, name, PASSPHRASE)
    response = client.post(
        "/household-pin", data={"household_pin": PASSPHRASE, "household_next": "/"}
    )
    assert response.status_code == 303, response.get_data(as_text=True)


@pytest.fixture
def two_households(hosted):
    store = hosted.extensions[STORE_EXTENSION]
    a = create_household(store, "Les A", passphrase_hash(PASSPHRASE))
    b = create_household(store, "Les B", passphrase_hash(PASSPHRASE))
    return (
        hosted,
        store,
        (a, fill_household(store, a, A_NAMES, 1)),
        (b, fill_household(store, b, B_NAMES, 2)),
    )


def test_every_route_answers_404_to_the_ids_of_another_household(two_households):
    app, store, first, second = two_households
    checked = 0
    routes = set()
    # Each household's device against the other's ids.
    for (_mine, _), (other, theirs), name in ((first, second, "Les A"), (second, first, "Les B")):
        client = app.test_client()
        _join(client, name)
        before = list(export_documents(store, household=other))
        for rule in app.url_map.iter_rules():
            if rule.endpoint in TOKEN_ROUTES:
                continue
            unknown = rule.arguments - ID_ARGUMENTS
            assert not unknown, f"{rule.rule}: add its arguments to this test"
            if not rule.arguments:
                continue
            routes.add(rule.rule)
            ids = {"game_id": theirs["games"], "player_id": theirs["players"]}
            for path in filled_paths(rule, ids):
                for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
                    response = client.open(
                        path, method=method, data={"seq": "0", "name": "X", "other": "1"}
                    )
                    assert response.status_code == 404, (method, path, response.status_code)
                    checked += 1
        # Nothing of the other household changed on the way.
        assert list(export_documents(store, household=other)) == before
    assert len(routes) >= 15 and checked >= 3 * len(routes), (len(routes), checked)
    print(f"isolation: {len(routes)} routes with ids x 2 households, {checked} requests, all 404")


def _texts(client, mine: dict):
    """Every page, PDF and JSON of A that takes no argument or one of A's ids."""
    app = client.application
    for rule in app.url_map.iter_rules():
        if rule.endpoint in TOKEN_ROUTES or "GET" not in rule.methods:
            continue
        # The advice page would start a 20-second build of the advisor's table, which depends
        # on the rules only and is shared by design.
        if rule.endpoint.startswith("advice."):
            continue
        ids = {"game_id": mine["games"], "player_id": mine["players"]}
        paths = [rule.rule] if not rule.arguments else filled_paths(rule, ids)
        for path in paths:
            response = client.get(path)
            assert response.status_code < 500, path
            body = response.get_data()
            if response.mimetype == "application/pdf":
                text = "".join(page.text for page in read(body).pages)
            else:
                text = body.decode("utf-8", errors="replace")
            yield path, text


def test_nothing_of_another_household_shows_in_pages_pdfs_json_or_export(two_households):
    app, store, (_a, mine), (_b, theirs) = two_households
    client = app.test_client()
    _join(client, "Les A")
    pages = 0
    for path, text in _texts(client, mine):
        pages += 1
        for name in B_NAMES:
            assert name not in text, (path, name)
        for game_id in theirs["games"]:
            assert f'/games/{game_id}"' not in text and f"/games/{game_id}/" not in text, path
        for player_id in theirs["players"]:
            assert f'/players/{player_id}"' not in text, path
    assert pages >= 30, pages
    exported = json.loads(client.get("/import-export/games.json").get_data(as_text=True))
    assert sorted(document["id"] for document in exported) == sorted(mine["games"])
    assert {name for document in exported for name in document["players"]} == set(A_NAMES)


def test_an_import_never_attaches_to_the_players_of_another_household(two_households):
    app, store, (a, mine), (b, theirs) = two_households
    client = app.test_client()
    _join(client, "Les A")
    document = random_document(Rules.from_dict({}), B_NAMES, random.Random(5))
    response = client.post(
        "/import-export/import",
        data={"file": (BytesIO(json.dumps(document).encode()), "games.json")},
    )
    assert response.status_code in (200, 303), response.get_data(as_text=True)
    theirs_after = list_players(store, household=b)
    assert [player.id for player in theirs_after] == theirs["players"]
    mine_after = list_players(store, household=a)
    assert {player.name for player in mine_after} == set(A_NAMES + B_NAMES)
    assert not set(player.id for player in mine_after) & set(theirs["players"])


def test_a_rematch_goes_to_the_household_that_asked_for_it(two_households):
    app, store, (a, mine), _second = two_households
    client = app.test_client()
    _join(client, "Les A")
    finished = mine["games"][0]
    response = client.post(f"/games/{finished}/rematch")
    assert response.status_code == 303
    assert client.get(response.headers["Location"]).status_code == 200
    rematch = int(response.headers["Location"].rsplit("/", 1)[1])
    played = load_game(store, finished, household=a)
    record = load_game(store, rematch, household=a)
    assert record is not None
    assert record.players == (*played.players[1:], played.players[0])
    # Nothing went to the home household, which every server has.
    assert count_games_in_progress(store, household=HOME_HOUSEHOLD) == 0
    assert list_players(store, household=HOME_HOUSEHOLD) == []
