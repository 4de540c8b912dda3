"""glibc's malloc arenas of a hosted server's processes, bounded by the environment its
commands start in: MALLOC_ARENA_MAX, as README.md and docs/hosting.md export it and
scripts/hosted_stack.py starts gunicorn (docs/hosting.md)."""

import os
import re
import subprocess
import sys

import pytest

from scripts.hosted_stack import GUNICORN_ENVIRONMENT
from testing.live import REPO_ROOT

HOSTING_DOCUMENTS = ("README.md", "docs/hosting.md")
EXPORT = re.compile(r"export MALLOC_ARENA_MAX=(\d+)\b")

# Threads alive at once, each allocating, as a worker's request threads do: by default
# glibc gives each its own arena.
THREADS = 8
ARENAS_OF_THREADS = f"""if True:
    import ctypes, threading
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


def documented_arenas() -> str:
    """The arenas the hosting commands give, the same in each document."""
    values = {
        document: EXPORT.findall((REPO_ROOT / document).read_text(encoding="utf-8"))
        for document in HOSTING_DOCUMENTS
    }
    assert all(len(found) == 1 for found in values.values()), values
    (value,) = {found[0] for found in values.values()}
    return value


def arenas(**environment: str) -> int:
    """The arenas of a fresh process's threads, started with `environment` (and without
    MALLOC_ARENA_MAX otherwise)."""
    env = {name: value for name, value in os.environ.items() if name != "MALLOC_ARENA_MAX"}
    result = subprocess.run(
        [sys.executable, "-c", ARENAS_OF_THREADS],
        env={**env, **environment},
        capture_output=True,
        text=True,
        check=True,
    )
    return sum(line.startswith("Arena ") for line in result.stderr.splitlines())


@pytest.mark.skipif(sys.platform != "linux", reason="glibc's malloc")
def test_the_hosting_commands_bound_the_arenas_of_a_process_threads():
    value = documented_arenas()
    assert arenas() > int(value)  # else the test proves nothing
    assert arenas(MALLOC_ARENA_MAX=value) == int(value)


def test_the_hosted_stack_starts_gunicorn_as_the_hosting_commands_do():
    assert GUNICORN_ENVIRONMENT == {"MALLOC_ARENA_MAX": documented_arenas()}
