"""`scorekeeper serve` as a family runs it: started, printed from, stopped, started twice."""

import os
import signal
import subprocess
import sys
import time
from urllib.request import urlopen

import pytest

from scorekeeper.workers import WORKER_NICENESS
from testing.live import REPO_ROOT, SERVE_CODE, LiveServer

# Long enough for the fork server to see its last worker go, on a busy machine.
GONE_WITHIN_SECONDS = 15.0
# Long enough for the fork server to import WeasyPrint at a low priority, on a busy machine.
READY_WITHIN_SECONDS = 120.0


def descendants(pid: int) -> set[int]:
    """Every process below ``pid``, children of children too, read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = open(f"/proc/{entry}/stat").read()
            except OSError:
                continue
            # The command name, in brackets, may hold spaces: the parent id follows it.
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def running(pids: set[int]) -> set[int]:
    """Those of ``pids`` still running (a zombie has ended: it only waits to be reaped)."""
    alive = set()
    for pid in pids:
        try:
            state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.add(pid)
    return alive


@pytest.mark.skipif(sys.platform != "linux", reason="reads the processes from /proc")
@pytest.mark.parametrize(
    "stop", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL], ids=["SIGTERM", "SIGINT", "killed"]
)
def test_stopping_serve_ends_every_process_it_started(tmp_path, database_url, stop):
    """A PDF printed starts the fork server and a worker (and multiprocessing's resource
    tracker): SIGTERM, Ctrl-C's SIGINT or the server killed outright, none of them is left."""
    server = LiveServer(tmp_path / "instance", tmp_path / "server.log", database_url=database_url)
    with server:
        # The first PDF starts the fork server, which imports WeasyPrint: on a busy machine
        # that takes longer than a turn's request may.
        host, port = server.base
        with urlopen(f"http://{host}:{port}/sheets/blank.pdf?paper=a4", timeout=300) as pdf:
            assert pdf.status == 200 and pdf.read(5) == b"%PDF-"
        started = descendants(server.process.pid)
        commands = [open(f"/proc/{pid}/cmdline").read() for pid in started]
        assert any("forkserver" in command for command in commands), commands
        server.process.send_signal(stop)
        server.process.wait(timeout=30)
        deadline = time.monotonic() + GONE_WITHIN_SECONDS
        while running(started) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = running(started)
        for pid in left:  # never leave them to the next tests
            os.kill(pid, signal.SIGKILL)
    assert left == set(), f"left running after {stop.name}"
    if stop != signal.SIGKILL:
        assert server.process.returncode == 0, server.log.read_text(errors="replace")[-2000:]


