"""The server process's malloc arenas (scorekeeper/memory.py)."""

import subprocess
import sys

import pytest

from scorekeeper.memory import SERVER_ARENAS

# Threads alive at once, each allocating: by default glibc gives each its own arena.
THREADS = 8
ARENAS_OF_THREADS = f"""if True:
    import ctypes, sys, threading
    from scorekeeper.memory import fewer_arenas
    if sys.argv[1] == "fewer":
        fewer_arenas()
    together = threading.Barrier({THREADS})
    def allocate():
        kept = [bytearray(2000) for _ in range(100)]
        together.wait()
    threads = [threading.Thread(target=allocate) for _ in range({THREADS})]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ctypes.CDLL("libc.so.6").malloc_stats()  # one "Arena N:" paragraph each, on stderr
"""


def arenas(mode: str) -> int:
    result = subprocess.run(
        [sys.executable, "-c", ARENAS_OF_THREADS, mode], capture_output=True, text=True, check=True
    )
    return sum(line.startswith("Arena ") for line in result.stderr.splitlines())


@pytest.mark.skipif(sys.platform != "linux", reason="glibc's malloc")
def test_the_server_threads_share_two_arenas():
    assert arenas("default") > SERVER_ARENAS  # else the test proves nothing
    assert arenas("fewer") == SERVER_ARENAS
