"""Every route and every form, from the URL map: a route or a form added later is covered
without anyone remembering to.

- Every GET route, its ids filled with real ones, gets every query argument the app reads,
  and names url_for would take for its own, all at once set to huge, negative,
  non-ASCII-digit and other hostile values; then each name the route reads gets hostile
  values alone. Every route that takes a token gets hostile ones in its path. Never a 5xx,
  and the database stays as it was.
- Every form found on those pages is posted with a valid CSRF token, each of its fields in
  turn missing, empty, repeated and hostile, then as a JSON body: never a 5xx, and a refused
  post (4xx) changes nothing. Every POST route of the URL map must be the action of a form
  found so.
- The import gets game files holding hostile text: refused, nothing changed.

A NUL and half of a surrogate pair are among the hostile values everywhere (path, query,
form, JSON body, imported file): PostgreSQL's text holds neither, so the walk runs on the
database of the suite, SQLite or PostgreSQL (tests/support/databases.py). The counts are printed
(`-n 0 -s`) for docs/development.md.
"""

from __future__ import annotations

import itertools
import json
from datetime import UTC, datetime, timedelta
from io import BytesIO
from urllib.parse import quote, urlencode, urlsplit

import pytest
from sqlalchemy import inspect, text

from scorekeeper.app import STORE_EXTENSION, create_app
from scorekeeper.play import play_turn, start_game
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.households import add_join_link, create_household, set_spectator_token
from scorekeeper.store.lifecycle import abandon_game
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.web.conseil import ADVISOR_EXTENSION
from scorekeeper.web.passphrases import passphrase_hash
from tests.support.apps import HOSTED
from tests.support.databases import give_database, take_database
from tests.support.forms import csrf_token
from tests.support.walk import (
    EVERY_NAME,
    FoundForm,
    NeverBuiltStrategies,
    endpoint_of,
    find_forms,
    query_names_read,
    route_paths,
)

HOSTILE_NUMBERS = ["9" * 5000, "-1", "²", "①", "١", "0"]
# A NUL, which PostgreSQL's text cannot hold, and a lone half of a surrogate pair, which no
# UTF-8 can encode: sent as the bytes a careless client would send (%ED%A0%80), and inside
# JSON as the escape that makes one ("\ud800").
NUL, LONE_SURROGATE = "\x00", "\ud800"
UNSTORABLE = [NUL, LONE_SURROGATE, f"Mag{NUL}", f"Mag{LONE_SURROGATE}"]
HOSTILE_TEXTS = [
    *HOSTILE_NUMBERS,
    "",
    "<script>alert(1)</script>",
    "é" * 2000,
    "free:ones:extra",
    "{{ 7 * 7 }}",
    *UNSTORABLE,
]
# The query arguments the app reads (paging, review, merge, prints, the sheet's keypad and
# live turn with Generala's servida, the Conseil, the hall of fame).
NAMES_READ = [
    "page",
    "recent",
    "step",
    "other",
    "rules",
    "seq",
    "dice",
    "throw",
    "mode",
    "target",
    "served",
    "paper",
    "pages",
    "sec",
    "preset",
    "columns",
    "vache",
]
# Those, then where to go next (a redirect a stranger would try), names that url_for reads as
# its own parameters, and one nobody reads.
QUERY_NAMES = [
    *NAMES_READ,
    "next",
    "_method",
    "endpoint",
    "_external",
    "_anchor",
    "_scheme",
    "unknown",
]
# POST routes whose form no page shows without a setting: the PIN's (tests/web/test_security),
# and deleting a household, whose form shows once its PIN is typed (tests/web/test_households).
NOT_ON_A_PAGE = {"pin.unlock", "devices.delete"}
# POST routes of a hosted server only: a 404 in a home.
HOSTED_ONLY = {
    "joining.join",
    "joining.signup",
    "devices.new_join_link",
    "joining.join_link",
    "devices.remove",
    "devices.delete",
}
# Forms that may delete what other forms need, or sign the device out or move it to another
# household: posted last.
DESTRUCTIVE = {
    "review.delete",
    "players.merge",
    "devices.remove",
    "devices.delete",
    "joining.join",
    "joining.signup",
    "joining.join_link",
}
# The advice page's answer while its table is being built, "try again in a moment": the
# table takes seconds of CPU, not built here.
PREPARING = (503, "/advice")
# The hosted household, joined by name and passphrase.
HOSTED_NAME = "Les Martin"
PASSPHRASE = "robust passphrase"
# What is counted in the database by design: refused attempts (wrong PINs, passphrases,
# sign-ups), and hosted the PDF pages a household has drawn this minute (a use is forgotten
# a minute later, tests/web/test_quotas.py). The tables a refused request may change.
COUNTED_TABLES = {"attempt_counts", "quota_uses"}
# The spectator link of the game in progress, and hosted the link that joins another
# household: the routes that take a token get it.
SPECTATOR_TOKEN = "spectator-token-of-the-game-in-progress"
NEIGHBOURS = "Les Voisins"


