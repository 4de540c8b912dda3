"""scorekeeper/gunicorn_conf.py and gunicorn_streams_conf.py, as gunicorn reads them from
the hosting commands of the README and docs/hosting.md: what they set, what they hand to the
app, and a real gunicorn that starts with the first and, on SIGTERM, finishes the turn under
way and ends every process it started.
"""

from __future__ import annotations

import os
import resource
import shlex
import signal
import subprocess
import sys
import threading
import time
from types import ModuleType, SimpleNamespace

import psycopg
import pytest
from gunicorn.app.wsgiapp import WSGIApplication

from scorekeeper import config
from testing.live import REPO_ROOT, Client
from tests.robustness.checks import create_games, stored_entries
from tests.robustness.faults import descendants, gunicorn_server, running
from tests.support.databases import ON_POSTGRESQL

HOSTING_DOCUMENTS = ("README.md", "docs/hosting.md")
APP_CONFIG = "python:scorekeeper.gunicorn_conf"
STREAMS_CONFIG = "python:scorekeeper.gunicorn_streams_conf"
HANDED_OVER = ("SCOREKEEPER_WORKERS", "SCOREKEEPER_THREADS", "SCOREKEEPER_LIVE_STREAMS")
READ = (
    "SCOREKEEPER_BIND",
    "SCOREKEEPER_STREAM_WORKERS",
    "SCOREKEEPER_STREAMS_PER_WORKER",
    "SCOREKEEPER_STREAMS_BIND",
)


def hosting_commands() -> dict[str, list[str]]:
    """The gunicorn command lines the README gives, the same in docs/hosting.md, by the
    configuration each reads: the pages' and turns', and the open sheets'."""
    commands = {
        tuple(shlex.split(line, comments=True))
        for document in HOSTING_DOCUMENTS
        for line in (REPO_ROOT / document).read_text(encoding="utf-8").splitlines()
        if line.startswith("gunicorn -")
    }
    assert len(commands) == 2, commands
    return {command[2]: list(command) for command in commands}


