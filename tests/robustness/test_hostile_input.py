"""Random valid and hostile requests through the Flask test client, CSRF on.

Whatever comes in (forms, URLs, ids, methods, encodings, sizes): never a 5xx; a refused
request (4xx) and every GET leave the database exactly as it was; and the totals a sheet
shows are always those of a replay, by the rules, of the entries stored for that game.
"""

import json
import re
import shutil
import tempfile
from html.parser import HTMLParser
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, rule
from sqlalchemy import text

from scorekeeper.app import STORE_EXTENSION, create_app
from scorekeeper.play import load
from scorekeeper.rules import Entry, Rules, replay
from scorekeeper.store import HOME_HOUSEHOLD
from tests.support.databases import give_database, take_database
from tests.support.forms import csrf_token
from tests.support.games import every_row

HOSTILE_TEXT = [
    "<img src=x onerror=alert(1)>",
    '"><script>alert(1)</script>',
    "' OR 1=1 --",
    "{{ 7 * 7 }}",
    "{% raw %}",
    "../../etc/passwd",
    "%00",
    "\x00",
    "\u202eevil",
    "é" * 41,
    "9" * 30,
    "-1",
    "1e9",
    "0x10",
    "NaN",
    "free:ones:extra",
    ":",
    "",
    " ",
    "☃",
    "\r\n",
]
texts = st.one_of(st.sampled_from(HOSTILE_TEXT), st.text(max_size=60))
numbers = st.one_of(st.integers(-10, 60).map(str), st.integers().map(str), texts)
# "%ED%A0%80": half of a surrogate pair as UTF-8 would encode it, which it may not.
segments = st.one_of(
    numbers,
    st.sampled_from(
        [
            "new",
            "entries",
            "undo",
            "ranking",
            "..",
            "%2e%2e",
            "%ff",
            "%00",
            "%ED%A0%80",
            "games",
            "static",
        ]
    ),
)

NEW_GAME_OPTIONS = {
    "preset": ["classique", "triple", "yatzy"],
    "four_kind": ["sum", "fixed40", "base", "matching"],
    "three_kind": ["sum", "base", "matching"],
    "full_house": ["fixed25", "base"],
    "joker": ["official", "free"],
    "dice": ["5", "6"],
    "vache": ["y"],
    "sec": ["y"],
    "yams_bonus": ["y"],
    "plus_minus": ["y"],
}
CONTENT_TYPES = [
    "application/x-www-form-urlencoded",
    "application/x-www-form-urlencoded; charset=latin-1",
    "multipart/form-data",
    "multipart/form-data; boundary=x",
    "application/json",
    "text/plain",
    "application/octet-stream",
    "",
    "text/html; charset=utf-7",
]


def _local(path: str) -> str:
    """A path on this server: "//x" would name another host, "?" and "#" end the path, and
    URL parsers drop tabs and line breaks ("/\r\n/.." would become "//..")."""
    for char, escaped in (("?", "%3F"), ("#", "%23"), ("\t", "%09"), ("\r", "%0D"), ("\n", "%0A")):
        path = path.replace(char, escaped)
    return "/" + path.lstrip("/")