def _server_error(status: int, url: str) -> bool:
    preparing = status == PREPARING[0] and urlsplit(url).path.endswith(PREPARING[1])
    return status >= 500 and not preparing


@pytest.fixture(scope="module", params=["home", "hosted"])
def app(request, tmp_path_factory):
    """A household with a game in progress, a finished one and an abandoned one: the one
    household of a home, or one of a hosted server (HOUSEHOLDS), its device joined."""
    yield from _household(tmp_path_factory, hosted=request.param == "hosted")


def _household(tmp_path_factory, hosted: bool):
    folder = tmp_path_factory.mktemp("instance")
    database_url = take_database(folder)
    app = create_app(
        {"TESTING": True, "DATABASE_URL": database_url, **(HOSTED if hosted else {})},
        instance_path=folder,
    )
    app.extensions[ADVISOR_EXTENSION] = NeverBuiltStrategies(app.instance_path)
    store = app.extensions[STORE_EXTENSION]
    household = (
        create_household(store, HOSTED_NAME, passphrase_hash(PASSPHRASE))
        if hosted
        else HOME_HOUSEHOLD
    )
    playing = start_game(store, Rules(), ["Mag", "Alix"], household=household, quotas=NO_QUOTAS)
    play_turn(store, playing, 0, "free", "sixes", "66662", household=household)
    play_turn(store, playing, 1, "free", "ones", "11123", household=household)
    finished = start_game(store, Rules(), ["Mag"], household=household, quotas=NO_QUOTAS)
    for seq, box in enumerate(Rules().boxes):
        play_turn(store, finished, seq, "free", box, "12346", household=household)
    abandoned = start_game(store, Rules(), ["Léa"], household=household, quotas=NO_QUOTAS)
    abandon_game(store, abandoned, household=household)
    set_spectator_token(store, playing, SPECTATOR_TOKEN, household=household)
    if hosted:
        neighbours = create_household(store, NEIGHBOURS, passphrase_hash(PASSPHRASE))
        add_join_link(store, neighbours, SPECTATOR_TOKEN, datetime.now(UTC) + timedelta(days=1))
    app.config["GAME_IDS"] = (playing, finished, abandoned)
    yield app
    store.dispose()
    give_database(database_url)


# What any request of a joined device may change: when it was last seen, once a minute.
SEEN_COLUMNS = {"devices": {"last_seen_at"}}


def _snapshot(app) -> dict:
    with app.extensions[STORE_EXTENSION].engine.connect() as connection:
        return {table: connection.execute(query).all() for table, query in _snapshot_queries(app)}


def _snapshot_queries(app) -> list[tuple[str, object]]:
    """One SELECT a table, every column but those any request may change: read from the
    schema once per app (no request changes the schema), since the form walk snapshots the
    database around each of its thousands of posts."""
    if "SNAPSHOT_QUERIES" not in app.config:
        with app.extensions[STORE_EXTENSION].engine.connect() as connection:
            schema = inspect(connection)
            queries = []
            for table in sorted(set(schema.get_table_names()) - COUNTED_TABLES):
                columns = ", ".join(
                    f'"{column["name"]}"'
                    for column in schema.get_columns(table)
                    if column["name"] not in SEEN_COLUMNS.get(table, ())
                )
                queries.append((table, text(f'SELECT {columns} FROM "{table}" ORDER BY 1')))
        app.config["SNAPSHOT_QUERIES"] = queries
    return app.config["SNAPSHOT_QUERIES"]


def _encoded(fields) -> str:
    """A query or form body; a lone surrogate goes as the bytes UTF-8 would give it."""
    return urlencode(fields, errors="surrogatepass")


