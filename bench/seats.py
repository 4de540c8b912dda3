"""Fair seats: one household, or one spectator link, opens 1,000 live streams; do the other
households' open sheets stay live?

    python -m bench.seats [--streams 1000] [--others 30]
        [--admin-url postgresql://postgres@127.0.0.1:5432/postgres]

Each run is the stack of scripts/hosted_stack.py on a fresh PostgreSQL database, hosted:
nginx's production limits in front, the pages' gunicorn (gunicorn_conf.py, 4 workers), and
the open sheets held by:
- threads (before): no stream group, the pages' workers holding 200 streams each in
  threads (SCOREKEEPER_LIVE_STREAMS=200, 800 seats), as before the stream group, with the
  seats of a household lifted (LIVE_STREAMS_PER_DEVICE out of reach, as before fair seats);
- gevent, seats lifted: the stream group (gunicorn_streams_conf.py), no fair seats;
- gevent, fair seats: the stream group with the defaults (3 a device, 3 a spectator link).
The flood comes from 40 loopback addresses (127.0.2.1 and up, 25 each: within nginx's 32
connections an address, as a stranger with many addresses would): a household of one device
opening its game's stream with its cookie, or anyone opening a spectator link's stream with
no cookie at all. Then another household's tablets open --others streams from 127.0.0.1.
Printed: how many of the flood's streams were answered and were still held at the end, and
how many of the others' streams were answered or refused.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import socket
import tempfile
import time
from pathlib import Path
from unittest import mock

from bench.edge import sign_up
from bench.hosted import fresh_database
from scorekeeper.store import Store
from scorekeeper.store.households import find_household, set_spectator_token
from scripts import hosted_stack
from testing.live import free_port, no_tables_ahead

LIFTED = 1_000_000
FLOOD_ADDRESSES = [f"127.0.2.{number}" for number in range(1, 41)]
DESIGNS = {
    # name: (stream workers, the pages' workers' stream seats, seats lifted)
    "threads (before), seats lifted": (0, 200, True),
    "gevent, seats lifted": (1, 0, True),
    "gevent, fair seats": (1, 0, False),
}


def _household(address, database_url: str, name: str) -> tuple[str, int]:
    """A household signed up on one device: its cookie header and a game of its own."""
    tablet, (game,) = sign_up(address, database_url, name, games=1)
    cookie = "; ".join(f"{key}={morsel.value}" for key, morsel in tablet.cookies.items())
    return cookie, game


def _open_stream(address, cookie: str, path: str, source: str) -> socket.socket:
    stream = socket.create_connection(address, timeout=10, source_address=(source, 0))
    stream.sendall(
        f"GET {path} HTTP/1.1\r\nHost: {address[0]}:{address[1]}\r\n"
        f"Cookie: {cookie}\r\nAccept: text/event-stream\r\n\r\n".encode()
    )
    return stream


def _status(stream: socket.socket) -> tuple[int, bool]:
    """The status of a stream's answer (0 when none came within its timeout), and whether
    the stream is still held: its end (a seat taken back) not among what came."""
    try:
        head = stream.recv(4096)
        status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0
    except (OSError, ValueError, IndexError):
        return 0, False
    return status, status == 200 and not _closed(head)


def _closed(data: bytes) -> bool:
    return b'"closed": true' in data or b'"closed":true' in data


def _still_open(stream: socket.socket) -> bool:
    """Whether the server still holds a stream (its end not received since)."""
    stream.settimeout(0.05)
    try:
        while chunk := stream.recv(65536):
            if _closed(chunk):
                return False
        return False
    except TimeoutError:
        return True
    except OSError:
        return False


def run(folder: Path, admin_url: str, design: str, flood: str, streams: int, others: int):
    stream_workers, thread_seats, lifted = DESIGNS[design]
    url = fresh_database(admin_url, "scorekeeper_bench_seats")
    port = free_port()
    instance = folder / f"seats-{len(list(folder.iterdir()))}"
    instance.mkdir()
    seats = LIFTED if lifted else 3
    (instance / "config.py").write_text(
        f"HOUSEHOLDS = True\nEXTERNAL_URL = 'http://127.0.0.1:{port}'\n"
        f"LIVE_STREAMS_PER_DEVICE = {seats}\nLIVE_STREAMS_PER_SPECTATOR_LINK = {seats}\n"
    )
    no_tables_ahead(instance)
    environment = {
        "SCOREKEEPER_SECRET_KEY": "bench-seats-" + "0" * 32,
        "SCOREKEEPER_LIVE_STREAMS": str(thread_seats),
    }
    with (
        mock.patch.dict(os.environ, environment),
        hosted_stack.running(url, port, instance, stream_workers),
    ):
        address = ("127.0.0.1", port)
        flood_cookie, flood_game = _household(address, url, "Les Envahisseurs")
        other_cookie, other_game = _household(address, url, "Les Autres")
        flood_path = f"/games/{flood_game}/events"
        if flood == "spectator link":
            token = secrets.token_urlsafe(24)
            store = Store(url)
            try:
                household = find_household(store, "Les Envahisseurs").id
                set_spectator_token(store, flood_game, token, household=household)
            finally:
                store.dispose()
            flood_cookie, flood_path = "", f"/watch/{token}/events"
        held = [
            _open_stream(
                address, flood_cookie, flood_path, FLOOD_ADDRESSES[n % len(FLOOD_ADDRESSES)]
            )
            for n in range(streams)
        ]
        flood_statuses = [_status(stream) for stream in held]
        time.sleep(1)
        theirs = [
            _open_stream(address, other_cookie, f"/games/{other_game}/events", "127.0.0.1")
            for _ in range(others)
        ]
        statuses = [_status(stream)[0] for stream in theirs]
        still = sum(
            _still_open(stream)
            for stream, (_code, open_then) in zip(held, flood_statuses, strict=True)
            if open_then
        )
        for stream in held + theirs:
            with contextlib.suppress(OSError):
                stream.close()
    return {
        "flood answered 200": sum(status == 200 for status, _open in flood_statuses),
        "flood still open": still,
        "others 200": statuses.count(200),
        "others refused": len(statuses) - statuses.count(200),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--others", type=int, default=30)
    parser.add_argument("--admin-url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="yams-seats-") as folder:
        for flood in ("household", "spectator link"):
            for design in DESIGNS:
                figures = run(
                    Path(folder), args.admin_url, design, flood, args.streams, args.others
                )
                rows.append((flood, design, figures))
                print(flood, design, figures, flush=True)
    print(f"\n{args.streams} streams of one household or link, then another's {args.others}:\n")
    print(
        "| flood | design | flood answered 200 | flood still open | others 200 | others refused |"
    )
    print("|---|---|---|---|---|---|")
    for flood, design, figures in rows:
        print(f"| {flood} | {design} | " + " | ".join(map(str, figures.values())) + " |")


if __name__ == "__main__":
    main()
