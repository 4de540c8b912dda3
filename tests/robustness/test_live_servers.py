"""Open sheets' streams of changes on real servers: `scorekeeper serve` (waitress) and, on
PostgreSQL, the stream group's gunicorn (gevent) with 2 workers. A turn written anywhere
reaches every stream at once, from another process through LISTEN/NOTIFY; and every stream
ends with its server: no process, no thread left waiting."""

import http.client
import json
import os
import signal
import time
from pathlib import Path

import pytest

from scorekeeper.play import play_turn, start_game
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.quotas import NO_QUOTAS
from testing.live import Client, LiveServer
from tests.robustness.faults import gunicorn_server, workers_of
from tests.support.databases import ON_POSTGRESQL

STREAMS = 6
# The longest a stream may take to end once its server stops (gunicorn's own
# graceful_timeout is 30 s: a stream left to it would hold the worker that long).
SECONDS = 5
# The longest a stream may take to say a change. It comes with the new sheet, which a server
# process that has drawn none yet draws first, its templates compiled on first use: well
# under a second on a quiet machine, several on a loaded one.
CHANGE_SECONDS = 20


def _open_stream(address, game_id):
    connection = http.client.HTTPConnection(*address, timeout=CHANGE_SECONDS)
    connection.request("GET", f"/games/{game_id}/events", headers={"Accept": "text/event-stream"})
    response = connection.getresponse()
    assert response.status == 200, response.read()
    assert response.getheader("Content-Type").startswith("text/event-stream")
    return connection, response


def _next_version(response) -> dict | None:
    """The next event's version, skipping heartbeats; None when the stream ended."""
    data = None
    while True:
        line = response.readline().decode()
        if not line:
            return None
        if line.startswith("data: "):
            data = json.loads(line.removeprefix("data: "))
        elif line == "\n" and data is not None:
            return data


def _ended(response) -> bool:
    try:
        return _next_version(response) is None
    except (OSError, http.client.HTTPException):
        return True  # cut: ended all the same


def _children(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def _gone(pids: list[int], within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if not any(Path(f"/proc/{pid}").exists() for pid in pids):
            return True
        time.sleep(0.05)
    return False


def _stop_and_check(server: LiveServer, streams, how: int) -> None:
    process = server.process
    left_behind = _children(process.pid) + [
        grandchild for child in _children(process.pid) for grandchild in _children(child)
    ]
    stopped_at = time.monotonic()
    os.kill(process.pid, how)
    assert all(_ended(response) for _connection, response in streams)
    assert time.monotonic() - stopped_at < SECONDS
    process.wait(timeout=25)
    assert _gone(left_behind, within=5), "a process of the server outlived it"


def test_serve_pushes_a_turn_to_every_stream_and_ends_them_on_ctrl_c(tmp_path, database_url, store):
    game_id = start_game(
        store, Rules(), ["Mag", "Alix"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
    )
    server = LiveServer(tmp_path / "instance", tmp_path / "serve.log", database_url=database_url)
    with server:
        streams = [_open_stream(server.base, game_id) for _ in range(STREAMS)]
        assert all(_next_version(response)["seq"] == 0 for _c, response in streams)
        player = Client(server.base)
        _page, sheet = player.sheet(game_id)
        assert player.submit(game_id, sheet, "66662", "free:sixes").status == 303
        assert all(_next_version(response)["seq"] == 1 for _c, response in streams)
        # Ctrl-C, as a household stops its server.
        _stop_and_check(server, streams, signal.SIGINT)


@pytest.mark.skipif(not ON_POSTGRESQL, reason="several processes need PostgreSQL")
def test_gevent_workers_hear_a_turn_written_elsewhere_and_end_their_streams_on_sigterm(
    tmp_path, database_url, store
):
    game_id = start_game(
        store, Rules(), ["Mag", "Alix"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
    )
    server = gunicorn_server(
        tmp_path / "instance",
        tmp_path / "gunicorn.log",
        database_url,
        config="python:scorekeeper.gunicorn_streams_conf",
    )
    with server:
        deadline = time.monotonic() + 30
        while len(workers_of(server.process.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        streams = [_open_stream(server.base, game_id) for _ in range(STREAMS)]
        assert all(_next_version(response)["seq"] == 0 for _c, response in streams)
        # Written by this process, neither worker: only PostgreSQL's NOTIFY tells them.
        play_turn(store, game_id, 0, "free", "sixes", "66662", household=HOME_HOUSEHOLD)
        # With the sheet, drawn in each worker (which neither wrote nor drew it).
        events = [_next_version(response) for _c, response in streams]
        assert all(event["seq"] == 1 and "À Alix de jouer" in event["sheet"] for event in events)
        # A deploy's SIGTERM: the streams end at once, not after gunicorn's graceful timeout.
        _stop_and_check(server, streams, signal.SIGTERM)
