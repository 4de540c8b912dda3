"""`scorekeeper serve` holds the connections a home network throws at it: a tablet that
wakes up connects and plays while hundreds of others are idle or slow to send, a connection
idle too long is closed, and an open sheet's stream is not. Against a real server."""

import json
import socket
import subprocess
import sys
import time

import pytest

from testing.live import Client, HeldConnections, LiveServer, Sheet, open_sockets
from testing.samples import new_game_form

# What a network of strangers holds open: connections that send nothing, and as many that
# send their headers one byte at a time.
IDLE, SLOW = 300, 300
# A tablet that waits longer than this for an answer has not got in.
ANSWER_SECONDS = 10


def _new_game(client: Client) -> str:
    token = Sheet.read(client.get("/games/new").text).csrf_token
    created = client.post("/games/new", {**new_game_form(["Mag", "Alix"]), "csrf_token": token})
    assert created.status == 303, created.status
    return created.location


def _play_a_turn(client: Client, game: str, dice: str = "12346") -> None:
    sheet = Sheet.read(client.get(game).text)
    answer = client.post(f"{game}/entries", Client.entry_form(sheet, dice, "free:chance"))
    assert answer.status == 303, answer.status
    page = client.get(answer.location)
    assert page.status == 200 and Sheet.read(page.text).seq == sheet.seq + 1


@pytest.mark.skipif(sys.platform != "linux", reason="counts the server's sockets in /proc")
def test_a_new_tablet_plays_while_hundreds_of_connections_are_held(tmp_path, database_url):
    with LiveServer(tmp_path / "instance", tmp_path / "serve.log", database_url=database_url) as (
        server
    ):
        game = _new_game(Client(server.base))
        with HeldConnections(server.base, IDLE, SLOW):
            # Every held connection is the server's own, accepted, not waiting in the queue.
            deadline = time.monotonic() + ANSWER_SECONDS
            while open_sockets(server.process.pid) < IDLE + SLOW:
                assert time.monotonic() < deadline, open_sockets(server.process.pid)
                time.sleep(0.1)
            tablet = Client(server.base)
            tablet.connection.timeout = ANSWER_SECONDS
            _play_a_turn(tablet, game)
            tablet.close()
        log = server.log.read_text(errors="replace")
    assert "connection limit" not in log, log[-2000:]


def test_serve_holds_connections_beyond_its_soft_file_limit(tmp_path, database_url):
    """Started with a soft limit of 256 open files (the hard one higher), as a shell's
    `ulimit -Sn` may leave it: the server raises it and holds 300 connections."""
    command = [
        sys.executable,
        "-c",
        "import resource, sys; "
        "resource.setrlimit(resource.RLIMIT_NOFILE, "
        "(256, resource.getrlimit(resource.RLIMIT_NOFILE)[1])); "
        "from scorekeeper.cli import main; sys.exit(main())",
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "{port}",
        "--instance",
        str(tmp_path / "instance"),
    ]
    hard = int(subprocess.check_output(["sh", "-c", "ulimit -Hn"]).strip() or 0)
    if hard < 1024:
        pytest.skip(f"the hard limit on open files is {hard}: nothing to raise")
    with LiveServer(
        tmp_path / "instance", tmp_path / "serve.log", command, database_url=database_url
    ) as server:
        game = _new_game(Client(server.base))
        with HeldConnections(server.base, IDLE, 0):
            tablet = Client(server.base)
            tablet.connection.timeout = ANSWER_SECONDS
            _play_a_turn(tablet, game)
            tablet.close()


def _events_until(stream: socket.socket, wanted: str, seconds: float) -> str:
    """What the stream sends until `wanted` is in it."""
    received = b""
    deadline = time.monotonic() + seconds
    while wanted.encode() not in received:
        stream.settimeout(max(0.1, deadline - time.monotonic()))
        chunk = stream.recv(65536)
        assert chunk, f"the stream ended before {wanted!r}: {received[-300:]!r}"
        received += chunk
    return received.decode(errors="replace")


def test_an_idle_connection_is_closed_and_an_open_sheets_stream_is_not(tmp_path, database_url):
    instance = tmp_path / "instance"
    instance.mkdir(exist_ok=True)
    idle_seconds = 2
    (instance / "config.py").write_text(f"SERVER_IDLE_SECONDS = {idle_seconds}\n")
    with LiveServer(instance, tmp_path / "serve.log", database_url=database_url) as server:
        tablet = Client(server.base)
        game = _new_game(tablet)
        stream = socket.create_connection(server.base, timeout=ANSWER_SECONDS)
        stream.sendall(f"GET {game}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        first = _events_until(stream, '"seq": 0', ANSWER_SECONDS)
        assert "text/event-stream" in first
        idle = socket.create_connection(server.base, timeout=ANSWER_SECONDS)
        opened = time.monotonic()
        # Closed by the server past the idle time, at its next look for idle connections
        # (every quarter of it): recv() then reads the end of the stream.
        assert idle.recv(1) == b"", "the idle connection sent something"
        assert time.monotonic() - opened >= idle_seconds
        idle.close()
        # The stream, silent all that time (its heartbeat comes every 15 s), still carries
        # the next turn.
        tablet.close()
        _play_a_turn(Client(server.base), game)
        pushed = _events_until(stream, '"seq": 1', ANSWER_SECONDS)
        event = next(line for line in pushed.splitlines() if '"seq": 1' in line)
        assert json.loads(event.removeprefix("data: "))["seq"] == 1
        stream.close()
