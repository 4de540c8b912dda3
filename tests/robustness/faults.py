"""Faults of a real PostgreSQL server under a real gunicorn while tablets play.

A throwaway PostgreSQL cluster of the test's own (initdb from the machine's PostgreSQL
binaries, a loopback port of 54340-54349), which the test stops, restarts, fills with
another client's connections and locks; gunicorn started as docs/hosting.md says
(`-c python:scorekeeper.gunicorn_conf`); 8 tablets playing their own games all along,
each answer recorded. Then every acknowledged turn is read back. Run by
tests/robustness/test_faults.py.
"""

from __future__ import annotations

import contextlib
import glob
import html
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

import psycopg

from testing.live import CLIENT_DICE, Client, LiveServer, Sheet, free_port, sorted_dice
from tests.robustness.checks import create_games, stored_entries

PORTS = range(54340, 54350)
WORKERS = 2
TABLETS = 8
GAMES_PER_TABLET = 30
# Between two requests of a tablet: a brisk table, without eating the machine's two cores.
PAUSE_S = 0.05
Turn = tuple[int, int]


def postgresql_bin() -> Path | None:
    """The folder of the machine's PostgreSQL server programs, None without them."""
    candidates = []
    if shutil.which("pg_config"):
        found = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True)
        candidates.append(found.stdout.strip())
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    for folder in candidates:
        if folder and (Path(folder) / "initdb").exists() and (Path(folder) / "pg_ctl").exists():
            return Path(folder)
    return None


def _free_port() -> int:
    for port in PORTS:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {PORTS}")


class Cluster:
    """A PostgreSQL cluster in a temporary folder: started, stopped, restarted at will."""

    def __init__(self, bin_folder: Path, max_connections: int = 40) -> None:
        self.bin = bin_folder
        self.port = _free_port()
        self.root = Path(tempfile.mkdtemp(prefix="scorekeeper-faults-"))
        self.data = self.root / "data"
        # PostgreSQL refuses to run as root: as root, its programs run as `postgres`.
        self.user = "postgres" if os.geteuid() == 0 else None
        if self.user:
            shutil.chown(self.root, self.user)
        self._run("initdb", "-D", self.data, "-U", "postgres", "-A", "trust", "--no-sync")
        self.options = (
            f"-p {self.port} -k {self.data} -c listen_addresses=127.0.0.1 -c fsync=off "
            f"-c max_connections={max_connections}"
        )
        self.start()

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, program: str, *arguments) -> None:
        command = [str(self.bin / program), *map(str, arguments)]
        if self.user:
            command = ["runuser", "-u", self.user, "--", *command]
        subprocess.run(command, check=True, capture_output=True, timeout=60)

    def start(self) -> None:
        log = self.data / "server.log"
        self._run("pg_ctl", "-D", self.data, "-l", log, "-w", "-o", self.options, "start")

    def stop(self, mode: str) -> None:
        self._run("pg_ctl", "-D", self.data, "-w", "-m", mode, "stop")

    def close(self) -> None:
        try:
            self.stop("immediate")
        except subprocess.CalledProcessError:
            pass  # already stopped
        shutil.rmtree(self.root, ignore_errors=True)


@dataclass
class Answer:
    at: float
    method: str
    game: int
    status: int  # 0: no answer (the connection was closed)
    seconds: float
    # A 503's Retry-After and what its page says, to check what the player is told.
    retry_after: str | None = None
    said: str = ""
    # A turn's number in its game (its POST's).
    seq: int | None = None


