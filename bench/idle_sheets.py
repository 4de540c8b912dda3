"""Open sheets held idle on the hosted stack: what each one costs, and whether a household
at play still sees its turns at once, with the streams in gunicorn's threads (before) and in
gevent workers (after), beside the floor of nginx's nchan module holding bare subscribers.

    python -m bench.idle_sheets [--sheets 10000] [--designs threads,gevent,nchan]
        [--turns 60] [--idle-seconds 30]
        [--admin-url postgresql://postgres@127.0.0.1:5432/postgres]

Each design runs the stack of scripts/hosted_stack.py (nginx's production limits in front,
gunicorn_conf.py's 4 workers for the pages and turns) on a fresh PostgreSQL database:
- threads: no stream group; the app's gthread workers hold the streams in threads, 200 seats
  each (SCOREKEEPER_LIVE_STREAMS=200), as gunicorn_conf.py did before;
- gevent: one gevent worker of gunicorn_streams_conf.py holds them, with seats for all;
- nchan: no app at all, nginx's nchan module holding as many EventSource subscribers of bare
  channels, fed by its publisher location: the floor of a design where the proxy holds the
  streams (no sign-in, no seats, no sheet drawn).

The idle sheets are households of three devices (made in the database, each device's
remember-me cookie signed with the stack's key), each device with its game's sheet open
from its household's own loopback address (127.1.x.y): --sheets streams in all, opened by a
process of their own 100 at a time, then held and read. Measured, in that order:
- a household at play alone (one tablet plays --turns turns, one every 0.5 s; its two other
  tablets hold the game's stream): its turn (POST to sheet) p95, and the time from the POST
  to the new version on the other tablets, p95;
- the idle sheets opened: how many were answered 200, refused, or failed;
- memory: the stack's processes' PSS (nginx, every gunicorn master and worker) before and
  after, per sheet held;
- CPU: the stack's processes over --idle-seconds with every sheet held and nobody playing,
  as a share of one core;
- the household at play again, with every sheet held.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import multiprocessing
import os
import resource
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

from flask import Flask
from flask_login.utils import encode_cookie

from bench.hosted import fresh_database
from bench.server import percentile, pss_mib
from scorekeeper.config import defaults
from scorekeeper.play import start_game
from scorekeeper.rules import Rules
from scorekeeper.store import Store
from scorekeeper.store.households import add_device, create_household
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.web.passphrases import passphrase_hash
from scripts import hosted_stack
from testing.live import Sheet, free_port, no_tables_ahead

SECRET = "bench-idle-sheets-" + "0" * 32
TABLETS = 3
PLAYERS = ("Mag", "Alix")
# The household at play: a game long enough for every turn measured (13 boxes a player).
TABLE = ("Mag", "Alix", "Léa", "Papa", "Maman", "Jo")
DICE = ("12346", "11235", "22456", "13356", "12445", "23566")
OPEN_AT_ONCE = 100
TURN_PAUSE_SECONDS = 0.5
# The threads design as gunicorn_conf.py ran it before the stream group: 200 seats a worker.
THREAD_SEATS = 200
FILES = 200_000
FILLED = "scorekeeper_bench_idle_filled"
# LIVE_STREAM_SECONDS: each open sheet opens its stream again this often.
LIFETIME_SECONDS = defaults(Path("."))["LIVE_STREAM_SECONDS"]


@dataclass
class Figures:
    design: str
    turn_p95_alone: float = 0.0
    seen_p95_alone: float = 0.0
    answered: int = 0
    refused: int = 0
    failed: int = 0
    held_at_end: int = 0
    memory_before_mib: dict[str, float] = field(default_factory=dict)
    memory_after_mib: dict[str, float] = field(default_factory=dict)
    idle_cpu_share: float = 0.0
    idle_cpu_parts: dict[str, float] = field(default_factory=dict)
    # The stack's CPU for each stream opened, in ms: a stream is opened again every
    # LIVE_STREAM_SECONDS, which the idle window is too short to see.
    open_cpu_ms: float = 0.0
    turn_p95: float = 0.0
    seen_p95: float = 0.0
    turns_failed: int = 0
    followers_refused: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def steady_cpu_share(self) -> float:
        """The idle share, and the streams opened again every LIFETIME_SECONDS."""
        return self.idle_cpu_share + self.open_cpu_ms / 1000 * self.answered / LIFETIME_SECONDS

    def per_sheet_kib(self, part: str | None = None) -> float:
        """The memory each sheet held took, in KiB: of the whole stack, or of one part."""
        parts = [part] if part else list(self.memory_after_mib)
        grown = sum(self.memory_after_mib[name] - self.memory_before_mib[name] for name in parts)
        return grown * 1024 / (self.answered or 1)


# The idle sheets, held by a process of their own so that their reading never delays the
# household measured.


def _source(household: int) -> str:
    """A household's own loopback address, 127.1.0.1 and up (nginx counts per address)."""
    return f"127.{1 + household // 62500}.{household // 250 % 250}.{household % 250 + 1}"


