"""Hosted: how many households a server carries, on PostgreSQL with 2 and 4 processes and on
SQLite with one.

    python -m bench.hosted [--seconds 12] [--households 4,8,16,32] [--admin-url URL]

A household is three tablets with the same sheet open. Every tablet polls the game's version
as static/js/live.js does (every 0.4 s); every few seconds (5 s, at a random phase) one tablet
plays a turn: the POST of the entry, then the sheet it redirects to, and the two other
tablets, seeing the version move, reload the sheet. Households play games made beforehand
and go on to the next when one ends.

The servers: gunicorn 'scorekeeper.app:create_app(...)' with -w 2 and -w 4 (gthread, 4
threads a worker) on a fresh PostgreSQL database of the server at --admin-url, and
`scorekeeper serve` (waitress, 4 threads) on a SQLite file. Each steps through the numbers
of households, --seconds each, until a turn's p95 passes 100 ms. Printed per server: the
most households kept under it, that number per server core (the processes could use at most
min(workers, cores) cores, and the load generator shares them), and the cost of a version
poll in server CPU (ms) and its p50 latency at the lightest step.
"""

from __future__ import annotations

import argparse
import asyncio
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
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD, Store
from scorekeeper.store.play import start_game
from scorekeeper.store.store import engine_url
from testing.live import REPO_ROOT, SERVE_CODE, LiveServer, Sheet

TABLETS = 3
POLL_SECONDS = 0.4  # static/js/live.js
TURN_SECONDS = 5.0
TURN_P95_GOAL = 0.100
GAMES_PER_HOUSEHOLD = 3
SECRET = "bench-hosted-secret"
DICE = ("12346", "11235", "22456", "13356", "12445", "23566")


@dataclass
class Figures:
    turns: list[float] = field(default_factory=list)
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
            status_line = await self.reader.readline()
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


async def household(
    port: int, games: list[int], until: float, figures: Figures, rng: random.Random
) -> None:
    cookies = SimpleCookie()
    tablets = [Connection(port, cookies) for _ in range(TABLETS)]
    # The first tablet's form, on a connection of its own as a browser's would be.
    player = Connection(port, cookies)
    games = list(games)
    game_id = games.pop(0)
    status, _, page = await player.request("GET", f"/games/{game_id}")
    sheet = Sheet.read(page.decode())
    seen = [None] * TABLETS

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
            elif index and seen[index] != body:
                if seen[index] is not None:  # another tablet played: reload the sheet
                    await tablets[index].request("GET", f"/games/{game_id}")
                seen[index] = body
            await asyncio.sleep(POLL_SECONDS)

    async def play() -> None:
        nonlocal game_id, sheet
        await asyncio.sleep(rng.uniform(0, TURN_SECONDS))
        while time.monotonic() < until:
            if not sheet.playable:
                if not games:
                    return
                game_id = games.pop(0)
                _, _, page = await player.request("GET", f"/games/{game_id}")
                sheet = Sheet.read(page.decode())
                continue
            form = {
                "csrf_token": sheet.csrf_token or "",
                "seq": sheet.seq,
                "version": sheet.version or "",
                "dice": rng.choice(DICE),
                "target": rng.choice(sheet.targets),
                "confirm": "1",
            }
            started = time.perf_counter()
            status, headers, _ = await player.request(
                "POST",
                f"/games/{game_id}/entries",
                urlencode(form).encode(),
                {"Content-Type": "application/x-www-form-urlencoded"},
            )
            if status != 303:
                figures.errors.append(f"turn {status}")
                return
            status, _, page = await player.request("GET", headers["location"])
            figures.turns.append(time.perf_counter() - started)
            sheet = Sheet.read(page.decode())
            await asyncio.sleep(TURN_SECONDS)

    try:
        await asyncio.gather(play(), *(poll(index) for index in range(TABLETS)))
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


async def step(port: int, games: dict[int, list[int]], households: int, seconds: float) -> Figures:
    figures = Figures()
    until = time.monotonic() + seconds
    await asyncio.gather(
        *(
            household(port, games[number], until, figures, random.Random(number))
            for number in range(households)
        )
    )
    return figures


def poll_cost(server: LiveServer, games: dict[int, list[int]]) -> float:
    """Server CPU per version poll, in ms: households that only poll, for a few seconds."""

    async def polls_only() -> int:
        tablets = [Connection(server.port, SimpleCookie()) for _ in range(8)]
        count = 0
        until = time.monotonic() + 4

        async def loop(tablet: Connection, game_id: int) -> None:
            nonlocal count
            while time.monotonic() < until:
                await tablet.request("GET", f"/games/{game_id}/version")
                count += 1

        await asyncio.gather(
            *(loop(tablet, games[n % len(games)][0]) for n, tablet in enumerate(tablets))
        )
        for tablet in tablets:
            tablet.close()
        return count

    before = cpu_seconds(server.process.pid)
    count = asyncio.run(polls_only())
    return (cpu_seconds(server.process.pid) - before) / count * 1000