def _client(app):
    """A test client; on a hosted server, its device has joined the household."""
    client = app.test_client()
    if app.config["HOUSEHOLDS"]:
        response = client.post(
            "/household/join",
            data={
                "name": HOSTED_NAME,
                "passphrase": PASSPHRASE,
                "csrf_token": csrf_token(client, "/household/join"),
            },
        )
        assert response.status_code in (302, 303), response.status_code
    return client


def _get_pages(app) -> list[str]:
    """Every GET route of the URL map, once per game kind for the routes of a game."""
    return route_paths(
        app,
        {
            "game_id": app.config["GAME_IDS"],
            "player_id": [1],
            "token": [SPECTATOR_TOKEN],
            "filename": ["css/app.css"],
        },
    )


def _hostile_token_paths(app) -> list[str]:
    """Every GET route that takes a token (not an id), with a hostile one."""
    paths = []
    for rule in app.url_map.iter_rules():
        if "GET" in rule.methods and "token" in rule.arguments:
            paths += [
                rule.rule.replace("<token>", quote(value, safe="", errors="surrogatepass"))
                for value in ["", "x" * 300, "é" * 100, "..", *UNSTORABLE]
            ]
    return paths


def test_every_get_route_with_hostile_query_arguments(app, capsys):
    client = _client(app)
    before = _snapshot(app)
    pages = _get_pages(app)
    count = 0
    read_somewhere = set()
    for page in pages:
        # The names the route reads: a name it never looks up changes nothing when it comes
        # alone (tests/support/walk.py). Every name the app reads is one of NAMES_READ.
        with query_names_read(app) as read:
            status = client.get(page).status_code
        assert not _server_error(status, page), (page, status)
        assert read <= {*NAMES_READ, EVERY_NAME}, (page, read - {*NAMES_READ, EVERY_NAME})
        names = QUERY_NAMES if EVERY_NAME in read else [n for n in QUERY_NAMES if n in read]
        read_somewhere |= read
        # Every name at once with each value, then names given twice, then each name read
        # alone with the values that used to crash a parser (a route may stop at the first
        # argument it refuses).
        queries = [
            _encoded(dict.fromkeys(QUERY_NAMES, value)) for value in [*HOSTILE_NUMBERS, *UNSTORABLE]
        ]
        queries.append("page=1&page=2&step=1&step=x&rules=a&rules=b")
        queries += [
            urlencode({name: value})
            for name, value in itertools.product(names, HOSTILE_NUMBERS[:3] + ["١"])
        ]
        for query in queries:
            status = client.get(f"{page}?{query}").status_code
            assert not _server_error(status, page), (page, query[:120], status)
        count += len(queries)
    # The reads are seen: the hall of fame's page, the review's step, the sheet's dice.
    assert {"page", "step", "dice"} <= read_somewhere, read_somewhere
    paths = _hostile_token_paths(app)
    for path in paths:
        status = client.get(path).status_code
        assert not _server_error(status, path), (path, status)
        if NUL in path or "%00" in path:
            assert status == 404, (path, status)
    assert _snapshot(app) == before
    with capsys.disabled():
        print(
            f"\nroutes: {len(pages)} GET pages, {count} hostile queries, "
            f"{len(paths)} hostile token paths"
        )


def _game_file(players: list[str], box: str = "sixes", rules: dict | None = None) -> bytes:
    document = {
        "rules": rules or {},
        "players": players,
        "entries": [{"player": players[0], "box": box, "dice": [6, 6, 6, 2, 1]}],
    }
    return json.dumps(document).encode()


# Game files that would be legal but for a NUL or a lone surrogate, as JSON escapes (and a
# raw NUL byte): each is refused whole, with a 400.
HOSTILE_GAME_FILES = [
    _game_file(["\ud800"]),
    _game_file(["Mag\udfff"]),
    _game_file(["Mag\x00"]),
    _game_file(["Mag"], rules={"preset\x00": "classique"}),
    _game_file(["Mag"], box="\ud800"),
    _game_file(["Mag"]).replace(b'"Mag"', b'"M\x00ag"', 1),
]


