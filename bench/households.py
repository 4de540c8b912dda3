"""Benchmark of one household's pages in a database of 10 and of 10,000 households.

    PYTHONPATH=. python bench/households.py [--households 10000] [--small 10] [--games 3]

Budget (issue 16): the hall of fame, a player page and the home page of one household cost
the same whether the database holds 10 households or 10,000 (ratio <= 1.2x). Figures and
ratios measured in one run; not a test.

Both databases hold the same measured household (the home one: 1,000 finished games of 8
players, as bench/halloffame.py makes them, and 3 games in progress); every other household
has 8 players of its own, ``--games`` finished games of the same rule sets and one game in
progress, so that every table the pages read is shared with the others. Rows are inserted in
bulk; the counters come from the store's own rebuild. The two apps are then timed turn about
(median of ``--repeat``, test client), so that a busy machine weighs on both alike.

    PYTHONPATH=. python bench/households.py --fairness [--admin-url URL] [--seconds 15]
        [--rounds 3] [--quotas lifted] [--hostile]

Sharing one server fairly (issue 23): a real hosted server (gunicorn ``-w 2`` on PostgreSQL
as docs/hosting.md runs it, and ``scorekeeper serve`` on SQLite) where one
household plays: a tablet that plays a turn (the POST and the sheet it leads to) every
``TURN_PAUSE_SECONDS``, polls the game's version as live.js does and prints its sheet every
few seconds. Then, one after the other, each abuse runs as fast as it can from other
loopback addresses, in a process of its own (so that its threads never slow the measuring
one): strangers signing up from 8 threads, one household importing 2,000-game files from 4
devices, one household asking for 50-page blank grids never asked before from 8 threads.
A refusal that says when to come back (Retry-After) is obeyed, as a family's tablet would
tap again later; ``--hostile`` asks again at once. Each abuse runs ``--rounds`` times for
``--seconds``, each time after as long a window of the household alone (the abuse paused),
so that the machine's other work weighs on both alike. For each abuse: the household's turn
and poll p95 idle and abused, their ratio (goal <= 2x), the share of its prints served, and
what the abuse got. ``--quotas lifted`` sets every per-household quota out of reach, so that
only the fair queues stand between the abuse and the others. Bounded: each window stops by
itself. docs/performance.md says more.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import multiprocessing
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlencode, urlsplit

from sqlalchemy import insert

from bench.halloffame import (
    ENTRIES_INSERT,
    HOUSEHOLD,
    PLAYER_COUNTS,
    RULE_SETS,
    SPACING,
    START,
    build_pool,
    fill,
    median_page_times,
)
from bench.hosted import fresh_database, gunicorn_command
from bench.import_lock import documents
from bench.server import percentile
from scorekeeper.app import DATABASE_FILE, STORE_EXTENSION, create_app
from scorekeeper.rules.results import canonical_rules, rules_key
from scorekeeper.store import FINISHED, HOME_HOUSEHOLD, IN_PROGRESS, Store
from scorekeeper.store.games import create_game
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.store.results import rebuild_player_aggregates
from scorekeeper.store.schema import (
    entries,
    game_players,
    games,
    households,
    players,
    results,
    rule_sets,
)
from testing.live import (
    CLIENT_DICE,
    REPO_ROOT,
    SERVE_CODE,
    Client,
    LiveServer,
    Sheet,
)
from testing.samples import new_game_form
from tests.support.forms import csrf_token_in

BUDGET_RATIO = 1.2
HOME_GAMES = 1_000
HOUSEHOLD_BATCH = 500
PAGES = {"/hall-of-fame": "hall of fame", "/players/1": "player page", "/": "home page"}


def fill_others(store: Store, count: int, games_each: int, seed: int) -> None:
    """Add ``count`` households besides the home one, each with its players and games."""
    rng = random.Random(seed)
    pool = build_pool(rng)
    kinds = [index for index, (_options, weight) in enumerate(RULE_SETS) for _ in range(weight)]
    sizes = [size for size, share in PLAYER_COUNTS for _ in range(share)]
    stored_time = entries.c.created_at.type.bind_processor(store.engine.dialect)
    with store.engine.connect() as connection:
        next_game = (
            connection.scalar(
                games.select().with_only_columns(games.c.id).order_by(games.c.id.desc()).limit(1)
            )
            + 1
        )
    for first in range(2, count + 2, HOUSEHOLD_BATCH):
        rows: dict[str, list] = {
            name: []
            for name in (
                "households",
                "players",
                "rule_sets",
                "games",
                "seats",
                "entries",
                "results",
            )
        }
        for household in range(first, min(first + HOUSEHOLD_BATCH, count + 2)):
            rows["households"].append(
                {
                    "id": household,
                    "name": f"Maison {household}",
                    "name_key": f"maison {household}",
                    "passphrase_hash": None,
                    "created_at": START,
                }
            )
            ids = [household * len(HOUSEHOLD) + seat for seat in range(len(HOUSEHOLD))]
            rows["players"].extend(
                {
                    "id": player_id,
                    "household_id": household,
                    "name": name,
                    "name_key": name.casefold(),
                    "created_at": START,
                }
                for player_id, name in zip(ids, HOUSEHOLD, strict=True)
            )
            counts: dict[str, Counter] = {}
            for number in range(games_each + 1):
                size = rng.choice(sizes)
                rules, log, seat_rows = rng.choice(pool[rng.choice(kinds), size])
                seated = rng.sample(ids, size)
                created = START + number * SPACING
                finished = created + timedelta(minutes=30)
                in_progress = number == games_each
                rows["games"].append(
                    {
                        "id": next_game,
                        "household_id": household,
                        "rules": json.dumps(rules.to_dict(), sort_keys=True),
                        "status": IN_PROGRESS if in_progress else FINISHED,
                        "created_at": created,
                        "updated_at": finished,
                        "finished_at": None if in_progress else finished,
                    }
                )
                rows["seats"].extend(
                    {
                        "game_id": next_game,
                        "seat": seat,
                        "player_id": player,
                        "name": HOUSEHOLD[ids.index(player)],
                    }
                    for seat, player in enumerate(seated)
                )
                played = log[: len(log) // 2] if in_progress else log
                rows["entries"].extend(
                    (next_game, seq, seat, column, box, dice, points, stored_time(finished))
                    for seq, (seat, column, box, dice, points) in enumerate(played)
                )
                if not in_progress:
                    rows["results"].extend(
                        {
                            **row,
                            "game_id": next_game,
                            "household_id": household,
                            "finished_at": finished,
                            "player_id": seated[row["seat"]],
                        }
                        for row in seat_rows
                    )
                    key = seat_rows[0]["rules_key"]
                    counts.setdefault(key, Counter()).update(games=1, results=size)
                next_game += 1
            texts = {rules_key(options): canonical_rules(options) for options, _ in RULE_SETS}
            rows["rule_sets"].extend(
                {"household_id": household, "key": key, "rules": texts[key], **counted}
                for key, counted in counts.items()
            )
        with store.engine.begin() as connection:
            for table in (households, players, rule_sets, games):
                connection.execute(insert(table), rows[table.name])
            connection.execute(insert(game_players), rows["seats"])
            connection.exec_driver_sql(ENTRIES_INSERT, rows["entries"])
            if rows["results"]:
                connection.execute(insert(results), rows["results"])
        print(
            f"  {min(first + HOUSEHOLD_BATCH, count + 2) - 1:>6,} households",
            end="\r",
            file=sys.stderr,
        )
    print(file=sys.stderr)
    with store.engine.begin() as connection:
        rebuild_player_aggregates(connection)


def build(folder: Path, households_count: int, games_each: int) -> tuple:
    app = create_app({"TESTING": True}, instance_path=folder)
    store = app.extensions[STORE_EXTENSION]
    start = time.perf_counter()
    fill(store, HOME_GAMES, seed=HOME_GAMES)
    for names in (["Mag", "Alix"], ["Bob"], ["Zoé", "Léa", "Paul"]):
        create_game(store, {}, names, household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    fill_others(store, households_count - 1, games_each, seed=households_count)
    figures = {
        "households": households_count,
        "fill_s": time.perf_counter() - start,
        "size_mb": (folder / DATABASE_FILE).stat().st_size / 1e6,
    }
    return app, figures


# Sharing one server fairly ------------------------------------------------------------------

FAIR_PASSPHRASE = "phrase secrète du banc"
VICTIM_NAME = "Famille Témoin"
VICTIM_GAMES = 120
# The abuses, and the threads each runs as fast as it can.
ABUSE_THREADS = {"signup": 8, "imports": 4, "prints": 8}
ABUSE_TITLES = {
    "signup": "sign-up flood (8 threads)",
    "imports": "2,000-game imports (4 devices)",
    "prints": "unique 50-page grids (8 threads)",
}
IMPORT_GAMES = 2_000
# The measured household: a turn, then this pause; a version poll as often as live.js.
TURN_PAUSE_SECONDS = 0.2
POLL_PAUSE_SECONDS = 0.4
PRINT_PAUSE_SECONDS = 2.0
FAIRNESS_GOAL = 2.0
# Seconds left to the server after the abuse pauses, so that the idle window is idle.
DRAIN_SECONDS = 3.0
# Every per-household quota out of reach: only the fair queues are left.
QUOTAS_LIFTED = {
    "QUOTA_GAMES_STORED": None,
    "QUOTA_IMPORTS_PER_DAY": None,
    "QUOTA_PDF_PAGES_PER_MINUTE": None,
    "QUOTA_ADVISOR_BUILDS_PER_DAY": None,
}
GRID_OPTIONS = {
    "vache": ("0", "1"),
    "plus_minus": ("0", "1"),
    "sec": ("0", "1"),
    "four_kind": ("sum", "fixed40", "base", "matching"),
    "three_kind": ("sum", "base", "matching"),
    "full_house": ("fixed25", "base"),
    "joker": ("official", "free"),
    "dice": ("5", "6"),
    "yams_bonus": ("0", "1"),
    "paper": ("a4", "letter"),
}


class Device:
    """One device: a keep-alive connection from its own loopback address, with its cookies."""

    def __init__(self, port: int, source: str = "127.0.0.1") -> None:
        self.port = port
        self.source = source
        self.client = Client(("127.0.0.1", port))
        self._connect()

    def _connect(self) -> None:
        self.client.connection.close()
        self.client.connection = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=120, source_address=(self.source, 0)
        )

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ):
        for attempt in (1, 2):
            try:
                return self.client.request(method, path, body, headers)
            except (OSError, http.client.HTTPException):
                # gunicorn closes a keep-alive connection idle for 2 s: open another.
                self._connect()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def get(self, path: str, headers: dict[str, str] | None = None):
        return self.request("GET", path, headers=headers)

    def post(self, path: str, fields: dict) -> object:
        return self.request(
            "POST",
            path,
            urlencode(fields).encode(),
            {"Content-Type": "application/x-www-form-urlencoded"},
        )

    def form(self, page_path: str, action: str, fields: dict):
        """POST ``fields`` to ``action`` with the CSRF token of the form at ``page_path``."""
        return self.post(action, {**fields, "csrf_token": csrf_token_in(self.get(page_path).text)})

    def close(self) -> None:
        self.client.close()


def _path(location: str) -> str:
    parts = urlsplit(location)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def sign_up(device: Device, name: str):
    return device.form(
        "/household/new", "/household/new", {"name": name, "passphrase": FAIR_PASSPHRASE}
    )


def join(device: Device, name: str) -> None:
    status = device.form(
        "/household/join", "/household/join", {"name": name, "passphrase": FAIR_PASSPHRASE}
    ).status
    if status != 303:
        raise AssertionError(f"joining {name} answered {status}")


def new_game(device: Device, names: list[str]) -> int:
    page = device.form("/games/new", "/games/new", new_game_form(names))
    if page.status != 303:
        raise AssertionError(f"a new game answered {page.status}")
    return int(_path(page.location).rsplit("/", 1)[1])


@dataclass
class Window:
    """What the measured household saw of the requests it began in one window of time."""

    turns: list[float] = field(default_factory=list)
    polls: list[float] = field(default_factory=list)
    prints: Counter = field(default_factory=Counter)
    errors: Counter = field(default_factory=Counter)


class Victim:
    """The household whose latency is measured: one tablet playing, polling and printing,
    each in a thread of its own, on 127.0.0.1. Each request counts in the window where it
    began, however long it takes."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.lock = threading.Lock()
        # (began, what, value): a turn's or poll's seconds, a print's or error's status.
        self.samples: list[tuple[float, str, object]] = []
        self.began: dict[str, float | None] = {}
        self.stop = threading.Event()
        self.setup = Device(port)
        sign_up(self.setup, VICTIM_NAME)
        self.games = [new_game(self.setup, ["Mag"]) for _ in range(VICTIM_GAMES)]
        self.game_id = self.games.pop(0)
        self.threads = [
            threading.Thread(target=target, daemon=True)
            for target in (self._play, self._poll, self._print)
        ]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def window(self, spans: list[tuple[float, float]]) -> Window:
        """The requests begun within ``spans`` ((start, end) of time.monotonic()), once
        each has ended."""
        end = max(span_end for _start, span_end in spans)
        while True:
            with self.lock:
                if all(began is None or began >= end for began in self.began.values()):
                    samples = [
                        sample
                        for sample in self.samples
                        if any(start <= sample[0] < stop for start, stop in spans)
                    ]
                    break
            time.sleep(0.05)
        window = Window()
        for _began, what, value in samples:
            if what == "turn":
                window.turns.append(value)
            elif what == "poll":
                window.polls.append(value)
            elif what == "print":
                window.prints[value] += 1
            else:
                window.errors[f"{what} {value}"] += 1
        return window

    def close(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join()
        self.setup.close()

    def _device(self) -> Device:
        device = Device(self.port)
        device.client.cookies = self.setup.client.cookies
        return device

    def _begin(self, name: str) -> float:
        began = time.monotonic()
        with self.lock:
            self.began[name] = began
        return began

    def _end(self, name: str, began: float, what: str, value: object) -> None:
        with self.lock:
            self.samples.append((began, what, value))
            self.began[name] = None

    def _play(self) -> None:
        device = self._device()
        rng = random.Random(23)
        sheet = Sheet.read(device.get(f"/games/{self.game_id}").text)
        while not self.stop.is_set():
            if not sheet.playable:
                if not self.games:
                    raise SystemExit("the measured household ran out of games")
                self.game_id = self.games.pop(0)
                sheet = Sheet.read(device.get(f"/games/{self.game_id}").text)
                continue
            began = self._begin("turn")
            started = time.perf_counter()
            answer = device.post(
                f"/games/{self.game_id}/entries",
                device.client.entry_form(sheet, rng.choice(CLIENT_DICE), rng.choice(sheet.targets)),
            )
            if answer.status == 303:
                page = device.get(_path(answer.location))
                self._end("turn", began, "turn", time.perf_counter() - started)
            else:
                self._end("turn", began, "turn error", answer.status)
                page = device.get(f"/games/{self.game_id}")
            sheet = Sheet.read(page.text)
            self.stop.wait(TURN_PAUSE_SECONDS)
        device.close()

    def _poll(self) -> None:
        device = self._device()
        while not self.stop.wait(POLL_PAUSE_SECONDS):
            began = self._begin("poll")
            started = time.perf_counter()
            answer = device.get(f"/games/{self.game_id}/version", {"Accept": "application/json"})
            if answer.status == 200:
                self._end("poll", began, "poll", time.perf_counter() - started)
            else:
                self._end("poll", began, "poll error", answer.status)
        device.close()

    def _print(self) -> None:
        device = self._device()
        while not self.stop.wait(PRINT_PAUSE_SECONDS):
            # A sheet of the game as it is now: a new version after every turn, never cached.
            began = self._begin("print")
            answer = device.get(f"/games/{self.game_id}/sheet.pdf?paper=a4")
            self._end("print", began, "print", answer.status)
        device.close()


def _multipart(token: str, content: bytes) -> tuple[bytes, str]:
    boundary = "bench-fairness-boundary"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="csrf_token"\r\n\r\n'
        f'{token}\r\n--{boundary}\r\nContent-Disposition: form-data; name="file"; '
        'filename="parties.json"\r\nContent-Type: application/json\r\n\r\n'
    ).encode()
    return (
        head + content + f"\r\n--{boundary}--\r\n".encode(),
        f"multipart/form-data; boundary={boundary}",
    )


