"""What a hosted household writes lands in that household only, proven from the URL map.

Two households, each with games in progress, finished and abandoned, players, a spectator
link and two devices. With each household's device in turn, every POST route is driven
through its real form, found on the app's pages (or on the answer to the post before, as a
player goes on from it), with data that makes it succeed. After every request every row of
every table, as the database lists them, is compared with the row before: each row added,
changed or removed must belong to the household that asked, so no row of another household
changed or disappeared. A table without an ownership rule below, or a POST route of the URL
map that no form reached, fails the test: a route or a table added later is covered without
anyone remembering to.

Runs on SQLite, and on PostgreSQL with SCOREKEEPER_TEST_DATABASE_URL (tests/support/databases.py);
`pytest -n 0 -s` prints the counts.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from io import BytesIO
from urllib.parse import urlsplit

import pytest
from flask.testing import FlaskClient
from werkzeug.datastructures import MultiDict
from werkzeug.exceptions import HTTPException

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.rules import Rules
from scorekeeper.store.households import create_household, list_devices
from scorekeeper.web.conseil import ADVISOR_EXTENSION
from scorekeeper.web.passphrases import passphrase_hash
from scorekeeper.web.security import PIN_FIELD
from testing.samples import random_document
from tests.support.apps import HOSTED, PASSPHRASE, app_on
from tests.support.walk import (
    FoundForm,
    NeverBuiltStrategies,
    endpoint_of,
    fill_household,
    forms_on,
    join_household,
    links_on,
    route_paths,
    snapshot,
)

HOUSEHOLDS = {
    "Les Aubert": ["Aglaé", "Anatole", "Apolline"],
    "Les Berthier": ["Baptiste", "Bérénice", "Blanche"],
}
# The dice typed for a turn: every free box takes them (a barred box asks to confirm).
DICE = "12346"


# Who owns a row of each table: the households it points to, by its own column or through its
# game or its player. A row pointing to no household, or to two, belongs to none.
OWNERS = {
    "households": lambda row, of: [row["id"]],
    "games": lambda row, of: [row["household_id"]],
    "players": lambda row, of: [row["household_id"]],
    "game_players": lambda row, of: [of.game(row["game_id"]), of.player(row["player_id"])],
    "entries": lambda row, of: [of.game(row["game_id"])],
    "results": lambda row, of: [
        row["household_id"],
        of.game(row["game_id"]),
        of.player(row["player_id"]),
    ],
    "rule_sets": lambda row, of: [row["household_id"]],
    "coach_figures": lambda row, of: [row["household_id"], of.game(row["game_id"])],
    "player_stats": lambda row, of: [of.player(row["player_id"])],
    "player_box_stats": lambda row, of: [of.player(row["player_id"])],
    "spectator_links": lambda row, of: [of.game(row["game_id"])],
    "devices": lambda row, of: [row["household_id"]],
    "join_links": lambda row, of: [row["household_id"]],
    "quota_uses": lambda row, of: [row["household_id"]],
    # The server's own limits: tries counted per address, per name tried and overall (a
    # name only as its hash), and a household's wrong PINs per address (under its id). No
    # household's data; every sign-in attempt counts by design.
    "attempt_counts": None,
    # The schema's version is no household's: no request may change it.
    "alembic_version": lambda row, of: [],
}

# The order a household's forms are posted in: its PIN first (the guarded forms then show),
# a game played before it is abandoned, taken up, deleted; the forms that sign a device in
# or remove one near the end, and the household's deletion last of all. A route missing
# here goes before the first that deletes.
ORDER = [
    "pin.unlock",
    "games.new",
    "games.play",
    "games.undo",
    "games.rematch",
    "spectating.spectator_link",
    "players.rename",
    "transfer.upload",
    "devices.new_join_link",
    "language.choose",
    "review.abandon",
    "review.resume",
    "players.merge",
    "review.delete",
    "devices.remove",
    "joining.join",
    "joining.signup",
    "devices.delete",
]
UNLISTED = ORDER.index("review.abandon") - 0.5
# Posted by a new device: they sign it in (into a new household, for the sign-up).
SIGN_IN = {"joining.join", "joining.signup"}
# Routes that succeed without a row: the language lives in the device's cookie, the
# unlocked PIN in its session.
NO_ROWS = {"language.choose", "pin.unlock"}
# Posted once both households have driven every other route: each deletion then has the
# other household's rows to leave alone.
LAST = "devices.delete"


@dataclass
class Owners:
    """Whose each game and player is, and which household has each name, in the rows
    before and after a request (a deleted game's entries still have an owner)."""

    games: dict = field(default_factory=dict)
    players: dict = field(default_factory=dict)

    @classmethod
    def of(cls, *snapshots) -> Owners:
        found = cls()
        for rows in snapshots:
            found.games.update({row["id"]: row["household_id"] for row in rows["games"].values()})
            found.players.update(
                {row["id"]: row["household_id"] for row in rows["players"].values()}
            )
        return found

    def game(self, game_id: int) -> int | None:
        return self.games.get(game_id)

    def player(self, player_id: int) -> int | None:
        return self.players.get(player_id)

    def owner(self, table: str, row: dict) -> int | None:
        households = set(OWNERS[table](row, self))
        return households.pop() if len(households) == 1 else None


class Ledger:
    """Every row as the last request left it; each request's changes are checked against it."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self.rows = snapshot(engine)
        unruled = set(self.rows) - set(OWNERS)
        assert not unruled, f"say in OWNERS which household owns the rows of {sorted(unruled)}"
        self.requests = 0

    def check(self, what: str, household: int | None) -> int:
        """Compare every table with the last check: every row added, changed or removed must
        belong to `household` (None: to the one household this request created). Returns
        how many rows changed."""
        before, after = self.rows, snapshot(self.engine)
        self.rows = after
        self.requests += 1
        changes = list(_changes(before, after))
        if household is None:
            created = [
                new["id"] for table, old, new in changes if table == "households" and old is None
            ]
            assert len(created) == 1, f"{what}: {len(created)} households created, not one"
            household = created[0]
        owners = Owners.of(before, after)
        wrong = [
            f"{table} {row} (household {owners.owner(table, row)})"
            for table, old, new in changes
            for row in (old, new)
            if row is not None
            and OWNERS[table] is not None
            and owners.owner(table, row) != household
        ]
        assert not wrong, (
            f"{what}, asked by household {household}, changed rows that are "
            f"not its own: " + "; ".join(wrong[:8])
        )
        # A device's last-seen time, which any request refreshes once a minute has passed
        # (a slow run passes it), is the request's own bookkeeping, not data it wrote.
        return len([change for change in changes if not _only_seen(*change)])


def _only_seen(table: str, old: dict | None, new: dict | None) -> bool:
    return (
        table == "devices"
        and old is not None
        and new is not None
        and {key for key in old if old[key] != new.get(key)} == {"last_seen_at"}
    )


def _changes(before: dict, after: dict):
    """(table, row before, row after) of every row added, changed or removed."""
    for table in sorted(after):
        old, new = before[table], after[table]
        for key in old.keys() | new.keys():
            if old.get(key) != new.get(key):
                yield table, old.get(key), new.get(key)


@dataclass
class Household:
    id: int
    name: str
    names: list[str]
    owned: dict
    device: FlaskClient | None = None
    device_id: int = 0

    def route_values(self) -> dict:
        return {
            "game_id": self.owned["games"],
            "player_id": self.owned["players"],
            "token": [self.owned["token"]],
            "filename": ["css/app.css"],
        }


def _replaced(fields: list[tuple[str, str]], values: dict[str, str]) -> list[tuple[str, str]]:
    kept = [(name, value) for name, value in fields if name not in values]
    return [*kept, *values.items()]


def _import_file(household: Household) -> tuple[BytesIO, str]:
    """A finished game of one of the household's players and a newcomer."""
    players = [household.names[0], f"Invitée {household.id}"]
    document = random_document(Rules(), players, random.Random(household.id))
    return BytesIO(json.dumps(document).encode()), "games.json"


def _valid(form: FoundForm, endpoint: str, household: Household) -> MultiDict:
    """The form as a player fills it to make it succeed: what it shows, its first button
    pressed, and what each route needs typed or chosen."""
    fields, pressed = list(form.fields), form.buttons[:1]
    if PIN_FIELD in form.names:
        fields = _replaced(fields, {PIN_FIELD: PASSPHRASE})
    if endpoint == "games.new":
        fields = _replaced(
            fields, {"names-0": household.names[0], "names-1": f"Invité {household.id}"}
        )
    elif endpoint == "games.play" and form.value("target") is None:
        # The sheet: the dice typed, then the first free box of the active player tapped.
        fields = _replaced(fields, {"dice": DICE})
        pressed = [(name, value) for name, value in form.buttons if name == "target"][:1]
    elif endpoint == "players.rename":
        fields = _replaced(fields, {"name": f"{form.value('name')} bis"})
    elif endpoint == "transfer.upload":
        fields.append(("file", _import_file(household)))
    elif endpoint == "joining.join":
        fields = _replaced(fields, {"name": household.name, "passphrase": PASSPHRASE})
    elif endpoint == "joining.signup":
        fields = _replaced(
            fields, {"name": f"Nouvelle maison {household.id}", "passphrase": PASSPHRASE}
        )
    return MultiDict([*fields, *pressed])


class Walk:
    """One household's device posting every form it is shown, each once."""

    def __init__(self, app, ledger: Ledger, household: Household) -> None:
        self.app, self.ledger, self.household = app, ledger, household
        self.client = household.device
        self.found: dict[tuple, FoundForm] = {}
        self.posted: set[tuple] = set()
        self.succeeded: set[str] = set()
        self.wrote: set[str] = set()
        self.posts = 0

    @staticmethod
    def key(form: FoundForm) -> tuple:
        return urlsplit(form.action).path, form.names

    def endpoint(self, form: FoundForm) -> str:
        return endpoint_of(self.app, form.action)

    def look(self) -> None:
        """Every page of the household's device, for the forms on them."""
        for page in route_paths(self.app, self.household.route_values()):
            self._keep(page, self.client.get(page))
        self.ledger.check(f"{self.household.name}: every page", self.household.id)

    def _keep(self, page: str, response) -> None:
        if response.mimetype == "text/html":
            for form in forms_on(page, response.get_data(as_text=True)):
                self.found.setdefault(self.key(form), form)

    def run(self, wanted) -> None:
        """Post every form found so far, and found on the way, whose route is `wanted`."""

        def rank(key: tuple) -> float:
            endpoint = self.endpoint(self.found[key])
            return ORDER.index(endpoint) if endpoint in ORDER else UNLISTED

        while pending := [
            key
            for key, form in self.found.items()
            if key not in self.posted and wanted(self.endpoint(form))
        ]:
            key = min(pending, key=rank)
            self.posted.add(key)
            self._post_found(self.found[key])

    def _post_found(self, form: FoundForm) -> None:
        """Open the form's page again (its sheet version and token are the current ones),
        then post the form as it is shown now."""
        endpoint = self.endpoint(form)
        device = self.app.test_client() if endpoint in SIGN_IN else self.client
        shown = self._page(device, form.page)
        fresh = [
            found
            for found in shown
            if self.key(found) == self.key(form) and not self._is_this_device(found)
        ]
        if fresh:
            self._submit(device, fresh[0])

    def _page(self, device, page: str) -> list[FoundForm]:
        """The forms of a page; past its PIN page, when the page is guarded and locked."""
        forms = forms_on(page, device.get(page).get_data(as_text=True))
        self.ledger.check(f"{self.household.name}: GET {page}", self.household.id)
        pin = [form for form in forms if PIN_FIELD in form.names]
        if pin:
            self._submit(device, pin[0])
            forms = forms_on(page, device.get(page).get_data(as_text=True))
        return forms

    def _is_this_device(self, form: FoundForm) -> bool:
        # Removing itself signs the walking device out (tests/web/test_households.py).
        return form.value("device") == str(self.household.device_id)

    def _submit(self, device, form: FoundForm) -> None:
        endpoint = self.endpoint(form)
        response = device.post(
            form.action, data=_valid(form, endpoint, self.household), follow_redirects=True
        )
        self.posts += 1
        status = (response.history or [response])[0].status_code
        asker = None if endpoint == "joining.signup" else self.household.id
        changed = self.ledger.check(
            f"{self.household.name}: POST {form.action} ({endpoint}, {status})", asker
        )
        if status >= 400:
            assert changed == 0, f"a refused POST {form.action} ({status}) changed {changed} rows"
        else:
            self.succeeded.add(endpoint)
            if changed:
                self.wrote.add(endpoint)
        if device is not self.client or response.mimetype != "text/html":
            return
        html = response.get_data(as_text=True)
        if response.history:
            # Redirected to a page: its forms can be opened again like any page's.
            self._keep(response.request.path, response)
        else:
            # The post's own answer (a box to confirm, the PIN): a player goes on from it.
            for found in forms_on(form.action, html):
                if self.key(found) not in self.found:
                    self.found[self.key(found)] = found
                    self.posted.add(self.key(found))
                    self._submit(device, found)
        for link in links_on(html):
            self._open_as_a_new_device(link)

    def _open_as_a_new_device(self, link: str) -> None:
        """A link the answer shows for another device (to join, to watch), opened on one;
        a form the link's page shows to confirm, at the link's own address, is posted."""
        try:
            endpoint = endpoint_of(self.app, link, method="GET")
        except HTTPException:
            return  # not a page of the app (an anchor, say)
        if not any("token" in rule.arguments for rule in self.app.url_map.iter_rules(endpoint)):
            return
        device = self.app.test_client()
        path = urlsplit(link).path
        response = device.get(link, follow_redirects=True)
        self.ledger.check(f"{self.household.name}: a new device opens {link}", self.household.id)
        for form in forms_on(path, response.get_data(as_text=True)):
            if urlsplit(form.action).path == path:
                self._submit(device, form)


@pytest.fixture
def hosted(instance_path, database_url):
    """A hosted server with CSRF on, two households filled and their devices joined."""
    with app_on(instance_path, database_url, **HOSTED) as app:
        app.extensions[ADVISOR_EXTENSION] = NeverBuiltStrategies(app.instance_path)
        store = app.extensions[STORE_EXTENSION]
        households = []
        for seed, (name, names) in enumerate(HOUSEHOLDS.items(), start=1):
            household_id = create_household(store, name, passphrase_hash(PASSPHRASE))
            household = Household(
                household_id, name, names, fill_household(store, household_id, names, seed)
            )
            # A second device, which the walking one may remove.
            join_household(app.test_client(), name, PASSPHRASE)
            household.device = app.test_client()
            join_household(household.device, name, PASSPHRASE)
            household.device_id = max(device.id for device in list_devices(store, household_id))
            households.append(household)
        yield app, households


def test_every_post_route_writes_into_the_household_that_asked_only(hosted, capsys):
    app, households = hosted
    ledger = Ledger(app.extensions[STORE_EXTENSION].engine)
    post_routes = {rule.endpoint for rule in app.url_map.iter_rules() if "POST" in rule.methods}
    walks = [Walk(app, ledger, household) for household in households]
    for walk in walks:
        walk.look()
        walk.run(lambda endpoint: endpoint != LAST)
    for walk in walks:
        walk.run(lambda endpoint: endpoint == LAST)
    for walk in walks:
        name = walk.household.name
        assert post_routes <= walk.succeeded, (
            f"{name}: POST routes no form drove to success: {sorted(post_routes - walk.succeeded)}"
        )
        assert post_routes - NO_ROWS <= walk.wrote, (
            f"{name}: POST routes that wrote nothing: {sorted(post_routes - NO_ROWS - walk.wrote)}"
        )
    engine = app.extensions[STORE_EXTENSION].engine.dialect.name
    with capsys.disabled():
        print(
            f"\nwrite isolation ({engine}): {len(post_routes)} POST routes x "
            f"{len(walks)} households, {sum(len(walk.posted) for walk in walks)} forms, "
            f"{sum(walk.posts for walk in walks)} posts, {len(ledger.rows)} tables compared "
            f"after each of {ledger.requests} steps"
        )