@dataclass
class Tablet:
    """A tablet playing its games one turn after another until told to stop."""

    index: int
    games: list[int]
    answers: list[Answer] = field(default_factory=list)
    acknowledged: dict[Turn, tuple[str, str]] = field(default_factory=dict)
    in_doubt: dict[Turn, tuple[str, str]] = field(default_factory=dict)
    game: int = 0
    pause: float = PAUSE_S

    def play(self, address: tuple[str, int], stop: threading.Event) -> None:
        client = Client(address)
        dice = CLIENT_DICE[self.index]
        number = 0
        try:
            while not stop.is_set() and self.game < len(self.games):
                game_id = self.games[self.game]
                page = self._ask(client, "GET", game_id, client.get, f"/games/{game_id}")
                if page is None or page.status != 200:
                    time.sleep(PAUSE_S * 4)
                    continue
                sheet = Sheet.read(page.text)
                if not sheet.playable:
                    self.game += 1
                    continue
                turn = (game_id, sheet.seq)
                target = sheet.targets[number % len(sheet.targets)]
                number += 1
                self.in_doubt[turn] = (target, sorted_dice(dice))
                page = self._ask(
                    client, "POST", game_id, client.submit, game_id, sheet, dice, target
                )
                self.answers[-1].seq = sheet.seq
                if page is not None and page.status == 303:
                    self.acknowledged[turn] = self.in_doubt.pop(turn)
                elif page is not None and page.status != 0:
                    # Answered, and not written: no longer in doubt.
                    self.in_doubt.pop(turn)
                time.sleep(self.pause)
        finally:
            client.close()

    def _ask(self, client: Client, method: str, game: int, request, *arguments):
        started = time.monotonic()
        try:
            page = request(*arguments)
        except (OSError, http.client.HTTPException):
            client.connection = http.client.HTTPConnection(*client.address, timeout=30)
            self.answers.append(Answer(started, method, game, 0, time.monotonic() - started))
            return None
        answer = Answer(started, method, game, page.status, time.monotonic() - started)
        if page.status == 503:
            answer.retry_after = page.headers.get("retry-after")
            answer.said = html.unescape(page.text)
        self.answers.append(answer)
        return page


def gunicorn_server(
    instance: Path,
    log: Path,
    database_url: str,
    config: str = "python:scorekeeper.gunicorn_conf",
    **environment: str | None,
) -> LiveServer:
    """gunicorn with a configuration docs/hosting.md gives (the pages' and turns', unless
    `config` names the streams'), 2 workers here (the machine's cores are shared with the
    tablets and PostgreSQL), the app of the instance folder; `environment` sets variables,
    or unsets those given None."""
    factory = f"scorekeeper.app:create_app(instance_path={str(instance)!r})"
    # env takes the variables to unset before those to set.
    command = ["env", *(f"--unset={name}" for name, v in environment.items() if v is None)]
    command += [f"{name}={value}" for name, value in environment.items() if value is not None]
    command += [sys.executable, "-m", "gunicorn", "-c", config, "--workers", str(WORKERS)]
    command += ["--bind", "127.0.0.1:{port}", factory]
    return LiveServer(instance, log, command=command, database_url=database_url)


def workers_of(master: int) -> list[int]:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    return [int(pid) for pid in children]


def descendants(pid: int) -> set[int]:
    """Every process started by ``pid``, and by those, as /proc shows them now."""
    found = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        with open(task / "children") as children:
            for child in map(int, children.read().split()):
                found |= {child, *descendants(child)}
    return found


def running(pid: int) -> bool:
    """Alive and not a zombie waiting to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def until(condition, what: str, seconds: float = 60) -> None:
    """Look again and again until ``condition()`` holds, ``seconds`` at most."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"no {what} within {seconds} s"
        time.sleep(0.05)


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


@dataclass
class Phase:
    name: str
    began: float
    ended: float = 0.0
    # When PostgreSQL was back (the restarts), or the other client let go.
    back_at: float | None = None


