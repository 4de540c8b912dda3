"""Fair seats: one household opens 1,000 live streams with its own cookie; do the other
households' open sheets stay live?

    python -m bench.seats [--streams 1000] [--others 30] [--workers 4]
        [--admin-url postgresql://postgres@127.0.0.1:54329/postgres]

gunicorn with gunicorn_conf.py (4 workers of 200 stream seats each, 800 in all) on a fresh
PostgreSQL database, hosted, twice in one run: with the seats lifted
(LIVE_STREAMS_PER_DEVICE out of reach: as before fair seats) and with the default. Each
time a household of one device opens --streams streams of its game from 127.0.0.2-5 and
holds them; then another household's tablets open --others streams. Printed: how many of
the others' streams were refused (503) or answered, and how many of the flood's streams
were still open at the end.
"""

from __future__ import annotations

import argparse
import os
import socket
import tempfile
import time
from pathlib import Path

from bench.edge import ATTACKERS, sign_up
from bench.hosted import fresh_database, gunicorn_command
from testing.live import LiveServer

LIFTED = 1_000_000


def _household(address, database_url: str, name: str) -> tuple[str, int]:
    """A household signed up on one device: its cookie header and a game of its own."""
    tablet, (game,) = sign_up(address, database_url, name, games=1)
    cookie = "; ".join(f"{key}={morsel.value}" for key, morsel in tablet.cookies.items())
    return cookie, game


def _open_stream(address, cookie: str, game: int, source: str) -> socket.socket:
    stream = socket.create_connection(address, timeout=10, source_address=(source, 0))
    stream.sendall(
        f"GET /games/{game}/events HTTP/1.1\r\nHost: {address[0]}:{address[1]}\r\n"
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


def run(folder: Path, admin_url: str, per_device: int, streams: int, others: int, workers: int):
    url = fresh_database(admin_url, "scorekeeper_bench_seats")
    instance = folder / f"seats-{per_device}"
    server = LiveServer(instance, folder / "gunicorn.log", gunicorn_command(workers, instance), url)
    instance.mkdir(exist_ok=True)
    (instance / "config.py").write_text(
        f"HOUSEHOLDS = True\nEXTERNAL_URL = 'http://127.0.0.1:{server.port}'\n"
        f"LIVE_STREAMS_PER_DEVICE = {per_device}\n"
    )
    with server:
        flood_cookie, flood_game = _household(server.base, url, "Les Envahisseurs")
        other_cookie, other_game = _household(server.base, url, "Les Autres")
        flood = []
        for number in range(streams):
            flood.append(_open_stream(server.base, flood_cookie, flood_game, ATTACKERS[number % 4]))
        flood_statuses = [_status(stream) for stream in flood]
        time.sleep(1)
        theirs = [
            _open_stream(server.base, other_cookie, other_game, "127.0.0.1") for _ in range(others)
        ]
        statuses = [_status(stream)[0] for stream in theirs]
        held = sum(
            _still_open(stream)
            for stream, (_status_code, open_then) in zip(flood, flood_statuses, strict=True)
            if open_then
        )
        for stream in flood + theirs:
            stream.close()
    return {
        "flood answered 200": sum(status == 200 for status, _open in flood_statuses),
        "flood still open": held,
        "others 200": statuses.count(200),
        "others refused": len(statuses) - statuses.count(200),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--others", type=int, default=30)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--admin-url", default="postgresql://postgres@127.0.0.1:54329/postgres")
    args = parser.parse_args()
    os.environ["SCOREKEEPER_SECRET_KEY"] = "bench-seats-" + "0" * 32
    rows = []
    with tempfile.TemporaryDirectory(prefix="yams-seats-") as folder:
        for name, per_device in (("seats lifted (before)", LIFTED), ("fair seats (3)", 3)):
            figures = run(
                Path(folder), args.admin_url, per_device, args.streams, args.others, args.workers
            )
            rows.append((name, figures))
            print(name, figures, flush=True)
    print(f"\none household's {args.streams} streams, then another's {args.others}:\n")
    print("| seats | flood answered 200 | flood still open | others 200 | others refused |")
    print("|---|---|---|---|---|")
    for name, figures in rows:
        print(f"| {name} | " + " | ".join(str(value) for value in figures.values()) + " |")


if __name__ == "__main__":
    main()