def gunicorn_settings(monkeypatch, *flags: str, config: str = APP_CONFIG, **environment: str):
    """gunicorn's settings for the hosting command of `config`, `flags` added after it, in
    an environment holding `environment` and none of the server's other variables."""
    for name in (*HANDED_OVER, *READ):
        monkeypatch.delenv(name, raising=False)
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    # gunicorn imports the module by its name: read afresh for this environment.
    for module in ("scorekeeper.gunicorn_conf", "scorekeeper.gunicorn_streams_conf"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    monkeypatch.setattr(sys, "argv", [*hosting_commands()[config], *flags])
    return WSGIApplication().cfg


def test_the_hosting_commands_read_the_pages_and_the_streams_configurations():
    commands = hosting_commands()
    assert set(commands) == {APP_CONFIG, STREAMS_CONFIG}
    for module, command in commands.items():
        assert command == ["gunicorn", "-c", module, "scorekeeper.wsgi:app"]


@pytest.mark.parametrize("module_name", [APP_CONFIG, STREAMS_CONFIG])
def test_every_name_a_configuration_sets_is_a_gunicorn_setting(monkeypatch, module_name):
    # gunicorn skips a name it does not know without a word: a misspelt setting is lost.
    cfg = gunicorn_settings(monkeypatch, config=module_name)
    module = sys.modules[module_name.removeprefix("python:")]
    names = {
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
    }
    if "control_socket" not in cfg.settings:
        # gunicorn before 25.1 has no control socket to disable.
        names.discard("control_socket_disable")
    assert names <= set(cfg.settings), names - set(cfg.settings)


def _check_the_lifecycle(cfg) -> None:
    # A stuck worker is replaced; on SIGTERM the requests under way get 30 s to finish.
    assert (cfg.timeout, cfg.graceful_timeout, cfg.keepalive) == (30, 30, 5)
    # Each worker builds its app, and so its database pool and worker processes, after the
    # fork, and boots while the database is away.
    assert cfg.preload_app is False
    if os.path.isdir("/dev/shm"):
        assert cfg.worker_tmp_dir == "/dev/shm"
    if "control_socket" in cfg.settings:
        assert cfg.control_socket_disable is True


def _handed_to_the_app(cfg, instance, monkeypatch) -> tuple[int, int, int]:
    """The workers, request threads and stream seats the app counts, once gunicorn's
    master has run the configuration's hook (before it starts any worker)."""
    # The hook writes the counts into the process's environment: here the test's own copy of
    # it, or every app the test process makes afterwards (a server it starts too) would
    # count them, 0 stream seats among them.
    monkeypatch.setattr(os, "environ", dict(os.environ))
    cfg.on_starting(SimpleNamespace(cfg=cfg))
    settings = config.defaults(instance)
    return settings["SERVER_WORKERS"], settings["SERVER_THREADS"], settings["LIVE_STREAMS"]


def test_what_gunicorn_conf_sets(monkeypatch):
    cfg = gunicorn_settings(monkeypatch)
    # Each worker's threads serve requests: the streams go to the stream group.
    assert (cfg.workers, cfg.threads, cfg.worker_class_str) == (4, 4, "gthread")
    assert cfg.bind == ["127.0.0.1:8000"]
    _check_the_lifecycle(cfg)


def test_what_the_streams_configuration_sets(monkeypatch, tmp_path):
    cfg = gunicorn_settings(monkeypatch, config=STREAMS_CONFIG)
    assert (cfg.workers, cfg.worker_class_str) == (1, "gevent")
    assert cfg.bind == ["127.0.0.1:8001"]
    _check_the_lifecycle(cfg)
    # 10,000 stream seats where the process may open that many files (the module raised
    # its soft limit to the hard one), and a few connections more, for the 503 past them.
    files = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    seats = min(10_000, (1_000_000 if files == resource.RLIM_INFINITY else files) - 100)
    assert cfg.worker_connections == seats + 50
    assert _handed_to_the_app(cfg, tmp_path, monkeypatch) == (1, 4, seats)


def test_workers_threads_and_addresses_come_from_the_environment(monkeypatch):
    cfg = gunicorn_settings(
        monkeypatch,
        SCOREKEEPER_WORKERS="3",
        SCOREKEEPER_THREADS="6",
        SCOREKEEPER_BIND="127.0.0.2:9000",
    )
    assert (cfg.workers, cfg.threads, cfg.bind) == (3, 6, ["127.0.0.2:9000"])
    cfg = gunicorn_settings(
        monkeypatch,
        config=STREAMS_CONFIG,
        SCOREKEEPER_STREAM_WORKERS="2",
        SCOREKEEPER_STREAMS_PER_WORKER="500",
        SCOREKEEPER_STREAMS_BIND="127.0.0.2:9001",
    )
    assert (cfg.workers, cfg.worker_connections, cfg.bind) == (2, 550, ["127.0.0.2:9001"])


@pytest.mark.parametrize(
    ("flags", "environment", "threads", "expected"),
    [
        ((), {}, 4, (4, 4, 0)),
        ((), {"SCOREKEEPER_WORKERS": "3", "SCOREKEEPER_THREADS": "6"}, 6, (3, 6, 0)),
        # Without the stream group, stream seats in threads besides the request threads.
        ((), {"SCOREKEEPER_LIVE_STREAMS": "200"}, 4 + 200, (4, 4, 200)),
        # A flag after -c wins, for gunicorn and for the app alike: with no room left for the
        # stream seats, every thread serves requests and the sheets ask every 5 s.
        (
            ("--workers", "2", "--threads", "8"),
            {"SCOREKEEPER_THREADS": "6", "SCOREKEEPER_LIVE_STREAMS": "200"},
            8,
            (2, 8, 0),
        ),
    ],
)
def test_the_app_counts_the_workers_and_threads_gunicorn_runs(
    monkeypatch, tmp_path, flags, environment, threads, expected
):
    cfg = gunicorn_settings(monkeypatch, *flags, **environment)
    assert (cfg.workers, cfg.threads) == (expected[0], threads)
    assert _handed_to_the_app(cfg, tmp_path, monkeypatch) == expected


@pytest.mark.skipif(not ON_POSTGRESQL, reason="the hosting command runs on PostgreSQL")
def test_gunicorn_finishes_the_turn_under_way_on_sigterm_and_ends_every_process(
    tmp_path, database_url
):
    instance = tmp_path / "instance"
    (game,) = create_games(instance, 1, database_url)
    # The turn under way waits for a lock long enough for the shutdown to begin meanwhile.
    (instance / "config.py").write_text("DATABASE_LOCK_TIMEOUT_SECONDS = 30.0\n")
    home = tmp_path / "home"
    home.mkdir()
    server = gunicorn_server(
        instance, tmp_path / "server.log", database_url, HOME=str(home), XDG_RUNTIME_DIR=None
    )
    libpq_url = database_url.replace("postgresql+psycopg://", "postgresql://")
    with server, psycopg.connect(libpq_url) as holder:
        tablet = Client(server.base)
        assert tablet.get("/").status == 200
        # A print starts the workers' processes for PDFs, which must end with the server.
        assert tablet.get("/sheets/blank.pdf?paper=a4").status == 200
        page, sheet = tablet.sheet(game)
        processes = descendants(server.process.pid)
        assert len(processes) > 2, processes  # 2 workers, and the PDFs' processes

        holder.execute("SELECT id FROM games WHERE id = %s FOR UPDATE", (game,))
        answer = {}
        turn = threading.Thread(
            target=lambda: answer.update(page=tablet.submit(game, sheet, "12346", "free:chance"))
        )
        turn.start()
        with psycopg.connect(libpq_url, autocommit=True) as watcher:
            deadline = time.monotonic() + 20
            while not watcher.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
            ).fetchone()[0]:
                assert time.monotonic() < deadline, "the turn never reached the lock"
                time.sleep(0.05)
        server.process.send_signal(signal.SIGTERM)
        # gunicorn must not end while the turn is under way: a second of it, still running.
        with pytest.raises(subprocess.TimeoutExpired):
            server.process.wait(timeout=1)
        holder.rollback()
        turn.join(timeout=30)
        assert answer["page"].status == 303
        assert server.process.wait(timeout=40) == 0
        deadline = time.monotonic() + 10
        while any(map(running, processes)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in processes if running(pid)]
    assert stored_entries(database_url)[(game, 0)] == ("free:chance", "12346")
    # No control socket, nor any other file, in the home folder.
    assert list(home.iterdir()) == []