@dataclass
class FaultRun:
    tablets: list[Tablet]
    phases: list[Phase]
    stored: dict[Turn, tuple[str, str]]
    locked_game: int
    master_alive: bool
    server_log: str

    def answers(self, phase: Phase) -> list[Answer]:
        return [
            answer
            for tablet in self.tablets
            for answer in tablet.answers
            if phase.began <= answer.at < phase.ended
        ]

    def answered_within(self, phase: Phase) -> list[Answer]:
        """The answers to requests sent and answered during the phase: a request sent just
        before it ends may reach the database after the fault is over."""
        return [
            answer for answer in self.answers(phase) if answer.at + answer.seconds < phase.ended
        ]

    def statuses(self, phase: Phase) -> Counter:
        return Counter(answer.status for answer in self.answers(phase))

    def back_after(self, phase: Phase) -> float | None:
        """Seconds from PostgreSQL's return to the first turn written after it."""
        written = [
            answer.at + answer.seconds
            for tablet in self.tablets
            for answer in tablet.answers
            if answer.method == "POST" and answer.status == 303 and answer.at >= phase.back_at
        ]
        return min(written) - phase.back_at if written else None

    def other_games_p95(self, *phases: Phase) -> float:
        """The 95th percentile of the time other games' sheets took in these phases."""
        return percentile(
            [
                answer.seconds
                for phase in phases
                for answer in self.answers(phase)
                if answer.method == "GET"
                and answer.status == 200
                and answer.game != self.locked_game
            ],
            0.95,
        )

    def lost(self) -> list[Turn]:
        return [
            turn
            for tablet in self.tablets
            for turn, written in tablet.acknowledged.items()
            if self.stored.get(turn) != written
        ]

    def doubled(self) -> list[Turn]:
        """Stored turns of the tablets' games that no tablet sent: a turn written twice."""
        sent = {}
        for tablet in self.tablets:
            sent.update(tablet.acknowledged)
            sent.update(tablet.in_doubt)
        games = {game for tablet in self.tablets for game in tablet.games}
        return [turn for turn in self.stored if turn[0] in games and turn not in sent]


def run_faults(workdir: Path, bin_folder: Path, lock_seconds: float = 20.0) -> FaultRun:
    cluster = Cluster(bin_folder)
    try:
        return _run(workdir, cluster, lock_seconds)
    finally:
        cluster.close()


def _run(workdir: Path, cluster: Cluster, lock_seconds: float) -> FaultRun:
    instance = workdir / "instance"
    games = create_games(instance, TABLETS * GAMES_PER_TABLET, cluster.url)
    tablets = [Tablet(i, games[i::TABLETS]) for i in range(TABLETS)]
    phases: list[Phase] = []
    stop = threading.Event()

    def phase(name: str) -> Phase:
        if phases:
            phases[-1].ended = time.monotonic()
        phases.append(Phase(name, time.monotonic()))
        return phases[-1]

    with gunicorn_server(instance, workdir / "server.log", cluster.url) as server:
        threads = [
            threading.Thread(target=tablet.play, args=(server.base, stop)) for tablet in tablets
        ]
        for thread in threads:
            thread.start()
        try:
            # Warm up (templates compiled, pools filled): every tablet has written a turn.
            until(lambda: all(tablet.acknowledged for tablet in tablets), "a first turn each")
            for mode in ("fast", "immediate"):
                restart = phase(f"restart -m {mode}")
                cluster.stop(mode)
                time.sleep(1)
                cluster.start()
                restart.back_at = time.monotonic()
                time.sleep(5)
            outage = phase("worker killed during an outage")
            cluster.stop("fast")
            time.sleep(0.5)
            killed = workers_of(server.process.pid)[0]
            os.kill(killed, signal.SIGKILL)
            until(
                lambda: (
                    killed not in (pids := workers_of(server.process.pid)) and len(pids) == WORKERS
                ),
                "gunicorn's new worker",
            )
            time.sleep(2)  # a duration: the new worker boots without the database
            cluster.start()
            outage.back_at = time.monotonic()
            time.sleep(5)
            phase("another client takes every connection")
            hogs = _take_every_connection(cluster.url)
            # From here the server has no connection and can open none.
            crowded = phase("max_connections taken by another client")
            time.sleep(3)
            # The phase ends before the first connection is given back.
            phase("after")
            for hog in hogs:
                hog.close()
            crowded.back_at = time.monotonic()
            time.sleep(2)
            # The other games' pace with nothing wrong, on either side of the lock: the
            # machine's own load drifts, and the lock's 20 s are compared with as long.
            phase("idle")
            time.sleep(lock_seconds / 2)
            locked_game = tablets[0].games[tablets[0].game]
            phase(f"{lock_seconds:.0f} s lock on one game")
            with psycopg.connect(cluster.url) as holder:
                holder.execute("SELECT id FROM games WHERE id = %s FOR UPDATE", (locked_game,))
                time.sleep(lock_seconds)
                holder.rollback()
            phase("idle after the lock")
            time.sleep(lock_seconds / 2)
            master_alive = server.process.poll() is None
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=60)
    phases[-1].ended = time.monotonic()
    server_log = (workdir / "server.log").read_text(errors="replace")
    stored = stored_entries(cluster.url)
    return FaultRun(tablets, phases, stored, locked_game, master_alive, server_log)


