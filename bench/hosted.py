"""Hosted: how many households a server carries, polling as the sheets did and by push as
they do now, on PostgreSQL with gunicorn and on SQLite with `scorekeeper serve`.

    python -m bench.hosted [--seconds 12] [--households 4,8,16,32] [--admin-url URL]
        [--designs poll,push] [--workers 2,4] [--tablets 3] [--no-sqlite]

A household is three tablets with the same sheet open (--tablets). Every few seconds (5 s,
at a random phase) one tablet plays a turn as static/js/sheet.js does: one POST, answered
with the next sheet. The other tablets learn of it as the design says:
- poll: each tablet asks the game's version every 0.4 s, as live.js did, and loads the sheet
  again when it moved;
- push: each tablet holds the game's stream of changes open (/games/<id>/events), as live.js
  does now: an event brings the new version with its sheet (a version without one, the
  game over, is fetched).
Households play games made beforehand and go on to the next when one ends.

The servers: gunicorn with scorekeeper/gunicorn_conf.py (-w 2 and -w 4) on a fresh
PostgreSQL database of the server at --admin-url, and `scorekeeper serve` on a SQLite file,
both with room for every stream (SCOREKEEPER_LIVE_STREAMS) and the same for both designs.
Each design steps through the numbers of households, --seconds each, while a turn's p95
stays within 100 ms and the other tablets see it within 300 ms at p95. Printed per server
and design: the most households kept, that number per server core (the processes could use
at most min(workers, cores) cores, and the load generator shares them), and at each step the
CPU the load generator itself took, as a share of the machine's cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

from sqlalchemy import create_engine, text

from bench.server import percentile
from scorekeeper.play import start_game
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD, Store
from scorekeeper.store.engine import engine_url
from scorekeeper.store.quotas import NO_QUOTAS
from scripts.hosted_stack import GUNICORN_ENVIRONMENT
from testing.live import REPO_ROOT, SERVE_CODE, LiveServer, Sheet

TABLETS = 3
POLL_SECONDS = 0.4  # static/js/live.js before the push
TURN_SECONDS = 5.0
TURN_P95_GOAL = 0.100
SEE_P95_GOAL = 0.300
# Room for every tablet's stream in each server process, the same for both designs.
LIVE_STREAMS = 2000
SWAP = {"X-Sheet-Swap": "1"}  # static/js/sheet.js and live.js
GAMES_PER_HOUSEHOLD = 3
SECRET = "bench-hosted-secret"
DICE = ("12346", "11235", "22456", "13356", "12445", "23566")


@dataclass
class Figures:
    turns: list[float] = field(default_factory=list)
    # From the start of a turn's POST to the sheet it made shown on each other tablet.
    seen: list[float] = field(default_factory=list)
    polls: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


class Connection:
    """One tablet's keep-alive HTTP/1.1 connection, sharing its household's cookies."""

    def __init__(self, port: int, cookies: SimpleCookie) -> None:
        self.port = port
        self.cookies = cookies
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> tuple[int, dict, bytes]:
        lines = [
            f"{method} {path} HTTP/1.1",
            "Host: 127.0.0.1",
            "Accept-Language: fr",
            f"Content-Length: {len(body)}",
        ]
        cookie = "; ".join(f"{name}={morsel.value}" for name, morsel in self.cookies.items())
        if cookie:
            lines.append(f"Cookie: {cookie}")
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        message = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
        status_line = b""
        for _ in range(2):
            if self.writer is None:
                self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port)
            self.writer.write(message)
            try:
                status_line = await self.reader.readline()
            except ConnectionResetError:
                status_line = b""
            if status_line:
                break
            # The server closed an idle keep-alive connection (gunicorn after 2 s): reopen.
            self.writer.close()
            self.writer = None
        status = int(status_line.split()[1])
        answer: dict[str, str] = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "set-cookie":
                self.cookies.load(value.strip())
            answer[name.lower()] = value.strip()
        content = await self.reader.readexactly(int(answer.get("content-length", 0)))
        if answer.get("connection", "").lower() == "close":
            self.writer.close()
            self.writer = None
        return status, answer, content

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def open_stream(port: int, path: str, cookies: SimpleCookie):
    """A tablet's stream of changes: its reader, once the answer's headers are read."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    cookie = "; ".join(f"{name}={morsel.value}" for name, morsel in cookies.items())
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        f"Cookie: {cookie}\r\n\r\n".encode()
    )
    status = int((await reader.readline()).split()[1])
    while (await reader.readline()) not in (b"\r\n", b""):
        pass
    return status, reader, writer