def make_games(database_url: str, households: int) -> dict[int, list[int]]:
    store = Store(database_url)
    try:
        store.migrate()
        return {
            number: [
                start_game(store, Rules(), ["Mag", "Alix"], household=HOME_HOUSEHOLD)
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
    name: str, server: LiveServer, database_url: str, steps: list[int], seconds: float, cores: float
) -> str:
    games = make_games(database_url, max(steps))
    asyncio.run(warm_up(server.port, games[0][0], 16))
    carried, lines = 0, []
    lightest_poll = None
    for households in steps:
        figures = asyncio.run(step(server.port, games, households, seconds))
        p95 = percentile(figures.turns, 0.95) if figures.turns else float("inf")
        lightest_poll = lightest_poll or statistics.median(figures.polls)
        lines.append(
            f"    {households:4d} households: turn p50 "
            f"{statistics.median(figures.turns) * 1000:6.1f} ms p95 {p95 * 1000:6.1f} "
            f"ms ({len(figures.turns)} turns), poll p95 "
            f"{percentile(figures.polls, 0.95) * 1000:6.1f} ms "
            f"({len(figures.polls)} polls), errors {len(figures.errors)}"
        )
        if p95 > TURN_P95_GOAL or figures.errors:
            break
        carried = households
    cost = poll_cost(server, games)
    return "\n".join(
        [
            f"{name}: {carried} households with a turn's p95 <= 100 ms, "
            f"{carried / cores:.0f} per core; a version poll costs {cost:.2f} ms of server CPU "
            f"(p50 {lightest_poll * 1000:.1f} ms at {steps[0]} households)",
            *lines,
        ]
    )


def gunicorn_command(workers: int, instance: Path) -> list[str]:
    factory = f"scorekeeper.app:create_app(instance_path={str(instance)!r})"
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "-w",
        str(workers),
        "-k",
        "gthread",
        "--threads",
        "4",
        "-b",
        "127.0.0.1:{port}",
        "--log-level",
        "warning",
        factory,
    ]


def fresh_database(admin_url: str, name: str) -> str:
    admin = create_engine(engine_url(admin_url), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            connection.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        admin.dispose()
    return engine_url(admin_url).set(database=name).render_as_string(hide_password=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=12)
    parser.add_argument("--households", default="4,8,16,32,64")
    parser.add_argument(
        "--admin-url",
        default="postgresql://postgres@127.0.0.1:5432/postgres",
        help="a PostgreSQL server where the benchmark may create a database",
    )
    args = parser.parse_args()
    steps = [int(number) for number in args.households.split(",")]
    cores = os.cpu_count() or 1
    os.environ["SCOREKEEPER_SECRET_KEY"] = SECRET
    print(
        f"{cores} cores, shared with the load generator; households of {TABLETS} tablets "
        f"polling every {POLL_SECONDS} s, a turn every {TURN_SECONDS:.0f} s each",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="yams-hosted-") as folder:
        workdir = Path(folder)
        for workers in (2, 4):
            url = fresh_database(args.admin_url, f"scorekeeper_bench_hosted_{workers}")
            subprocess.run(
                [sys.executable, "-c", SERVE_CODE, "migrate", "--instance", str(workdir / "pg")],
                cwd=REPO_ROOT,
                check=True,
                env={**os.environ, "SCOREKEEPER_DATABASE_URL": url, "PYTHONPATH": str(REPO_ROOT)},
                stdout=subprocess.DEVNULL,
            )
            with LiveServer(
                workdir / "pg",
                workdir / "gunicorn.log",
                gunicorn_command(workers, workdir / "pg"),
                database_url=url,
            ) as server:
                print(
                    measure(
                        f"PostgreSQL, gunicorn -w {workers}",
                        server,
                        url,
                        steps,
                        args.seconds,
                        min(workers, cores),
                    ),
                    flush=True,
                )
        instance = workdir / "sqlite"
        url = f"sqlite:///{instance / 'scorekeeper.sqlite3'}"
        instance.mkdir()
        make_games(url, 1)  # creates the file and its schema before the server starts
        with LiveServer(instance, workdir / "serve.log") as server:
            print(
                measure("SQLite, scorekeeper serve", server, url, steps, args.seconds, 1),
                flush=True,
            )


if __name__ == "__main__":
    main()