def _take_every_connection(url: str) -> list[psycopg.Connection]:
    """Another client taking every connection PostgreSQL admits, the server's too.

    The server's pools already hold the connections their threads need, so merely opening
    the free ones would never refuse the server anything. This client also ends the
    server's sessions (pg_terminate_backend, as an operator's script may) and takes their
    places, until it holds max_connections itself: each request of the server must then
    open a connection, and PostgreSQL refuses it ("sorry, too many clients already").
    """
    taken = [psycopg.connect(url, connect_timeout=2, autocommit=True)]
    most = int(taken[0].execute("SHOW max_connections").fetchone()[0])
    deadline = time.monotonic() + 30
    while len(taken) < most:
        if time.monotonic() > deadline:
            raise RuntimeError("the server kept connections that this client could not take")
        with contextlib.suppress(psycopg.OperationalError):
            while len(taken) < most:
                taken.append(psycopg.connect(url, connect_timeout=2, autocommit=True))
        taken[0].execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE backend_type = 'client backend' AND pid <> ALL(%s)",
            ([connection.info.backend_pid for connection in taken],),
        )
        time.sleep(0.05)  # an ended session's place frees a moment after it ends
    return taken


# The open sheets through the whole stack (nginx, the pages' gunicorn, the streams' gevent
# gunicorn) while PostgreSQL restarts and workers are killed.

STREAM_TABLETS = 2  # tablets following the game played, each by its stream
# Between two turns: the followers see each one; a game of 78 turns lasts some 30 s.
STREAM_PAUSE_S = 0.3
RECONNECT_S = 1.0  # EventSource's retry, as web/streams.py sets it
REFUSED_RETRY_S = 5.0  # static/js/live.js: a refused stream is opened again this much later
EVENT_STREAM = {"Accept": "text/event-stream"}


@dataclass
class Heard:
    at: float
    game: int
    seq: int


@dataclass
class Follower:
    """A tablet with the game played open: its stream read as EventSource reads it (opened
    again a second after it ends or breaks), and opened again a few seconds after a refusal,
    as static/js/live.js does."""

    player: Tablet
    heard: list[Heard] = field(default_factory=list)
    refused: list[int] = field(default_factory=list)
    broken: int = 0

    def follow(self, address: tuple[str, int], stop: threading.Event) -> None:
        while not stop.is_set():
            game = self.player.games[min(self.player.game, len(self.player.games) - 1)]
            try:
                self._read(address, game, stop)
                wait = RECONNECT_S
            except _Refused as refusal:
                self.refused.append(refusal.status)
                wait = REFUSED_RETRY_S
            except (OSError, http.client.HTTPException):
                self.broken += 1
                wait = RECONNECT_S
            stop.wait(wait)

    def _read(self, address: tuple[str, int], game: int, stop: threading.Event) -> None:
        connection = http.client.HTTPConnection(*address, timeout=2)
        try:
            connection.request("GET", f"/games/{game}/events", headers=EVENT_STREAM)
            response = connection.getresponse()
            if response.status != 200:
                raise _Refused(response.status)
            while not stop.is_set() and self._following(game):
                try:
                    line = response.readline()
                except TimeoutError:
                    continue  # between two events: look at the game played again
                if not line:
                    return  # ended by the server: EventSource opens it again
                if line.startswith(b"data: {"):
                    event = json.loads(line[6:])
                    if "seq" in event:
                        self.heard.append(Heard(time.monotonic(), game, event["seq"]))
        finally:
            connection.close()

    def _following(self, game: int) -> bool:
        """Whether `game` is still the one played (once over, the next one is opened)."""
        return self.player.games[min(self.player.game, len(self.player.games) - 1)] == game