def _upload(device: Device, content: bytes):
    """One import of the file, the passphrase typed first when the server asks for it."""
    body, kind = _multipart(csrf_token_in(device.get("/import-export").text), content)
    answer = device.request("POST", "/import-export/import", body, {"Content-Type": kind})
    if answer.status == 403 and 'name="household_pin"' in answer.text:
        following = re.search(r'name="household_next"[^>]*value="([^"]*)"', answer.text)
        unlocked = device.post(
            "/household-pin",
            {
                "csrf_token": csrf_token_in(answer.text),
                "household_pin": FAIR_PASSPHRASE,
                "household_next": following.group(1) if following else "/import-export",
            },
        )
        if unlocked.status != 303:
            return unlocked  # the passphrase could not be checked now: Retry-After says when
        body, kind = _multipart(csrf_token_in(device.get("/import-export").text), content)
        answer = device.request("POST", "/import-export/import", body, {"Content-Type": kind})
    return answer


def _grid_queries(seed: int) -> list[str]:
    names = list(GRID_OPTIONS)
    queries = [
        urlencode({"preset": "classique", "pages": "50", **dict(zip(names, values, strict=True))})
        for values in itertools.product(*GRID_OPTIONS.values())
    ]
    random.Random(seed).shuffle(queries)
    return queries