async def household(
    port: int,
    games: list[int],
    until: float,
    figures: Figures,
    rng: random.Random,
    design: str,
    tablets_count: int = TABLETS,
) -> None:
    cookies = SimpleCookie()
    tablets = [Connection(port, cookies) for _ in range(tablets_count)]
    # The first tablet's form, on a connection of its own as a browser's would be.
    player = Connection(port, cookies)
    games = list(games)
    game_id = games.pop(0)
    status, _, page = await player.request("GET", f"/games/{game_id}")
    sheet = Sheet.read(page.decode())
    # When each version was written (its token), for the other tablets' see-time.
    written: dict[str, float] = {}
    shown = [sheet.version] * tablets_count

    async def show(index: int, version: str) -> None:
        """Tablet `index` learnt of `version`: fetch the sheet, as live.js does."""
        status, _, page = await tablets[index].request("GET", f"/games/{game_id}", headers=SWAP)
        if status != 200:
            figures.errors.append(f"sheet {status}")
            return
        seen(index, Sheet.read(page.decode()).version)

    def seen(index: int, now: str) -> None:
        shown[index] = now
        if now in written:
            figures.seen.append(time.perf_counter() - written[now])

    async def poll(index: int) -> None:
        await asyncio.sleep(rng.uniform(0, POLL_SECONDS))
        while time.monotonic() < until:
            started = time.perf_counter()
            status, _, body = await tablets[index].request(
                "GET", f"/games/{game_id}/version", headers={"Accept": "application/json"}
            )
            figures.polls.append(time.perf_counter() - started)
            if status != 200:
                figures.errors.append(f"version {status}")
            else:
                version = json.loads(body)["version"]
                if version != shown[index]:
                    await show(index, version)
            await asyncio.sleep(POLL_SECONDS)

    async def listen(index: int) -> None:
        path = f"/games/{game_id}/events"
        status, reader, writer = await open_stream(port, path, cookies)
        if status != 200:
            figures.errors.append(f"events {status}")
            writer.close()
            return
        try:
            while time.monotonic() < until:
                try:
                    line = await asyncio.wait_for(reader.readline(), until - time.monotonic())
                except TimeoutError:
                    break
                if not line:
                    figures.errors.append("stream ended")
                    return
                # A chunk of the stream: "data: {...}" lines among chunk sizes and blanks.
                if line.startswith(b"data: "):
                    event = json.loads(line[6:])
                    version = event.get("version")
                    if version is None or version == shown[index]:
                        continue
                    if "sheet" in event:  # the new sheet came with it: no request
                        seen(index, Sheet.read(event["sheet"]).version)
                    else:
                        await show(index, version)
        finally:
            writer.close()

    async def play() -> None:
        nonlocal game_id, sheet
        await asyncio.sleep(rng.uniform(0, TURN_SECONDS))
        while time.monotonic() < until:
            if not sheet.playable:
                # A game over: the next one (its tablets follow it on their next start).
                return
            form = {
                "csrf_token": sheet.csrf_token or "",
                "seq": sheet.seq,
                "version": sheet.version or "",
                "dice": rng.choice(DICE),
                "target": rng.choice(sheet.targets),
                "confirm": "1",
            }
            started = time.perf_counter()
            status, headers, page = await player.request(
                "POST",
                f"/games/{game_id}/entries",
                urlencode(form).encode(),
                {"Content-Type": "application/x-www-form-urlencoded", **SWAP},
            )
            if status == 303:  # the last turn: the ranking
                status, _, page = await player.request("GET", headers["location"])
            if status != 200:
                figures.errors.append(f"turn {status}")
                return
            figures.turns.append(time.perf_counter() - started)
            sheet = Sheet.read(page.decode())
            if sheet.version:
                written[sheet.version] = started
            await asyncio.sleep(TURN_SECONDS)

    others = poll if design == "poll" else listen
    try:
        await asyncio.gather(play(), *(others(index) for index in range(1, tablets_count)))
    finally:
        for tablet in [*tablets, player]:
            tablet.close()


