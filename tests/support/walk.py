"""How the URL-map walks of the tests reach the app as a device does: the pages of every GET
route, the POST forms and links on them, a device joining its household, and every row of
every table of the database to compare before and after.

Used by tests/robustness/test_every_route.py (hostile input on every route and form), and by
tests/web/test_isolation.py and test_write_isolation.py (what one household reads and
writes never reaches another).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import random
import re
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urlsplit

from flask import Flask, url_for
from sqlalchemy import Engine, inspect, text
from werkzeug.datastructures import ImmutableMultiDict
from werkzeug.routing import Rule

from scorekeeper.advisor.builds import Strategies
from scorekeeper.play import play_turn, start_game
from scorekeeper.rules import Rules
from scorekeeper.store.documents import check_files
from scorekeeper.store.households import set_spectator_token
from scorekeeper.store.lifecycle import abandon_game
from scorekeeper.store.players import list_players
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.store.transfer import import_games
from scorekeeper.web import edge
from testing.samples import random_document
from tests.support.forms import csrf_token_in


class NeverBuiltStrategies(Strategies):
    """The advisor's tables as while their build runs: queued, never built (a build takes
    seconds of CPU; the advice page then answers "try again in a moment")."""

    def _build_in_turn(self, rules, ticket, with_chances, ahead) -> None:
        pass


# What query_names_read notes when a request reads its arguments as a whole: iterated,
# counted, copied or turned into a dict.
EVERY_NAME = "*"
# The edge (web/edge.py) scans every text of a request alike, by its value alone: the walk's
# queries that hold every name at once cover it, so its reads are not noted.
_EDGE = edge.__name__


@contextlib.contextmanager
def query_names_read(app: Flask) -> Iterator[set[str]]:
    """The names of the query arguments that the app's requests read while the block runs:
    each name looked up, there or not, or EVERY_NAME. A request that never looks a name up
    answers a query of that name alone as it answers no query at all, but for what reads
    the raw query (the edge's scan, a link back to the page): the walk sends every name at
    once with every value for those."""
    read: set[str] = set()

    def whole() -> None:
        if sys._getframe(2).f_globals.get("__name__") != _EDGE:
            read.add(EVERY_NAME)

    class Arguments(ImmutableMultiDict):
        def __getitem__(self, key):
            read.add(key)
            return super().__getitem__(key)

        def __contains__(self, key):
            read.add(key)
            return super().__contains__(key)

        def getlist(self, key, type=None):
            read.add(key)
            return super().getlist(key, type)

    for method in (
        "__iter__",
        "__len__",
        "keys",
        "values",
        "items",
        "lists",
        "listvalues",
        "to_dict",
        "copy",
        "__copy__",
        "__deepcopy__",
    ):
        setattr(Arguments, method, _noting(getattr(ImmutableMultiDict, method), whole))

    class Request(app.request_class):
        @property
        def args(self):
            if "noted_args" not in self.__dict__:
                self.__dict__["noted_args"] = Arguments(super().args)
            return self.__dict__["noted_args"]

    request_class, app.request_class = app.request_class, Request
    try:
        yield read
    finally:
        app.request_class = request_class


def _noting(method, note):
    @functools.wraps(method)
    def noted(self, *args, **kwargs):
        note()
        return method(self, *args, **kwargs)

    return noted


def fill_household(store, household: int, names: Sequence[str], seed: int) -> dict:
    """Give a household what every route of the app has to work on: finished games of two
    rule sets between its first two players, a game of theirs in progress with a spectator
    link, and an abandoned game of its third player alone. The ids of its games and players,
    and the spectator link's token."""
    rng = random.Random(seed)
    pair, alone = list(names[:2]), [names[2]]
    documents = [
        random_document(Rules.from_dict(rules), pair, rng)
        for rules in ({}, {}, {"preset": "yatzy"})
    ]
    games = import_games(
        store,
        check_files([("games.json", json.dumps(documents))]),
        household=household,
        quotas=NO_QUOTAS,
    )
    playing = start_game(store, Rules(), pair, household=household, quotas=NO_QUOTAS)
    play_turn(store, playing, 0, "free", "sixes", "66662", household=household)
    play_turn(store, playing, 1, "free", "ones", "11123", household=household)
    token = f"token-of-household-{household}"
    set_spectator_token(store, playing, token, household=household)
    abandoned = start_game(store, Rules(), alone, household=household, quotas=NO_QUOTAS)
    abandon_game(store, abandoned, household=household)
    players = list_players(store, household=household)
    return {
        "games": [*games, playing, abandoned],
        "players": [player.id for player in players],
        "token": token,
    }


def route_paths(app: Flask, values: dict[str, Sequence]) -> list[str]:
    """The path of every GET route of the URL map, once for each combination of the given
    values of its arguments (`values` maps an argument's name to its values)."""
    paths = set()
    for rule in app.url_map.iter_rules():
        if "GET" not in rule.methods:
            continue
        names = sorted(rule.arguments)
        missing = set(names) - set(values)
        assert not missing, f"{rule.rule}: give the walk values for {sorted(missing)}"
        with app.test_request_context():
            for combination in itertools.product(*(values[name] for name in names)):
                paths.add(url_for(rule.endpoint, **dict(zip(names, combination, strict=True))))
    return sorted(paths)


def filled_paths(rule: Rule, values: Mapping[str, Sequence]) -> list[str]:
    """The rule's path once for each combination of the given values of its arguments,
    written in as they are: unlike url_for, no converter checks them, so that a test may
    send what a converter would refuse (an id too large for the database)."""
    names = sorted(rule.arguments)
    # "/games/<int:game_id>/sheet" as "/games/{game_id}/sheet"
    template = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)
    return [
        template.format_map(dict(zip(names, combination, strict=True)))
        for combination in itertools.product(*(values[name] for name in names))
    ]


