"""The server process's memory allocator, set before its threads start."""

from __future__ import annotations

import ctypes

# glibc's mallopt parameter for the number of malloc arenas, and the arenas a server keeps.
M_ARENA_MAX = -8
SERVER_ARENAS = 2


def fewer_arenas() -> None:
    """Let the server's threads share SERVER_ARENAS of glibc's malloc arenas.

    glibc gives each thread that allocates an arena of its own, up to 8 a core, and an
    arena keeps what its threads freed. The server runs dozens of threads (the request
    threads and one for each open sheet's stream) of which Python runs one at a time: more
    arenas spare them no wait, and each one holds memory once requests have passed through
    it (4 MiB of a household server's idle memory after 100 pages, bench/startup.py). Two
    rather than one, for SQLite's calls, which run outside Python's lock. Without glibc,
    nothing.
    """
    try:
        ctypes.CDLL("libc.so.6").mallopt(M_ARENA_MAX, SERVER_ARENAS)
    except (OSError, AttributeError):
        pass