def test_serve_on_a_port_in_use_says_so_in_one_line(tmp_path, database_url):
    """The port is taken by another server: one line saying so and how to choose another,
    a non-zero status, and no address to open (it would be the other server's)."""
    server = LiveServer(tmp_path / "instance", tmp_path / "server.log", database_url=database_url)
    with server:
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
        env.pop("SCOREKEEPER_DATABASE_URL", None)
        if database_url:
            env["SCOREKEEPER_DATABASE_URL"] = database_url
        second = subprocess.run(
            [sys.executable, "-c", SERVE_CODE, "serve", "--host", "127.0.0.1"]
            + ["--port", str(server.port), "--instance", str(tmp_path / "instance")],
            cwd=REPO_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert second.returncode != 0
    assert "Open the score keeper" not in second.stdout
    assert "http://" not in second.stdout + second.stderr
    assert second.stderr.strip() == (
        f"Error: port {server.port} is already in use (another score keeper, or another "
        f"program): choose another with --port, for instance --port {server.port + 1}"
    )


def fork_servers(pid: int) -> set[int]:
    """The fork servers ``pid`` started (its workers, forked from one, carry its command
    line too, one level further down)."""
    found = set()
    for child in running(descendants(pid)):
        try:
            command = open(f"/proc/{child}/cmdline").read()
            parent = int(open(f"/proc/{child}/stat").read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
        if "forkserver" in command and parent == pid:
            found.add(child)
    return found


def has_imported_weasyprint(pid: int) -> bool:
    """Whether the process has WeasyPrint loaded: Pango, which only WeasyPrint loads here."""
    try:
        return "libpango" in open(f"/proc/{pid}/maps").read()
    except OSError:
        return False


@pytest.mark.skipif(sys.platform != "linux", reason="reads the processes from /proc")
def test_serve_readies_the_fork_server_before_the_first_print(tmp_path, database_url):
    """Started with the server, at the workers' priority, WeasyPrint imported: the first
    print's worker comes from that fork server, and none is started for it."""
    instance = tmp_path / "instance"
    instance.mkdir(exist_ok=True)
    (instance / "config.py").write_text("FORK_SERVER_AT_START = True\n")
    server = LiveServer(instance, tmp_path / "server.log", database_url=database_url)
    with server:
        deadline = time.monotonic() + READY_WITHIN_SECONDS
        while not any(map(has_imported_weasyprint, fork_servers(server.process.pid))):
            assert time.monotonic() < deadline, "no fork server ready without a print"
            time.sleep(0.1)
        (ready,) = fork_servers(server.process.pid)
        assert os.getpriority(os.PRIO_PROCESS, ready) == WORKER_NICENESS
        # The server itself keeps its priority, and never imports WeasyPrint.
        assert os.getpriority(os.PRIO_PROCESS, server.process.pid) == os.getpriority(
            os.PRIO_PROCESS, 0
        )
        assert not has_imported_weasyprint(server.process.pid)

        host, port = server.base
        with urlopen(f"http://{host}:{port}/sheets/blank.pdf?paper=a4", timeout=300) as pdf:
            assert pdf.status == 200 and pdf.read(5) == b"%PDF-"
        assert fork_servers(server.process.pid) == {ready}
        assert running(descendants(ready)), "the print's worker is the fork server's child"


@pytest.mark.skipif(sys.platform != "linux", reason="reads the processes from /proc")
def test_serve_starts_the_fork_server_at_the_first_print_by_default(tmp_path, database_url):
    instance = tmp_path / "instance"
    server = LiveServer(instance, tmp_path / "server.log", database_url=database_url)
    with server:
        host, port = server.base
        with urlopen(f"http://{host}:{port}/", timeout=60) as page:
            assert page.status == 200
        # None for a while after the first page: a start in the background would have come
        # by then (the test above sees one within READY_WITHIN_SECONDS on a quiet machine).
        deadline = time.monotonic() + 1
        while time.monotonic() < deadline:
            assert fork_servers(server.process.pid) == set()
            time.sleep(0.1)
        with urlopen(f"http://{host}:{port}/sheets/blank.pdf?paper=a4", timeout=300) as pdf:
            assert pdf.status == 200
        assert len(fork_servers(server.process.pid)) == 1


def builds_of(pid: int) -> set[int]:
    """The Conseil's build processes below ``pid`` (started by multiprocessing's spawn)."""
    found = set()
    for child in running(descendants(pid)):
        try:
            command = open(f"/proc/{child}/cmdline").read()
        except OSError:
            continue
        if "spawn_main" in command:
            found.add(child)
    return found


def niced(pid: int) -> bool:
    try:
        return os.getpriority(os.PRIO_PROCESS, pid) == WORKER_NICENESS
    except ProcessLookupError:
        return False


@pytest.mark.skipif(sys.platform != "linux", reason="reads the processes from /proc")
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "killed"])
def test_the_tables_built_ahead_end_with_the_server(tmp_path, database_url, stop):
    """After its start, the server builds classique's table ahead, at the workers' priority,
    and queues a new game's (Triple, not built ahead); stopped or killed, it leaves none of
    those builds running. Stopped within a second of the build: it never needs to finish."""
    from testing.live import Client, Sheet
    from testing.samples import new_game_form

    server = LiveServer(
        tmp_path / "instance", tmp_path / "server.log", database_url=database_url, tables_ahead=True
    )
    with server:
        tablet = Client(server.base)
        token = Sheet.read(tablet.get("/games/new").text).csrf_token
        form = {**new_game_form(["Mag", "Alix"], preset="triple"), "csrf_token": token}
        assert tablet.post("/games/new", form).status == 303
        # A build lowers its priority first thing, once its process has started.
        deadline = time.monotonic() + READY_WITHIN_SECONDS
        while not any(niced(pid) for pid in builds_of(server.process.pid)):
            assert time.monotonic() < deadline, "no build at a low priority after the start"
            time.sleep(0.05)
        started = descendants(server.process.pid)
        server.process.send_signal(stop)
        server.process.wait(timeout=30)
        deadline = time.monotonic() + GONE_WITHIN_SECONDS
        while running(started) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = running(started)
        for pid in left:  # never leave them to the next tests
            os.kill(pid, signal.SIGKILL)
    assert left == set(), f"left running after {stop.name}"