def test_imported_files_with_hostile_text_are_refused(app, capsys):
    client = _client(app)
    if app.config["HOUSEHOLDS"]:
        # Hosted, importing asks for the household's PIN: its passphrase.
        client.post(
            "/household-pin",
            data={
                "household_pin": PASSPHRASE,
                "household_next": "/",
                "csrf_token": csrf_token(client, "/import-export"),
            },
        )
    before = _snapshot(app)
    for content in HOSTILE_GAME_FILES:
        response = client.post(
            "/import-export/import",
            data={
                "file": (BytesIO(content), "games.json"),
                "csrf_token": csrf_token(client, "/import-export"),
            },
        )
        assert response.status_code == 400, (content, response.status_code)
        assert _snapshot(app) == before, content
    # The same file, once clean, goes in: the refusals above were the text's.
    response = client.post(
        "/import-export/import",
        data={
            "file": (BytesIO(_game_file(["Mag", "Zoé"])), "games.json"),
            "csrf_token": csrf_token(client, "/import-export"),
        },
    )
    assert response.status_code == 303, response.get_data(as_text=True)
    with capsys.disabled():
        print(f"\nimport: {len(HOSTILE_GAME_FILES)} hostile game files refused")


# -- forms ---------------------------------------------------------------------------------


def _forms(app, client) -> list[FoundForm]:
    """Every form of every page, once: the language form of every page is one form."""
    found: dict[tuple, FoundForm] = {}
    for form in find_forms(client, _get_pages(app)):
        names = tuple(name for name, _value in [*form.fields, *form.buttons])
        found.setdefault((form.action, names), form)
    return list(found.values())


def _variants(form: FoundForm):
    """(what, fields) for each field of the form missing, empty, repeated and hostile."""
    fields = [*form.fields, *form.buttons[:1]]
    named = [(i, name) for i, (name, _value) in enumerate(fields) if name != "csrf_token"]
    for i, name in named:
        others = fields[:i] + fields[i + 1 :]
        yield f"{name} missing", others
        yield f"{name} empty", [*others, (name, "")]
        yield f"{name} repeated", [*fields, (name, fields[i][1] or "1")]
        for value in HOSTILE_TEXTS:
            yield f"{name}={value[:12]!r}", [*others, (name, value)]
    yield "an unknown field", [*fields, ("unknown", "1"), ("_method", "DELETE")]


def _json_bodies(form: FoundForm):
    """(what, body) for the form's fields sent as JSON, each value unstorable in turn."""
    fields = [*form.fields, *form.buttons[:1]]
    for value in UNSTORABLE:
        yield (
            f"JSON {value!r}",
            json.dumps(
                {
                    "unknown": value,
                    **{name: value for name, _value in fields if name != "csrf_token"},
                }
            ),
        )


def test_every_form_posted_with_each_field_missing_empty_repeated_and_hostile(app, capsys):
    client = _client(app)
    forms = _forms(app, client)
    post_routes = {rule.endpoint for rule in app.url_map.iter_rules() if "POST" in rule.methods}
    found = {endpoint_of(app, form.action) for form in forms}
    if not app.config["HOUSEHOLDS"]:
        post_routes -= HOSTED_ONLY
    assert post_routes - NOT_ON_A_PAGE <= found, "a POST route that no page's form reaches"
    # Destructive forms last, so that the others still find their game.
    forms.sort(key=lambda form: endpoint_of(app, form.action) in DESTRUCTIVE)
    cases = 0
    # The database as the next post finds it: read again after each post, which a refused
    # post must have left as it was.
    before = _snapshot(app)
    for form in forms:
        for what, fields in _variants(form):
            response = client.post(
                form.action, data=_encoded(fields), content_type="application/x-www-form-urlencoded"
            )
            status = response.status_code
            assert status < 500, (form.action, what, status)
            after = _snapshot(app)
            if status >= 400:
                assert after == before, (form.action, what, status)
            before = after
            cases += 1
        token = dict(form.fields).get("csrf_token", "")
        for what, body in _json_bodies(form):
            response = client.post(
                form.action,
                data=body,
                content_type="application/json",
                headers={"X-CSRFToken": token},
            )
            assert response.status_code == 400, (form.action, what, response.status_code)
            assert _snapshot(app) == before, (form.action, what)
            cases += 1
    with capsys.disabled():
        print(
            f"\nforms: {len(forms)} forms on {len({form.page for form in forms})} pages, "
            f"{len(found)} POST routes, {cases} posts"
        )