def abuse(
    kind: str, port: int, household: str | None, hostile: bool, ready, active, stop, busy, results
) -> None:
    """The abusing process: its devices made (not timed), then ``ABUSE_THREADS[kind]``
    threads as fast as they can while ``active`` is set, until ``stop``; ``busy`` counts
    their requests under way, and ``results`` gets the statuses they got. A refusal that
    says when to come back (Retry-After) is obeyed, as the family's tablets would tap again
    later; ``hostile``, it is asked again at once."""
    threads = ABUSE_THREADS[kind]
    sources = [f"127.0.0.{2 + number}" for number in range(threads)]
    devices = [Device(port, source) for source in sources]
    if household is not None:
        for device in devices:
            join(device, household)
    content = (
        json.dumps(documents(IMPORT_GAMES, random.Random(23))).encode()
        if kind == "imports"
        else b""
    )
    queries = itertools.cycle(_grid_queries(os.getpid())) if kind == "prints" else None
    counts: Counter = Counter()
    lock = threading.Lock()
    ready.set()

    def run(number: int, device: Device) -> None:
        for attempt in itertools.count():
            active.wait()
            if stop.is_set():
                return
            with lock:
                busy.value += 1
            wait = 0.0
            try:
                if kind == "signup":
                    device.close()
                    device = Device(port, device.source)
                    answer = sign_up(device, f"Foule {os.getpid()} {number} {attempt}")
                elif kind == "imports":
                    answer = _upload(device, content)
                else:
                    with lock:
                        query = next(queries)
                    answer = device.get(f"/sheets/blank.pdf?{query}")
                status = answer.status
                if not hostile and status in (429, 503):
                    wait = float(answer.headers.get("retry-after", 0))
            except OSError as error:
                status = type(error).__name__
            with lock:
                counts[status] += 1
                busy.value -= 1
            stop.wait(wait)

    workers = [
        threading.Thread(target=run, args=(number, device)) for number, device in enumerate(devices)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    results.put(dict(counts))


def _p95_ms(values: list[float]) -> float:
    return percentile(values, 0.95) * 1000 if values else float("nan")


def _p50_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000 if values else float("nan")


def run_abuse(
    kind: str,
    port: int,
    victim: Victim,
    args,
    household: str | None,
) -> tuple[Window, Window, dict]:
    """``args.rounds`` times: the household alone for ``args.seconds`` (the abuse paused,
    its last requests answered and the server left a moment), then as long with the abuse;
    what the household saw in all idle windows, in all abuse windows, and the abuse's
    answers. Turn about, so that the machine's other work weighs on both alike."""
    context = multiprocessing.get_context("spawn")
    ready, active, stop = context.Event(), context.Event(), context.Event()
    busy, results = context.Value("i", 0), context.Queue()
    process = context.Process(
        target=abuse,
        args=(kind, port, household, args.hostile, ready, active, stop, busy, results),
        daemon=True,
    )
    process.start()
    if not ready.wait(300):
        process.kill()
        raise RuntimeError(f"the {kind} abuse did not get ready")
    idle, abused = [], []
    for _round in range(args.rounds):
        while busy.value:
            time.sleep(0.05)
        time.sleep(DRAIN_SECONDS)
        began = time.monotonic()
        time.sleep(args.seconds)
        idle.append((began, time.monotonic()))
        active.set()
        time.sleep(args.seconds)
        active.clear()
        abused.append((idle[-1][1], time.monotonic()))
    stop.set()
    active.set()
    counts = results.get(timeout=900)
    process.join(60)
    return victim.window(idle), victim.window(abused), counts


def _describe(kind: str, idle: Window, during: Window, counts: dict) -> list[str]:
    ratio = _p95_ms(during.turns) / _p95_ms(idle.turns)
    asked = sum(during.prints.values())
    served = during.prints.get(200, 0)
    got = ", ".join(
        f"{status}: {count}"
        for status, count in sorted(counts.items(), key=lambda item: str(item[0]))
    )
    return [
        f"  {ABUSE_TITLES[kind]}",
        f"    turn p50 {_p50_ms(idle.turns):7.1f} -> {_p50_ms(during.turns):7.1f} ms, "
        f"p95 {_p95_ms(idle.turns):7.1f} -> {_p95_ms(during.turns):7.1f} ms: "
        f"{ratio:.2f}x (goal <= {FAIRNESS_GOAL:.0f}x; {len(idle.turns)} and "
        f"{len(during.turns)} turns)",
        f"    poll p95 {_p95_ms(idle.polls):7.1f} -> {_p95_ms(during.polls):7.1f} ms: "
        f"{_p95_ms(during.polls) / _p95_ms(idle.polls):.2f}x",
        f"    its prints served during the abuse: {served} of {asked}"
        + (f" ({served / asked:.0%})" if asked else "")
        + (
            f"; the others got {dict(during.prints - Counter({200: served}))}"
            if asked != served
            else ""
        ),
        f"    errors of the measured household: idle {dict(idle.errors) or 'none'}, "
        f"during {dict(during.errors) or 'none'}",
        f"    the abuse got: {got}",
    ]


def fairness_server(
    name: str, instance: Path, log: Path, command: list[str] | None, database_url: str | None, args
) -> bool:
    print(
        f"{name}, quotas {args.quotas}, "
        f"{'refusals asked again at once' if args.hostile else 'Retry-After obeyed'}:",
        flush=True,
    )
    met = True
    with LiveServer(instance, log, command, database_url=database_url) as server:
        deadline = time.monotonic() + 60
        while True:  # gunicorn listens before its workers answer
            try:
                if Device(server.port).get("/household/join").status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the server never answered")
            time.sleep(0.2)
        victim = Victim(server.port)
        victim.start()
        try:
            for number, kind in enumerate(args.abuses.split(",")):
                household = None
                if kind != "signup":
                    household = f"Famille Abus {number}"
                    device = Device(server.port)
                    sign_up(device, household)
                    device.close()
                idle, during, counts = run_abuse(kind, server.port, victim, args, household)
                for line in _describe(kind, idle, during, counts):
                    print(line, flush=True)
                met = (
                    met
                    and _p95_ms(during.turns) <= FAIRNESS_GOAL * _p95_ms(idle.turns)
                    and during.prints.get(200, 0) == sum(during.prints.values())
                )
        finally:
            victim.close()
    return met


def fairness(args) -> bool:
    os.environ["SCOREKEEPER_SECRET_KEY"] = "bench-fairness-secret"
    # The servers listen on 127.0.0.1: the address the devices open, its port aside.
    settings = {
        "HOUSEHOLDS": True,
        "EXTERNAL_URL": "http://127.0.0.1",
        **(QUOTAS_LIFTED if args.quotas == "lifted" else {}),
    }
    config = "".join(f"{name} = {value!r}\n" for name, value in settings.items())
    print(
        f"{os.cpu_count()} cores shared by the servers and this benchmark; for each abuse "
        f"{args.rounds} rounds of {args.seconds:.0f} s idle then {args.seconds:.0f} s "
        "abused",
        flush=True,
    )
    met = True
    with tempfile.TemporaryDirectory(prefix="bench-fairness-") as folder:
        workdir = Path(folder)
        if "gunicorn" in args.servers:
            instance = workdir / "pg"
            instance.mkdir()
            (instance / "config.py").write_text(config, encoding="utf-8")
            url = fresh_database(args.admin_url, "scorekeeper_bench_fairness")
            subprocess.run(
                [sys.executable, "-c", SERVE_CODE, "migrate", "--instance", str(instance)],
                cwd=REPO_ROOT,
                check=True,
                env={**os.environ, "SCOREKEEPER_DATABASE_URL": url, "PYTHONPATH": str(REPO_ROOT)},
                stdout=subprocess.DEVNULL,
            )
            met &= fairness_server(
                "PostgreSQL, gunicorn -w 2 -k gthread --threads 4",
                instance,
                workdir / "gunicorn.log",
                gunicorn_command(2, instance),
                url,
                args,
            )
        if "waitress" in args.servers:
            instance = workdir / "sqlite"
            instance.mkdir()
            (instance / "config.py").write_text(config, encoding="utf-8")
            met &= fairness_server(
                "SQLite, scorekeeper serve (waitress)",
                instance,
                workdir / "serve.log",
                None,
                None,
                args,
            )
    print("goal met" if met else "GOAL NOT MET")
    return met


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--households", type=int, default=10_000)
    parser.add_argument("--small", type=int, default=10)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument(
        "--fairness",
        action="store_true",
        help="measure instead how one household's abuse weighs on another's",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=15,
        help="fairness: each idle window, then each abuse window",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="fairness: idle and abuse windows, turn about, for each abuse",
    )
    parser.add_argument("--abuses", default="signup,imports,prints")
    parser.add_argument("--servers", default="gunicorn,waitress")
    parser.add_argument("--quotas", choices=("default", "lifted"), default="default")
    parser.add_argument(
        "--hostile", action="store_true", help="fairness: the abuse asks again at once when refused"
    )
    parser.add_argument(
        "--admin-url",
        default="postgresql://postgres@127.0.0.1:5432/postgres",
        help="fairness: a PostgreSQL server where it may create a database",
    )
    args = parser.parse_args()
    if args.fairness:
        sys.exit(0 if fairness(args) else 1)
    with tempfile.TemporaryDirectory(prefix="bench-households-") as folder:
        built = [
            build(Path(folder) / "small", args.small, args.games),
            build(Path(folder) / "large", args.households, args.games),
        ]
        medians = median_page_times([app for app, _figures in built], PAGES, args.repeat)
    print(
        f"{'households':>11} {'fill (s)':>9} {'db (MB)':>8} "
        + " ".join(f"{name + ' (ms)':>18}" for name in PAGES.values())
    )
    for (_app, figures), median in zip(built, medians, strict=True):
        print(
            f"{figures['households']:>11,} {figures['fill_s']:>9.1f} "
            f"{figures['size_mb']:>8.1f} " + " ".join(f"{median[url]:>18.1f}" for url in PAGES)
        )
    ratios = {url: medians[1][url] / medians[0][url] for url in PAGES}
    print(
        f"{'ratio':>11} {'':>9} {'':>8} "
        + " ".join(f"{ratios[url]:>17.2f}x" for url in PAGES)
        + f"   (budget {BUDGET_RATIO:.1f}x)"
    )
    within = max(ratios.values()) <= BUDGET_RATIO
    print("within budget" if within else "OVER BUDGET")
    sys.exit(0 if within else 1)


if __name__ == "__main__":
    main()