@dataclass
class FoundForm:
    page: str
    action: str
    fields: list[tuple[str, str]] = field(default_factory=list)
    # The named submit buttons: the first one is pressed.
    buttons: list[tuple[str, str]] = field(default_factory=list)

    @property
    def names(self) -> tuple[str, ...]:
        """The names it sends, each once: what tells two forms of one action apart."""
        return tuple(sorted({name for name, _value in [*self.fields, *self.buttons]}))

    def value(self, name: str) -> str | None:
        return next((value for found, value in self.fields if found == name), None)


class _Page(HTMLParser):
    """The POST forms of a page, with the values a player would send untouched, and the
    addresses of its links."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.page = page
        self.forms: list[FoundForm] = []
        self.links: list[str] = []
        self._form: FoundForm | None = None
        self._select: str | None = None

    def handle_starttag(self, tag, attrs) -> None:
        attrs = dict(attrs)
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        if tag == "option" and self._select and self._form is not None:
            # A select sends its first option untouched.
            self._form.fields.append((self._select, attrs.get("value") or ""))
            self._select = None
            return
        if tag == "form" and (attrs.get("method") or "").lower() == "post":
            self._form = FoundForm(self.page, attrs.get("action") or self.page)
            self.forms.append(self._form)
        if self._form is None or not attrs.get("name"):
            return
        name, value = attrs["name"], attrs.get("value") or ""
        kind = (attrs.get("type") or "").lower()
        if tag == "button" or kind == "submit":
            self._form.buttons.append((name, value))
        elif tag == "input" and kind in ("checkbox", "radio"):
            if "checked" in attrs:
                self._form.fields.append((name, value))
        elif tag == "input" and kind != "file":
            self._form.fields.append((name, value))
        elif tag == "select":
            self._select = name
        elif tag == "textarea":
            self._form.fields.append((name, ""))

    def handle_startendtag(self, tag, attrs) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag) -> None:
        if tag == "form":
            self._form = None


def forms_on(page: str, html: str) -> list[FoundForm]:
    """The POST forms of a page (`page`, its path), in the order they appear."""
    parser = _Page(page)
    parser.feed(html)
    return parser.forms


def links_on(html: str) -> list[str]:
    parser = _Page("")
    parser.feed(html)
    return parser.links


def find_forms(client, pages: Iterable[str]) -> list[FoundForm]:
    """Every form of every HTML page among `pages`, as `client` is shown them."""
    found = []
    for page in pages:
        response = client.get(page)
        if response.mimetype == "text/html":
            found.extend(forms_on(page, response.get_data(as_text=True)))
    return found


def endpoint_of(app: Flask, url: str, method: str = "POST") -> str:
    """The endpoint that answers `method` at `url`."""
    return app.url_map.bind("localhost").match(urlsplit(url).path, method=method)[0]


def join_household(client, name: str, passphrase: str) -> None:
    """Join the household as a device does: its name and passphrase in the join form."""
    page = client.get("/household/join").get_data(as_text=True)
    response = client.post(
        "/household/join",
        data={"name": name, "passphrase": passphrase, "csrf_token": csrf_token_in(page)},
    )
    assert response.status_code == 303, response.get_data(as_text=True)


@functools.cache
def _primary_keys(engine: Engine) -> dict[str, list[str]]:
    """Each table of the database (as the database lists them, not as the code's schema
    says) and the columns of its primary key."""
    with engine.connect() as connection:
        found = inspect(connection)
        return {
            name: found.get_pk_constraint(name)["constrained_columns"]
            for name in found.get_table_names()
        }


def snapshot(engine: Engine) -> dict[str, dict[tuple, dict]]:
    """Every row of every table, by table and primary key (the whole row without one)."""
    rows: dict[str, dict[tuple, dict]] = {}
    with engine.connect() as connection:
        for name, key in _primary_keys(engine).items():
            found = rows[name] = {}
            for row in connection.execute(text(f'SELECT * FROM "{name}"')).mappings():
                row = dict(row)
                found[tuple(row[column] for column in key) if key else tuple(row.items())] = row
    return rows
