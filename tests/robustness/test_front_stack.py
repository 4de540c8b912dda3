"""The hosted stack through its front, as `python -m scripts.hosted_stack` starts it: nginx
(deploy/nginx's include files) in front of gunicorn (gunicorn_conf.py, 2 workers) and of the
stream group (gunicorn_streams_conf.py, gevent) on PostgreSQL. Two households play through
nginx; strangers on other loopback addresses send slow headers, slow bodies and bodies over
the limit; an open sheet's stream comes through unbuffered from the stream group, and ends
within a second of its device's removal; SIGTERM ends the open streams at once, then every
process the command started.

On a machine without nginx these tests skip with one line, unless SCOREKEEPER_REQUIRE_PROXY=1
(.ci/run) makes them mandatory.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from scorekeeper.play import start_game
from scorekeeper.rules import Rules
from scorekeeper.store import Store
from scorekeeper.store.households import (
    count_households,
    find_household,
    list_devices,
    remove_device,
)
from scorekeeper.store.quotas import NO_QUOTAS
from testing.live import REPO_ROOT, Client, free_port
from tests.robustness.checks import PLAYERS, stored_entries
from tests.robustness.faults import descendants, running
from tests.support.apps import PASSPHRASE
from tests.support.databases import ON_POSTGRESQL, give_database, take_database
from tests.support.forms import csrf_token_in
from tests.support.front import nginx_or_skip

pytestmark = pytest.mark.skipif(not ON_POSTGRESQL, reason="the hosted stack runs on PostgreSQL")

# server.conf's client_header_timeout and client_body_timeout.
CUT_SECONDS = 10
# A household at play asks a page or plays a turn this often (far more than a table does).
PLAY_PAUSE_SECONDS = 0.25


@dataclass
class Stack:
    process: subprocess.Popen
    port: int
    database_url: str
    households: dict[str, tuple[Client, int]]  # name -> (its tablet, its game)

    @property
    def address(self) -> tuple[str, int]:
        return "127.0.0.1", self.port


def _sign_up(address: tuple[str, int], name: str) -> Client:
    tablet = Client(address)
    page = tablet.get("/household/new")
    answer = tablet.post(
        "/household/new",
        {"csrf_token": csrf_token_in(page.text), "name": name, "passphrase": PASSPHRASE},
    )
    assert answer.status == 303, answer.text[:500]
    return tablet


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    nginx_or_skip()
    instance = tmp_path_factory.mktemp("front") / "instance"
    database_url = take_database(instance)
    port = free_port()
    instance.mkdir(parents=True, exist_ok=True)
    (instance / "config.py").write_text(
        f"HOUSEHOLDS = True\nEXTERNAL_URL = 'http://127.0.0.1:{port}'\n"
    )
    command = [sys.executable, "-m", "scripts.hosted_stack", "--database-url", database_url]
    command += ["--port", str(port), "--instance", str(instance)]
    log = (instance.parent / "stack.log").open("wb")
    process = subprocess.Popen(
        command,
        cwd=REPO_ROOT,
        env={**os.environ, "SCOREKEEPER_WORKERS": "2"},
        stdout=subprocess.PIPE,
        stderr=log,
        start_new_session=True,
    )
    try:
        line = process.stdout.readline().decode()
        assert line.strip() == f"ready http://127.0.0.1:{port}", line
        households = {}
        store = Store(database_url)
        try:
            for name in ("Les Martin", "Les Durand"):
                tablet = _sign_up(("127.0.0.1", port), name)
                household = find_household(store, name).id
                households[name] = (
                    tablet,
                    start_game(store, Rules(), PLAYERS, household=household, quotas=NO_QUOTAS),
                )
        finally:
            store.dispose()
        yield Stack(process, port, database_url, households)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        log.close()
        give_database(database_url)


def _play(stack: Stack, name: str, stop: threading.Event, waits: list[float], failed: list):
    """The household `name` asks for its sheet and plays a turn, again and again."""
    tablet, game = stack.households[name]
    while not stop.is_set():
        began = time.monotonic()
        try:
            page, sheet = tablet.sheet(game)
            waits.append(time.monotonic() - began)
            if sheet.playable:
                began = time.monotonic()
                answer = tablet.submit(game, sheet, "12346", sheet.targets[0])
                waits.append(time.monotonic() - began)
                if answer.status != 303:
                    failed.append(answer.status)
        except (OSError, AssertionError) as error:
            failed.append(repr(error))
        stop.wait(PLAY_PAUSE_SECONDS)


def _held_until_closed(sock: socket.socket, drip: bytes | None) -> float:
    """Seconds until the server closes `sock`, sending `drip` every 2 s meanwhile."""
    began = time.monotonic()
    sock.settimeout(2)
    while time.monotonic() - began < 3 * CUT_SECONDS:
        try:
            if not sock.recv(65536):
                return time.monotonic() - began
        except TimeoutError:
            if drip:
                try:
                    sock.sendall(drip)
                except OSError:
                    return time.monotonic() - began
        except OSError:
            return time.monotonic() - began
    return float("inf")


def test_a_page_and_a_turn_through_the_front(stack):
    tablet, game = stack.households["Les Martin"]
    page, sheet = tablet.sheet(game)
    assert page.headers["server"].startswith("nginx")
    assert tablet.submit(game, sheet, "11235", "free:chance").status == 303
    assert ("free:chance", "11235") in stored_entries(stack.database_url).values()


def test_slow_headers_and_slow_bodies_are_cut_at_10_s_while_another_household_plays(stack):
    stop, waits, failed = threading.Event(), [], []
    player = threading.Thread(target=_play, args=(stack, "Les Durand", stop, waits, failed))
    player.start()
    cut: dict[str, list[float]] = {"header": [], "body": []}

    def stranger(kind: str, source: str) -> None:
        sock = socket.create_connection(stack.address, timeout=5, source_address=(source, 0))
        with sock:
            if kind == "header":
                sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                cut[kind].append(_held_until_closed(sock, b"X"))
            else:
                # The whole header, then 100 of the 500,000 bytes it announces, then nothing.
                sock.sendall(
                    b"POST /household/join HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    b"Content-Type: application/x-www-form-urlencoded\r\n"
                    b"Content-Length: 500000\r\n\r\n" + b"a" * 100
                )
                cut[kind].append(_held_until_closed(sock, None))

    # Fewer than limit_conn's 32 from each address: each is cut by its timeout, not refused.
    strangers = [
        threading.Thread(target=stranger, args=(kind, source))
        for kind, source in (("header", "127.0.0.2"), ("body", "127.0.0.3"))
        for _ in range(25)
    ]
    try:
        for thread in strangers:
            thread.start()
        for thread in strangers:
            thread.join(timeout=4 * CUT_SECONDS)
    finally:
        stop.set()
        player.join(timeout=30)
    for kind, seconds in cut.items():
        assert len(seconds) == 25, kind
        assert all(CUT_SECONDS - 1 <= held <= CUT_SECONDS + 3 for held in seconds), (kind, seconds)
    assert failed == []
    # The other household did not wait for the strangers: each answer well under 2 s.
    assert len(waits) > 40 and max(waits) < 2.0, (len(waits), max(waits))


def _send_head(stack: Stack, head: str) -> str:
    """Send a request's head announcing a body it never sends; nginx's whole answer."""
    with socket.create_connection(stack.address, timeout=10) as sock:
        sock.sendall(head.encode())
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
            if b"</html>" in chunk:
                break
        return b"".join(chunks).decode("utf-8", errors="replace")


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("fr-FR,fr;q=0.9,en;q=0.5", "Envoi trop gros"),
        ("en-GB,en;q=0.9", "Too large to send"),
        ("de-DE,de;q=0.9", "Zu groß zum Senden"),
        ("nl-NL,es;q=0.8", "Envío demasiado grande"),
        ("sv-SE", "För stort att skicka"),
    ],
)
def test_a_body_over_the_limit_gets_the_413_page_in_the_readers_language_and_nothing_written(
    stack, language, words
):
    store = Store(stack.database_url)
    try:
        before = count_households(store)
        answer = _send_head(
            stack,
            "POST /household/new HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Accept-Language: {language}\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {1024 * 1024 + 1}\r\n\r\n",
        )
        assert answer.startswith("HTTP/1.1 413"), answer[:200]
        assert words in answer and "</html>" in answer
        assert count_households(store) == before
    finally:
        store.dispose()


def test_the_import_takes_a_larger_body_than_the_other_forms(stack):
    tablet, _game = stack.households["Les Martin"]
    body = b"x" * (2 * 1024 * 1024)
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    # Past nginx (2 MiB is within the import's limit): the app answers, a 400 for the token.
    answer = tablet.request("POST", "/import-export/import", body, headers)
    assert answer.status == 400
    assert tablet.request("POST", "/household/join", body, headers).status == 413


def _open_stream(stack: Stack, tablet: Client, game: int) -> tuple[socket.socket, bytes]:
    """A tablet's stream of the game through the front, and what came until its first event."""
    cookie = "; ".join(f"{name}={morsel.value}" for name, morsel in tablet.cookies.items())
    sock = socket.create_connection(stack.address, timeout=10)
    sock.sendall(
        f"GET /games/{game}/events HTTP/1.1\r\nHost: 127.0.0.1:{stack.port}\r\n"
        f"Cookie: {cookie}\r\nAccept: text/event-stream\r\n\r\n".encode()
    )
    received = b""
    while received.count(b"data: ") < 1:
        received += sock.recv(65536)
    assert received.startswith(b"HTTP/1.1 200 OK"), received[:300]
    return sock, received