async def _hold_one(port, path, cookie, source, counts, held, ready, first_event):
    """One idle sheet: opened, counted once (answered, refused or failed), then held and read
    until the server ends it."""
    outcome, writer = "failed", None
    try:
        reader, writer = await asyncio.open_connection(
            "127.0.0.1", port, local_addr=(source, 0), limit=1 << 20
        )
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n"
            f"Cookie: {cookie}\r\n\r\n".encode()
        )
        status_line = await asyncio.wait_for(reader.readline(), 60)
        status = int(status_line.split()[1]) if status_line.startswith(b"HTTP/") else 0
        if status != 200:
            outcome = "refused" if status else "failed"
            return
        # The first event: the game's version (nchan's bare channels send none).
        while first_event and not (await asyncio.wait_for(reader.readline(), 60)).startswith(
            b"data: "
        ):
            pass
        outcome = "answered"
        counts[outcome] += 1
        ready.release()
        held.add(writer)
        while line := await reader.readline():
            if line.startswith((b'data: {"closed"', b'data: {"gone"')):
                break
    except (OSError, ValueError, TimeoutError, asyncio.IncompleteReadError):
        pass
    finally:
        if outcome != "answered":
            counts[outcome] += 1
            ready.release()
        if writer is not None:
            held.discard(writer)
            writer.close()