class _Totals(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.totals: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.totals.extend(value for name, value in attrs if name == "data-total")


class HostileTable(RuleBasedStateMachine):
    """One household's server, and a client that sends it anything at all."""

    @initialize()
    def start(self) -> None:
        self.folder = tempfile.mkdtemp(prefix="yams-hostile-")
        self.database_url = take_database(Path(self.folder))
        self.app = create_app(
            {"TESTING": True, "DATABASE_URL": self.database_url}, instance_path=self.folder
        )
        self.store = self.app.extensions[STORE_EXTENSION]
        self.client = self.app.test_client()
        self.token = csrf_token(self.client)
        self.games: list[int] = []
        # PDFs take a good part of a second each; tests/web/test_prints.py sends them bad
        # queries.
        self.paths = sorted(
            {rule.rule for rule in self.app.url_map.iter_rules() if not rule.rule.endswith(".pdf")}
        )
        self.new_valid_game(["Mag", "Alix"], {})

    def teardown(self) -> None:
        if hasattr(self, "store"):
            self.store.dispose()
            give_database(self.database_url)
            shutil.rmtree(self.folder, ignore_errors=True)

    # -- what every request must respect ---------------------------------------------------

    def _snapshot(self) -> dict:
        return every_row(self.store)

    def _send(self, method: str, path: str, **options):
        before = self._snapshot()
        response = self.client.open(path, method=method, **options)
        status = response.status_code
        assert status < 500, f"{method} {path!r} -> {status}"
        if status >= 400 or method in ("GET", "HEAD", "OPTIONS"):
            assert self._snapshot() == before, f"{method} {path!r} -> {status} changed data"
        return response

    def _form(self, fields: dict, token: str | None) -> dict:
        return {**fields, "csrf_token": token} if token is not None else dict(fields)

    def _check_totals(self, game_id: int) -> None:
        """The totals on the sheet are the replay, by the rules, of the stored entries."""
        response = self._send("GET", f"/games/{game_id}")
        if response.status_code == 404:  # deleted meanwhile by a request that may do so
            self.games.remove(game_id)
            return
        assert response.status_code == 200
        with self.store.engine.connect() as connection:
            game = connection.execute(
                text("SELECT rules FROM games WHERE id = :id"), {"id": game_id}
            ).one()
            players = (
                connection.execute(
                    text("SELECT name FROM game_players WHERE game_id = :id ORDER BY seat"),
                    {"id": game_id},
                )
                .scalars()
                .all()
            )
            entries = connection.execute(
                text(
                    'SELECT seat, "column", box, dice, score FROM entries WHERE game_id = :id '
                    "ORDER BY seq"
                ),
                {"id": game_id},
            ).all()
        state = replay(
            Rules.from_dict(json.loads(game.rules)),
            players,
            [Entry(e.seat, e.column, e.box, tuple(map(int, e.dice))) for e in entries],
        )
        for stored, played in zip(entries, state.entries, strict=True):
            assert (
                stored.score
                == state.sheets[played.player].columns[played.column].cells[played.box].points
            )
        shown = _Totals()
        shown.feed(response.get_data(as_text=True))
        assert shown.totals == [str(sheet.total) for sheet in state.sheets]

    # -- the requests ----------------------------------------------------------------------

    @rule(
        names=st.lists(
            st.one_of(st.sampled_from(["Mag", "Alix", "Léa", "Tom"]), texts),
            min_size=0,
            max_size=12,
        ),
        options=st.dictionaries(
            st.sampled_from(sorted(NEW_GAME_OPTIONS)),
            st.one_of(st.sampled_from(["sum", "y", "5", "6"]), texts),
        ),
        valid_options=st.fixed_dictionaries(
            {}, optional={key: st.sampled_from(values) for key, values in NEW_GAME_OPTIONS.items()}
        ),
        hostile=st.booleans(),
        token=st.sampled_from(["good", "bad", "none"]),
    )
    def new_game(self, names, options, valid_options, hostile, token) -> None:
        fields = {f"names-{i}": name for i, name in enumerate(names)}
        fields.update(options if hostile else valid_options)
        response = self._send("POST", "/games/new", data=self._form(fields, self._token(token)))
        if response.status_code == 303:
            self.games.append(int(response.headers["Location"].rstrip("/").rsplit("/", 1)[1]))

    @rule(
        names=st.lists(
            st.sampled_from(["Mag", "Alix", "Léa", "Tom", HOSTILE_TEXT[0]]),
            min_size=1,
            max_size=4,
            unique=True,
        ),
        options=st.fixed_dictionaries(
            {}, optional={key: st.sampled_from(values) for key, values in NEW_GAME_OPTIONS.items()}
        ),
    )
    def new_valid_game(self, names, options) -> None:
        fields = {f"names-{i}": name for i, name in enumerate(names)}
        response = self._send(
            "POST", "/games/new", data=self._form({**fields, **options}, self.token)
        )
        assert response.status_code == 303, response.get_data(as_text=True)
        self.games.append(int(response.headers["Location"].rstrip("/").rsplit("/", 1)[1]))

    def _token(self, kind: str) -> str | None:
        return {"good": self.token, "bad": self.token[:-4] + "AAAA", "none": None}[kind]

    @rule(data=st.data(), confirm=st.booleans())
    def play_a_legal_box(self, data, confirm) -> None:
        if not self.games:
            return
        game_id = data.draw(st.sampled_from(self.games))
        record, state = load(self.store, game_id, household=HOME_HOUSEHOLD)
        if state.is_over:
            return
        player = state.active_player
        targets = [
            f"{kind}:{box}"
            for kind in state.rules.columns
            for box in state.sheets[player].columns[kind].open_boxes
        ]
        target = data.draw(st.sampled_from(targets))
        dice = data.draw(
            st.lists(st.integers(1, 6), min_size=state.rules.dice, max_size=state.rules.dice)
        )
        fields = {
            "seq": len(state.entries),
            "version": record.version.token,
            "dice": "".join(map(str, dice)),
            "target": target,
        }
        if confirm:
            fields["confirm"] = "1"
        before = len(state.entries)
        response = self._send(
            "POST", f"/games/{game_id}/entries", data=self._form(fields, self.token)
        )
        after = len(load(self.store, game_id, household=HOME_HOUSEHOLD)[0].entries)
        assert after == before + (response.status_code == 303)
        if response.status_code == 303:
            self._check_totals(game_id)

    @rule(
        game=numbers,
        fields=st.dictionaries(
            st.sampled_from(
                [
                    "seq",
                    "dice",
                    "target",
                    "confirm",
                    "preview",
                    "player",
                    "score",
                    "seat",
                    "add",
                    "clear",
                ]
            ),
            st.one_of(numbers, texts),
        ),
        action=st.sampled_from(["entries", "undo"]),
        token=st.sampled_from(["good", "bad", "none"]),
        known_game=st.booleans(),
    )
    def post_anything_to_a_game(self, game, fields, action, token, known_game) -> None:
        if known_game and self.games:
            game = str(self.games[hash(game) % len(self.games)])
        response = self._send(
            "POST", f"/games/{game}/{action}", data=self._form(fields, self._token(token))
        )
        if response.status_code == 303 and game in map(str, self.games):
            self._check_totals(int(game))

    @rule(
        data=st.data(),
        method=st.sampled_from(
            ["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "PATCH", "POST", "TRACE"]
        ),
        query=st.dictionaries(texts, texts, max_size=3),
    )
    def any_route_any_method(self, data, method, query) -> None:
        template = data.draw(st.sampled_from(self.paths))
        path = re.sub(r"<[^>]+>", lambda _m: data.draw(segments), template)
        self._send(method, _local(path), query_string=query)

    @rule(parts=st.lists(segments, min_size=1, max_size=4), method=st.sampled_from(["GET", "POST"]))
    def made_up_url(self, parts, method) -> None:
        self._send(method, _local("/".join(parts)))

    @rule(
        data=st.data(),
        content_type=st.sampled_from(CONTENT_TYPES),
        body=st.one_of(
            st.binary(max_size=300),
            st.sampled_from(
                [
                    b"seq=0&dice=\xff\xfe\xfd&target=free:ones",
                    b"seq=%ff%fe&dice=%c3%28",
                    b'{"seq": 0, "dice": "12345", "target": "free:ones"}',
                    b"--x\r\n\r\n--x--",
                    b"names-0=Mag%00&preset=classique",
                    b"names-0=%ED%A0%80&preset=classique",
                    b'{"names-0": "\\ud800", "seq": "\\u0000"}',
                    b"csrf_token=&seq=0",
                    b"seq=0&" * 2000,
                ]
            ),
        ),
        with_token=st.booleans(),
    )
    def strange_encodings(self, data, content_type, body, with_token) -> None:
        path = data.draw(
            st.sampled_from(["/games/new", *[f"/games/{g}/entries" for g in self.games[-2:]]])
        )
        if with_token:
            body = body + b"&csrf_token=" + self.token.encode()
        self._send("POST", path, data=body, content_type=content_type)

    @rule(data=st.data())
    def look_at_a_sheet(self, data) -> None:
        if self.games:
            self._check_totals(data.draw(st.sampled_from(self.games)))


HostileTable.TestCase.settings = settings(
    max_examples=15,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
test_hostile_requests = HostileTable.TestCase
