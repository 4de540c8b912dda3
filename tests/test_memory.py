"""glibc's malloc arenas of the server's processes, bounded by the environment they start
in: MALLOC_ARENA_MAX, as README.md and docs/hosting.md export it for gunicorn,
scripts/hosted_stack.py starts gunicorn, and the `scorekeeper` command starts itself."""

import os
import re
import subprocess
import sys

import pytest

from scorekeeper.__main__ import MALLOC_ARENAS
from scripts.hosted_stack import GUNICORN_ENVIRONMENT
from testing.live import REPO_ROOT, LiveServer

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


def environment_of(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/environ", "rb") as environ:
        pairs = environ.read().decode(errors="replace").split("\0")
    return dict(pair.split("=", 1) for pair in pairs if "=" in pair)


@pytest.mark.skipif(sys.platform != "linux", reason="glibc's malloc")
@pytest.mark.parametrize("given", [None, "4"])
def test_serve_runs_with_the_arenas_of_the_hosting_commands_unless_told(
    tmp_path, database_url, monkeypatch, given
):
    """A family's `scorekeeper serve` has nothing to set: the process it started (the same
    one, started again) runs with the documented arenas, or with those its environment
    gave."""
    assert MALLOC_ARENAS == {"MALLOC_ARENA_MAX": documented_arenas()}
    if given is None:
        monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    else:
        monkeypatch.setenv("MALLOC_ARENA_MAX", given)
    instance = tmp_path / "instance"
    with LiveServer(instance, tmp_path / "server.log", database_url=database_url) as server:
        running = environment_of(server.process.pid)
    assert running["MALLOC_ARENA_MAX"] == (given or documented_arenas())