def cpu_seconds(pid: int) -> float:
    """User and system CPU of a process and its children (gunicorn's workers)."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    pids = [pid] + [
        int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    ]
    for each in pids:
        try:
            fields = Path(f"/proc/{each}/stat").read_text().rpartition(")")[2].split()
        except FileNotFoundError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


async def step(
    port: int,
    games: dict[int, list[int]],
    households: int,
    seconds: float,
    design: str,
    tablets: int,
) -> Figures:
    figures = Figures()
    until = time.monotonic() + seconds
    await asyncio.gather(
        *(
            household(port, games[number], until, figures, random.Random(number), design, tablets)
            for number in range(households)
        )
    )
    return figures


def make_games(database_url: str, households: int) -> dict[int, list[int]]:
    store = Store(database_url)
    try:
        store.migrate()
        return {
            number: [
                start_game(
                    store, Rules(), ["Mag", "Alix"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
                )
                for _ in range(GAMES_PER_HOUSEHOLD)
            ]
            for number in range(households)
        }
    finally:
        store.dispose()


async def warm_up(port: int, game_id: int, requests: int) -> None:
    """Answers from every worker before timing: gunicorn listens before its workers boot."""
    for _ in range(requests):
        tablet = Connection(port, SimpleCookie())
        await tablet.request("GET", f"/games/{game_id}")
        tablet.close()


def measure(
    name: str,
    server: LiveServer,
    database_url: str,
    steps: list[int],
    seconds: float,
    cores: float,
    design: str,
    tablets: int,
) -> str:
    games = make_games(database_url, max(steps))
    asyncio.run(warm_up(server.port, games[0][0], 16))
    carried, lines = 0, []
    machine = os.cpu_count() or 1
    # The server's own CPU with no tablet (its processes' timers, the listener's wake-ups),
    # taken out of each step's, so that a light step does not look dear.
    idle_before, idle_started = cpu_seconds(server.process.pid), time.perf_counter()
    time.sleep(min(seconds, 5))
    idle = (cpu_seconds(server.process.pid) - idle_before) / (time.perf_counter() - idle_started)
    for households in steps:
        load_before, wall_before = time.process_time(), time.perf_counter()
        server_before = cpu_seconds(server.process.pid)
        figures = asyncio.run(step(server.port, games, households, seconds, design, tablets))
        wall = time.perf_counter() - wall_before
        load = (time.process_time() - load_before) / wall
        # The server's CPU for one household a second: what a core carries whatever the
        # machine's other work, which only stretches the latencies.
        cost = (cpu_seconds(server.process.pid) - server_before - idle * wall) / households / wall
        turn_p95 = percentile(figures.turns, 0.95) if figures.turns else float("inf")
        see_p95 = percentile(figures.seen, 0.95) if figures.seen else float("inf")
        polls = (
            f", poll p95 {percentile(figures.polls, 0.95) * 1000:.1f} ms ({len(figures.polls)})"
            if figures.polls
            else ""
        )
        lines.append(
            f"    {households:4d} households: turn p50 "
            f"{statistics.median(figures.turns or [0]) * 1000:6.1f} ms p95 "
            f"{turn_p95 * 1000:6.1f} ms ({len(figures.turns)} turns), seen by the others "
            f"p50 {statistics.median(figures.seen or [0]) * 1000:6.1f} ms p95 "
            f"{see_p95 * 1000:6.1f} ms{polls}, errors {len(figures.errors)}"
            f"{' ' + str(sorted(set(figures.errors))[:3]) if figures.errors else ''}; "
            f"load generator {load / machine:.0%} of the {machine} cores; server CPU "
            f"{cost * 1000:.2f} ms a second per household ({1 / cost:.0f} a core at most)"
        )
        print(lines[-1], flush=True)
        if turn_p95 > TURN_P95_GOAL or see_p95 > SEE_P95_GOAL or figures.errors:
            break
        carried = households
    return (
        f"{name}, {design}: {carried} households with a turn's p95 <= 100 ms and the others' "
        f"p95 <= 300 ms, {carried / cores:.0f} per core"
    )


def gunicorn_command(workers: int, instance: Path) -> list[str]:
    """gunicorn as docs/hosting.md starts it, with `workers` and the app of `instance`."""
    factory = f"scorekeeper.app:create_app(instance_path={str(instance)!r})"
    return [
        "env",
        *(f"{name}={value}" for name, value in GUNICORN_ENVIRONMENT.items()),
        f"SCOREKEEPER_WORKERS={workers}",
        sys.executable,
        "-m",
        "gunicorn",
        "-c",
        "python:scorekeeper.gunicorn_conf",
        "-b",
        "127.0.0.1:{port}",
        "--log-level",
        "warning",
        factory,
    ]


def fresh_database(admin_url: str, name: str, template: str | None = None) -> str:
    """The database `name` made afresh on the server of `admin_url`: empty, or a copy of
    the database `template`."""
    admin = create_engine(engine_url(admin_url), isolation_level="AUTOCOMMIT")
    copy = f' TEMPLATE "{template}"' if template else ""
    try:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            connection.execute(text(f'CREATE DATABASE "{name}"{copy}'))
    finally:
        admin.dispose()
    return engine_url(admin_url).set(database=name).render_as_string(hide_password=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=12)
    parser.add_argument("--households", default="4,8,16,32,64")
    parser.add_argument("--designs", default="poll,push")
    parser.add_argument("--workers", default="2,4", help="gunicorn's, one run each ('' none)")
    parser.add_argument("--tablets", type=int, default=TABLETS, help="tablets a household")
    parser.add_argument("--no-sqlite", action="store_true", help="no scorekeeper serve run")
    parser.add_argument(
        "--admin-url",
        default="postgresql://postgres@127.0.0.1:5432/postgres",
        help="a PostgreSQL server where the benchmark may create a database",
    )
    args = parser.parse_args()
    steps = [int(number) for number in args.households.split(",")]
    designs = args.designs.split(",")
    cores = os.cpu_count() or 1
    os.environ["SCOREKEEPER_SECRET_KEY"] = SECRET
    os.environ["SCOREKEEPER_LIVE_STREAMS"] = str(LIVE_STREAMS)
    print(
        f"{cores} cores, shared with the load generator; households of {args.tablets} "
        f"tablets, a turn every {TURN_SECONDS:.0f} s each; designs: {', '.join(designs)}",
        flush=True,
    )
    summary = []
    with tempfile.TemporaryDirectory(prefix="yams-hosted-") as folder:
        workdir = Path(folder)
        for workers in [int(number) for number in args.workers.split(",") if number]:
            for design in designs:
                url = fresh_database(args.admin_url, f"scorekeeper_bench_hosted_{workers}")
                subprocess.run(
                    [sys.executable, "-c", SERVE_CODE, "migrate", "--instance", str(workdir)],
                    cwd=REPO_ROOT,
                    check=True,
                    env={
                        **os.environ,
                        "SCOREKEEPER_DATABASE_URL": url,
                        "PYTHONPATH": str(REPO_ROOT),
                    },
                    stdout=subprocess.DEVNULL,
                )
                name = f"PostgreSQL, gunicorn -w {workers}"
                print(f"{name}, {design}:", flush=True)
                with LiveServer(
                    workdir / "pg",
                    workdir / "gunicorn.log",
                    gunicorn_command(workers, workdir / "pg"),
                    database_url=url,
                ) as server:
                    cores_used = min(workers, cores)
                    summary.append(
                        measure(
                            name, server, url, steps, args.seconds, cores_used, design, args.tablets
                        )
                    )
        if not args.no_sqlite:
            for design in designs:
                instance = workdir / f"sqlite-{design}"
                url = f"sqlite:///{instance / 'scorekeeper.sqlite3'}"
                instance.mkdir()
                # Every tablet's connections, its stream's among them.
                (instance / "config.py").write_text("SERVER_CONNECTION_LIMIT = 10_000\n")
                make_games(url, 1)  # creates the file and its schema before the server starts
                print(f"SQLite, scorekeeper serve, {design}:", flush=True)
                with LiveServer(instance, workdir / "serve.log") as server:
                    summary.append(
                        measure(
                            "SQLite, scorekeeper serve",
                            server,
                            url,
                            steps,
                            args.seconds,
                            1,
                            design,
                            args.tablets,
                        )
                    )
    print("\n".join(summary))


if __name__ == "__main__":
    main()
