"""What the server benchmarks share: a real `scorekeeper serve` in a session of its own,
games to print, and the memory of the server with every process it started.

The server runs in its own session (process group), and the benchmark finds its children,
PDF workers included (each in a session of its own), through their parents, to measure
them and then end them all.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from flask import Flask, Response, request

from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD, Store
from scorekeeper.store.documents import check_files
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.store.transfer import import_games
from testing.live import REPO_ROOT, SERVE_CODE, free_port, serve_arguments
from testing.samples import random_document

PLAYERS = ("Mag", "Alix", "Sam", "Lou")


def seed_games(instance: Path, count: int, seed: int = 15) -> list[int]:
    """``count`` finished four-player Classique games in a new instance; their ids."""
    instance.mkdir(parents=True, exist_ok=True)
    store = Store(f"sqlite:///{instance / 'scorekeeper.sqlite3'}")
    store.migrate()
    rng = random.Random(seed)
    documents = [random_document(Rules(), PLAYERS, rng) for _ in range(count)]
    ids = import_games(
        store,
        check_files([("bench.json", json.dumps(documents))]),
        household=HOME_HOUSEHOLD,
        quotas=NO_QUOTAS,
    )
    store.dispose()
    return ids


class Server:
    """A process started by ``command`` ("{port}" stands for a free port), in its own
    session; ready once ``ready_path`` answers 200. A context manager that ends the session."""

    def __init__(self, command: list[str], log: Path, ready_path: str = "/") -> None:
        self.port = free_port()
        self.command = [part.replace("{port}", str(self.port)) for part in command]
        self.log = log
        self.ready_path = ready_path
        self.process: subprocess.Popen | None = None
        self.started_in = 0.0

    @classmethod
    def scorekeeper(cls, instance: Path, log: Path) -> Server:
        return cls([sys.executable, "-c", SERVE_CODE, *serve_arguments(instance)], log)

    def __enter__(self) -> Server:
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
        env.pop("SCOREKEEPER_DATABASE_URL", None)
        started = time.perf_counter()
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                self.command,
                cwd=REPO_ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text()[-2000:]}")
            try:
                if self.get(self.ready_path)[0] == 200:
                    break
            except OSError:
                time.sleep(0.005)
        self.started_in = time.perf_counter() - started
        return self

    def __exit__(self, *_exc) -> None:
        if self.process is not None and self.process.poll() is None:
            workers = self.processes()[1:]  # in sessions of their own, some of them
            os.killpg(self.process.pid, signal.SIGKILL)
            for pid in workers:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)

    def get(
        self,
        path: str,
        connection: http.client.HTTPConnection | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, bytes, http.client.HTTPResponse]:
        own = connection is None
        connection = connection or self.connection()
        try:
            connection.request("GET", path, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.read(), response
        finally:
            if own:
                connection.close()

    def processes(self) -> list[int]:
        """The server's process and every process it started, and they started (its PDF
        workers and their fork server), each worker in a session of its own."""
        parents: dict[int, int] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text().rpartition(")")[2].split()
                except (FileNotFoundError, ProcessLookupError, PermissionError):
                    continue
                parents[int(entry.name)] = int(stat[1])
        found = [self.process.pid]
        for pid in found:
            found.extend(child for child, parent in parents.items() if parent == pid)
        return found

    def memory_mib(self) -> tuple[float, float]:
        """(RSS of the server process, PSS of the whole session) in MiB: PSS shares pages
        between processes, so forked workers are not counted twice."""
        return rss_mib(self.process.pid), sum(pss_mib(pid) for pid in self.processes())


def _smaps_field(pid: int, field: str) -> float:
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    for line in text.splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def rss_mib(pid: int) -> float:
    return _smaps_field(pid, "Rss")


def pss_mib(pid: int) -> float:
    return _smaps_field(pid, "Pss")


def sheet_pdf_requests(game_ids: list[int]) -> list[tuple[int, str, str]]:
    """(game, paper, language) for every filled-sheet PDF of these games: each a PDF of its
    own, drawn once then cached."""
    return [
        (game_id, paper, language)
        for paper in ("a4", "letter")
        for language in ("fr", "en")
        for game_id in game_ids
    ]


# A page of the app that does nothing but answer N bytes of HTML: what a request costs the
# server and the network before any work of the app's own.
BARE_PATH = "/bench/bare"


def add_bare_page(app: Flask) -> None:
    """Give `app` the bare page: BARE_PATH?size=N answers N bytes of HTML (10 MB at most)."""
    bodies: dict[int, bytes] = {}

    @app.get(BARE_PATH)
    def bare() -> Response:
        size = min(request.args.get("size", 1000, type=int), 10_000_000)
        if size not in bodies:
            head = b"<!doctype html><title>bare</title><p>"
            bodies[size] = head + b"x" * max(0, size - len(head))
        return Response(bodies[size], mimetype="text/html")


BARE_WRITE_PATH = "/bench/bare-write"


def add_bare_write(app: Flask, database: Path) -> None:
    """Give `app` a bare POST that writes one row into a SQLite file of its own, as the app
    keeps its games (WAL, synchronous FULL), and answers BARE_PATH's page of ?size= bytes:
    the least a turn could cost, a write and an answer."""
    local = threading.local()
    bodies: dict[int, bytes] = {}

    def connection() -> sqlite3.Connection:
        if not hasattr(local, "connection"):
            local.connection = sqlite3.connect(database, isolation_level=None)
            local.connection.execute("PRAGMA journal_mode = WAL")
            local.connection.execute("PRAGMA synchronous = FULL")
            local.connection.execute(
                "CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, dice TEXT)"
            )
        return local.connection

    @app.post(BARE_WRITE_PATH)
    def bare_write() -> Response:
        with connection() as written:
            written.execute("INSERT INTO rows (dice) VALUES (?)", (request.form.get("dice"),))
        size = min(request.args.get("size", 1000, type=int), 10_000_000)
        if size not in bodies:
            head = b"<!doctype html><title>bare</title><p>"
            bodies[size] = head + b"x" * max(0, size - len(head))
        return Response(bodies[size], mimetype="text/html")


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]