class _Refused(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


@dataclass
class StreamFaultRun:
    player: Tablet
    followers: list[Follower]
    phases: list[Phase]
    stored: dict[Turn, tuple[str, str]]

    def streams_back_after(self, phase: Phase) -> list[float | None]:
        """For each follower, the seconds from the phase's return (PostgreSQL back, or the
        worker killed) to its stream bringing a turn acknowledged after it."""
        written = {
            (answer.game, answer.seq)
            for answer in self.player.answers
            if answer.method == "POST" and answer.status == 303 and answer.at >= phase.back_at
        }
        back = []
        for follower in self.followers:
            seen = [
                heard.at
                for heard in follower.heard
                if heard.at >= phase.back_at and (heard.game, heard.seq - 1) in written
            ]
            back.append(min(seen) - phase.back_at if seen else None)
        return back

    def statuses(self) -> Counter:
        return Counter(answer.status for answer in self.player.answers)

    def lost(self) -> list[Turn]:
        return [
            turn
            for turn, written in self.player.acknowledged.items()
            if self.stored.get(turn) != written
        ]

    def doubled(self) -> list[Turn]:
        sent = {**self.player.acknowledged, **self.player.in_doubt}
        games = set(self.player.games)
        return [turn for turn in self.stored if turn[0] in games and turn not in sent]


def run_stream_faults(workdir: Path, bin_folder: Path) -> StreamFaultRun:
    from scripts import hosted_stack

    cluster = Cluster(bin_folder)
    try:
        instance = workdir / "instance"
        games = create_games(instance, 6, cluster.url, players=6)
        port = free_port()
        (instance / "config.py").write_text(f"EXTERNAL_URL = 'http://127.0.0.1:{port}'\n")
        player = Tablet(0, games, pause=STREAM_PAUSE_S)
        followers = [Follower(player) for _ in range(STREAM_TABLETS)]
        phases: list[Phase] = []
        stop = threading.Event()
        with (
            mock.patch.dict(os.environ, {"SCOREKEEPER_WORKERS": str(WORKERS)}),
            hosted_stack.running(cluster.url, port, instance) as started,
        ):
            masters = dict(started)
            address = ("127.0.0.1", port)
            threads = [threading.Thread(target=player.play, args=(address, stop))]
            threads += [
                threading.Thread(target=follower.follow, args=(address, stop))
                for follower in followers
            ]
            for thread in threads:
                thread.start()
            try:
                until(lambda: len(player.acknowledged) >= 3, "a first few turns")
                for mode in ("fast", "immediate"):
                    restart = Phase(f"PostgreSQL restart -m {mode}", time.monotonic())
                    phases.append(restart)
                    cluster.stop(mode)
                    time.sleep(1)
                    cluster.start()
                    restart.back_at = time.monotonic()
                    time.sleep(6)
                    restart.ended = time.monotonic()
                for name in ("gunicorn (streams)", "gunicorn"):
                    killed = Phase(f"kill -9 of a worker of {name}", time.monotonic())
                    phases.append(killed)
                    master = masters[name].pid
                    os.kill(workers_of(master)[0], signal.SIGKILL)
                    killed.back_at = time.monotonic()
                    time.sleep(6)
                    killed.ended = time.monotonic()
            finally:
                stop.set()
                for thread in threads:
                    thread.join(timeout=60)
        return StreamFaultRun(player, followers, phases, stored_entries(cluster.url))
    finally:
        cluster.close()