async def _hold(port, sheets, first_event, pipe) -> None:
    counts = {"answered": 0, "refused": 0, "failed": 0}
    held: set = set()
    ready = asyncio.Semaphore(OPEN_AT_ONCE)
    tasks = []
    for household, (path, cookie) in enumerate(sheets):
        await ready.acquire()
        tasks.append(
            asyncio.create_task(
                _hold_one(
                    port,
                    path,
                    cookie,
                    _source(household // TABLETS),
                    counts,
                    held,
                    ready,
                    first_event,
                )
            )
        )
    for _ in range(OPEN_AT_ONCE):
        await ready.acquire()
    pipe.send(dict(counts))
    loop = asyncio.get_running_loop()
    # Held until the parent asks how many are still open, then closed.
    await loop.run_in_executor(None, pipe.recv)
    pipe.send(len(held))
    for writer in list(held):
        writer.close()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def _holder(port, sheets, first_event, pipe) -> None:
    asyncio.run(_hold(port, sheets, first_event, pipe))


# The household at play.


class Table:
    """One household: a tablet that plays, and two more that follow its game's stream."""

    def __init__(self, port: int, cookies: list[str], game: int) -> None:
        self.port, self.cookies, self.game = port, cookies, game
        # The player's session (its CSRF token), besides its device's cookie.
        self.jar = SimpleCookie()
        self.player = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        # A stream refused (every seat taken) leaves its tablet asking every 5 s: counted,
        # not followed.
        streams = [self._follow(cookie) for cookie in cookies[1:]]
        self.followers = [stream for stream in streams if stream is not None]
        self.refused = len(streams) - len(self.followers)

    def _follow(self, cookie: str) -> socket.socket | None:
        stream = socket.create_connection(("127.0.0.1", self.port), timeout=30)
        stream.sendall(
            f"GET /games/{self.game}/events HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
            f"Accept: text/event-stream\r\nCookie: {cookie}\r\n\r\n".encode()
        )
        head = stream.recv(1 << 16)
        if not head.startswith(b"HTTP/1.1 200"):
            stream.close()
            return None
        return stream

    def _request(self, method: str, path: str, body: bytes = b"", headers=None):
        cookie = "; ".join(
            [self.cookies[0]] + [f"{name}={kept.value}" for name, kept in self.jar.items()]
        )
        headers = {"Host": f"127.0.0.1:{self.port}", "Cookie": cookie, **(headers or {})}
        self.player.request(method, path, body=body, headers=headers)
        answer = self.player.getresponse()
        for value in answer.headers.get_all("Set-Cookie") or ():
            self.jar.load(value)
        return answer.status, answer.read().decode()

    def play(self, turns: int) -> tuple[list[float], list[float], int]:
        """Turns played one every TURN_PAUSE_SECONDS: each turn's time, each follower's
        time from the POST to the version it made, and the turns that failed."""
        status, page = self._request("GET", f"/games/{self.game}")
        sheet = Sheet.read(page)
        turn_times, seen_times, failed = [], [], 0
        received = [b""] * len(self.followers)
        for number in range(turns):
            if not sheet.playable:
                break
            form = {
                "csrf_token": sheet.csrf_token or "",
                "seq": sheet.seq,
                "version": sheet.version or "",
                "dice": DICE[number % len(DICE)],
                "target": sheet.targets[0],
                "confirm": "1",
            }
            began = time.perf_counter()
            status, page = self._request(
                "POST",
                f"/games/{self.game}/entries",
                urlencode(form).encode(),
                {"Content-Type": "application/x-www-form-urlencoded", "X-Sheet-Swap": "1"},
            )
            turn_times.append(time.perf_counter() - began)
            if status != 200:
                print(f"a turn answered {status}: {page[:300]!r}", flush=True)
                failed += 1
                break
            sheet = Sheet.read(page)
            if not sheet.playable:
                break  # the game is over: its last sheet has no form to follow
            for index, stream in enumerate(self.followers):
                seen = _until_version(stream, received[index], sheet.version)
                if seen is None:
                    print(f"a follower did not see {sheet.version}: {received[index][-300:]!r}")
                    failed += 1
                else:
                    received[index] = b""
                    seen_times.append(seen - began)
            time.sleep(TURN_PAUSE_SECONDS)
        return turn_times, seen_times, failed

    def close(self) -> None:
        self.player.close()
        for stream in self.followers:
            stream.close()


def _until_version(stream: socket.socket, received: bytes, version: str | None) -> float | None:
    """When the stream brings an event of `version` (None if it does not within 30 s)."""
    needle = f'"version": "{version}"'.encode()
    compact = f'"version":"{version}"'.encode()
    deadline = time.monotonic() + 30
    while needle not in received and compact not in received:
        stream.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = stream.recv(1 << 20)
        except TimeoutError:
            return None
        if not chunk:
            return None
        received += chunk
    return time.perf_counter()


# The stack and its processes.


def _tree(pid: int) -> list[int]:
    """`pid` and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                parent = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
                children.setdefault(parent, []).append(int(entry.name))
    found, queue = [], [pid]
    while queue:
        each = queue.pop()
        found.append(each)
        queue.extend(children.get(each, ()))
    return found


def _memory_mib(roots: dict[str, int]) -> dict[str, float]:
    """The PSS of each part of the stack (a root and the processes below it), in MiB."""
    parts = {}
    for name, root in roots.items():
        parts[name] = 0.0
        for pid in _tree(root):
            with contextlib.suppress(OSError, ValueError):
                parts[name] += pss_mib(pid)
    return parts


def _cpu_seconds(roots: dict[str, int]) -> dict[int, float]:
    """Each process's CPU so far, by pid: a share is taken over the processes alive at both
    readings (a fork server's child that ended meanwhile took none of the idle time)."""
    tick = os.sysconf("SC_CLK_TCK")
    found = {}
    for root in roots.values():
        for pid in _tree(root):
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
                found[pid] = (int(fields[11]) + int(fields[12])) / tick
    return found


def _cpu_share(before: dict[int, float], after: dict[int, float], seconds: float) -> float:
    return sum(after[pid] - before[pid] for pid in after.keys() & before.keys()) / seconds


def _cpu_parts(roots: dict[str, int], before, after, seconds: float) -> dict[str, float]:
    """The share of a core each part of the stack took between two readings."""
    return {
        name: _cpu_share(
            {pid: before[pid] for pid in _tree(root) if pid in before},
            {pid: after[pid] for pid in _tree(root) if pid in after},
            seconds,
        )
        for name, root in roots.items()
    }


def _fill(database_url: str, households: int) -> list[tuple[int, int, list[str]]]:
    """`households` households of TABLETS devices and a game each: (household, game, the
    devices' tokens)."""
    store = Store(database_url)
    store.migrate()
    hashed = passphrase_hash("correct horse battery")
    made = []
    try:
        for number in range(households):
            household = create_household(store, f"Maison {number:05d}", hashed)
            tokens = [secrets.token_urlsafe(32) for _ in range(TABLETS)]
            for tablet, token in enumerate(tokens):
                add_device(store, household, token, f"tablette {tablet + 1}")
            game = start_game(store, Rules(), PLAYERS, household=household, quotas=NO_QUOTAS)
            made.append((household, game, tokens))
    finally:
        store.dispose()
    return made


def _played(port: int, database_url: str, household: int, tokens: list[str], turns: int):
    """A new game of `household` played: its turns' times, its followers' times, the turns
    that failed and the followers refused a stream."""
    store = Store(database_url)
    try:
        game = start_game(store, Rules(), TABLE, household=household, quotas=NO_QUOTAS)
    finally:
        store.dispose()
    table = Table(port, _cookies(tokens), game)
    try:
        return (*table.play(turns), table.refused)
    finally:
        table.close()


def _cookies(tokens: list[str]) -> list[str]:
    """Each device's remember-me cookie, signed with the stack's key as the app signs it."""
    signer = Flask(__name__)
    signer.config["SECRET_KEY"] = SECRET
    with signer.app_context():
        return [f"remember_token={encode_cookie(token)}" for token in tokens]


def run_stack(design: str, args, folder: Path, made) -> Figures:
    figures = Figures(design)
    # Each design starts from the same households, copied.
    url = fresh_database(args.admin_url, "scorekeeper_bench_idle", template=FILLED)
    port = free_port()
    instance = folder / design
    instance.mkdir()
    (instance / "config.py").write_text(
        f"HOUSEHOLDS = True\nEXTERNAL_URL = 'http://127.0.0.1:{port}'\n"
    )
    # The Conseil's tables built ahead at start would take a core for a minute, in the
    # middle of the idle readings.
    no_tables_ahead(instance)
    os.environ["SCOREKEEPER_SECRET_KEY"] = SECRET
    os.environ["SCOREKEEPER_LIVE_STREAMS"] = str(THREAD_SEATS if design == "threads" else 0)
    os.environ["SCOREKEEPER_STREAMS_PER_WORKER"] = str(args.sheets + 100)
    with hosted_stack.running(url, port, instance, 1 if design == "gevent" else 0) as started:
        roots = {name: process.pid for name, process in started}
        household, _game, tokens = made[-1]
        _played(port, url, household, tokens, 5)  # the pages and templates warmed up
        turns, seen, _failed, _refused = _played(port, url, household, tokens, args.turns)
        figures.turn_p95_alone = percentile(turns, 0.95)
        figures.seen_p95_alone = percentile(seen, 0.95)
        time.sleep(2)
        figures.memory_before_mib = _memory_mib(roots)
        sheets = [
            (f"/games/{game}/events", cookie)
            for _household, game, tokens in made[:-1]
            for cookie in _cookies(tokens)
        ][: args.sheets]
        parent, child = multiprocessing.Pipe()
        holder = multiprocessing.Process(
            target=_holder, args=(port, sheets, True, child), daemon=True
        )
        began, cpu = time.monotonic(), _cpu_seconds(roots)
        holder.start()
        counts = parent.recv()
        figures.answered, figures.refused = counts["answered"], counts["refused"]
        figures.failed = counts["failed"]
        opened = sum(counts.values()) or 1
        figures.open_cpu_ms = _cpu_share(cpu, _cpu_seconds(roots), 1) * 1000 / opened
        print(f"{design}: {counts} in {time.monotonic() - began:.0f} s", flush=True)
        time.sleep(5)
        figures.memory_after_mib = _memory_mib(roots)
        cpu = _cpu_seconds(roots)
        time.sleep(args.idle_seconds)
        after = _cpu_seconds(roots)
        figures.idle_cpu_share = _cpu_share(cpu, after, args.idle_seconds)
        figures.idle_cpu_parts = _cpu_parts(roots, cpu, after, args.idle_seconds)
        turns, seen, failed, refused = _played(port, url, household, tokens, args.turns)
        figures.turn_p95 = percentile(turns, 0.95)
        # Followers refused a stream ask every 5 s: no see-time of a stream to give.
        figures.seen_p95 = percentile(seen, 0.95) if seen else float("nan")
        figures.turns_failed, figures.followers_refused = failed, refused
        parent.send("count")
        figures.held_at_end = parent.recv()
        holder.join(timeout=60)
    return figures


NCHAN_SERVER = """
    server {{
        listen 127.0.0.1:{port};
        location ~ ^/games/([0-9]+)/events$ {{
            nchan_subscriber eventsource;
            nchan_channel_id $1;
        }}
        location ~ ^/publish/([0-9]+)$ {{
            nchan_publisher;
            nchan_channel_id $1;
        }}
    }}"""


def run_nchan(args, folder: Path) -> Figures:
    """nginx alone, its nchan module holding the subscribers: the floor of a proxy-held
    design (no sign-in, no seats, no sheet: a publisher's message passed on)."""
    figures = Figures("nchan")
    nginx_folder = folder / "nchan"
    nginx_folder.mkdir()
    port = free_port()
    config = hosted_stack.nginx_main_config(nginx_folder, NCHAN_SERVER.format(port=port))
    module = "load_module /usr/lib/nginx/modules/ngx_nchan_module.so;\n"
    (nginx_folder / "nginx.conf").write_text(module + config)
    nginx = subprocess.Popen(
        [hosted_stack.NGINX, "-p", str(nginx_folder), "-c", str(nginx_folder / "nginx.conf")]
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            time.sleep(0.1)
        roots = {"nginx": nginx.pid}
        households = -(-args.sheets // TABLETS)
        table_game = households + 1
        publish = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        followers = [_nchan_follow(port, table_game) for _ in range(TABLETS - 1)]

        def play() -> tuple[list[float], list[float]]:
            turns, seen = [], []
            for number in range(args.turns):
                version = f"v{number}-{secrets.token_hex(4)}"
                began = time.perf_counter()
                publish.request(
                    "POST",
                    f"/publish/{table_game}",
                    body=json.dumps({"version": version}, separators=(", ", ": ")),
                )
                publish.getresponse().read()
                turns.append(time.perf_counter() - began)
                for stream in followers:
                    at = _until_version(stream, b"", version)
                    if at is not None:
                        seen.append(at - began)
                time.sleep(TURN_PAUSE_SECONDS / 5)
            return turns, seen

        turns, seen = play()
        figures.turn_p95_alone, figures.seen_p95_alone = (
            percentile(turns, 0.95),
            percentile(seen, 0.95),
        )
        time.sleep(1)
        figures.memory_before_mib = _memory_mib(roots)
        sheets = [(f"/games/{number // TABLETS}/events", "") for number in range(args.sheets)]
        parent, child = multiprocessing.Pipe()
        holder = multiprocessing.Process(
            target=_holder, args=(port, sheets, False, child), daemon=True
        )
        holder.start()
        counts = parent.recv()
        figures.answered, figures.refused = counts["answered"], counts["refused"]
        figures.failed = counts["failed"]
        time.sleep(5)
        figures.memory_after_mib = _memory_mib(roots)
        cpu = _cpu_seconds(roots)
        time.sleep(args.idle_seconds)
        figures.idle_cpu_share = _cpu_share(cpu, _cpu_seconds(roots), args.idle_seconds)
        turns, seen = play()
        figures.turn_p95, figures.seen_p95 = percentile(turns, 0.95), percentile(seen, 0.95)
        parent.send("count")
        figures.held_at_end = parent.recv()
        holder.join(timeout=60)
        figures.notes.append("turn: the publisher's POST; no app, no sign-in")
    finally:
        nginx.terminate()
        nginx.wait(timeout=30)
        shutil.rmtree(nginx_folder, ignore_errors=True)
    return figures


def _nchan_follow(port: int, channel: int) -> socket.socket:
    stream = socket.create_connection(("127.0.0.1", port), timeout=30)
    stream.sendall(
        f"GET /games/{channel}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Accept: text/event-stream\r\n\r\n".encode()
    )
    return stream


def _raise_file_limit() -> None:
    """Room for every held connection, on both ends, in this process and the stack's."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (FILES, FILES))  # root may raise both
        return
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def _seen(row: Figures) -> str:
    if row.followers_refused:
        return f"{row.followers_refused} of {TABLETS - 1} refused a stream (asking every 5 s)"
    return f"{row.seen_p95 * 1000:.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sheets", type=int, default=10_000)
    parser.add_argument("--designs", default="threads,gevent,nchan")
    parser.add_argument("--turns", type=int, default=60)
    parser.add_argument("--idle-seconds", type=float, default=30)
    parser.add_argument("--admin-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    _raise_file_limit()
    rows = []
    households = -(-args.sheets // TABLETS)
    print(f"{households} households of {TABLETS} devices…", flush=True)
    # Made once, copied for each design (the household at play last).
    made = _fill(fresh_database(args.admin_url, FILLED), households + 1)
    with tempfile.TemporaryDirectory(prefix="yams-idle-") as folder:
        for design in args.designs.split(","):
            figures = (
                run_nchan(args, Path(folder))
                if design == "nchan"
                else run_stack(design, args, Path(folder), made)
            )
            rows.append(figures)
            print(figures, flush=True)
    print(f"\n{args.sheets} idle sheets opened, a household playing before and while held:\n")
    print(
        "| design | held | refused | failed | still held at the end | memory per sheet "
        "| idle CPU (a core) | CPU a stream opened | with a new stream every "
        f"{LIFETIME_SECONDS} s | turn p95 alone → held | seen p95 alone → held |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        parts = ", ".join(
            f"{name} {row.per_sheet_kib(name):.1f}" for name in sorted(row.memory_after_mib)
        )
        print(
            f"| {row.design} | {row.answered} | {row.refused} | {row.failed} | "
            f"{row.held_at_end} | {row.per_sheet_kib():.1f} KiB ({parts}) | "
            f"{row.idle_cpu_share:.1%} | {row.open_cpu_ms:.2f} ms | "
            f"{row.steady_cpu_share:.1%} | "
            f"{row.turn_p95_alone * 1000:.0f} → {row.turn_p95 * 1000:.0f} ms | "
            f"{row.seen_p95_alone * 1000:.0f} → {_seen(row)} |"
        )


if __name__ == "__main__":
    main()