def _seconds_until_closed(sock: socket.socket, bound: float) -> tuple[float, bytes]:
    """How long until the server ends the stream (its last chunk, or the connection closed),
    and what came meanwhile; `inf` if it goes on past `bound` seconds."""
    began, received = time.monotonic(), b""
    while time.monotonic() - began < bound:
        sock.settimeout(max(0.01, bound - (time.monotonic() - began)))
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            break
        received += chunk
        if not chunk or received.endswith(b"\r\n0\r\n\r\n"):
            return time.monotonic() - began, received
    return float("inf"), received


def test_the_stream_comes_through_unbuffered(stack):
    tablet, game = stack.households["Les Martin"]
    sock, received = _open_stream(stack, tablet, game)
    with sock:
        page, sheet = tablet.twin().sheet(game)
        played = time.monotonic()
        assert tablet.twin().submit(game, sheet, "22456", sheet.targets[0]).status == 303
        while received.count(b"data: ") < 2:
            received += sock.recv(65536)
        # The event within a second of the turn sent, its answer included.
        assert time.monotonic() - played < 1.0


def test_a_removed_devices_stream_ends_within_a_second(stack):
    tablet = _sign_up(stack.address, "Les Petit")
    store = Store(stack.database_url)
    try:
        household = find_household(store, "Les Petit").id
        game = start_game(store, Rules(), PLAYERS, household=household, quotas=NO_QUOTAS)
        sock, _first = _open_stream(stack, tablet, game)
        with sock:
            (device,) = list_devices(store, household)
            removed = time.monotonic()
            assert remove_device(store, household, device.id)
            # Heard by the stream group from the pages' NOTIFY channel, not by the process
            # that removed it (this one).
            seconds, said = _seconds_until_closed(sock, 5.0)
            assert time.monotonic() - removed <= 1.0, seconds
            assert b'"gone": true' in said
    finally:
        store.dispose()


def test_sigterm_ends_the_open_streams_at_once_then_every_process(stack):
    processes = descendants(stack.process.pid)
    names = {Path(f"/proc/{pid}/comm").read_text().strip() for pid in processes}
    # nginx, the pages' gunicorn and the streams', each a master and its workers.
    assert "nginx" in names and len(processes) >= 6, names
    tablet, game = stack.households["Les Durand"]
    sock, _first = _open_stream(stack, tablet, game)
    with sock:
        stack.process.send_signal(signal.SIGTERM)
        # Ended by the stream group, not held until its graceful timeout (30 s).
        seconds, _said = _seconds_until_closed(sock, 10.0)
        assert seconds <= 5.0, seconds
    assert stack.process.wait(timeout=45) == 0
    deadline = time.monotonic() + 10
    while any(map(running, processes)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [pid for pid in processes if running(pid)] == []
