"""gunicorn's configuration for a hosted server's pages and turns (docs/hosting.md):

    gunicorn -c python:scorekeeper.gunicorn_conf 'scorekeeper.wsgi:app'

with MALLOC_ARENA_MAX=2 in its environment: glibc reads it when gunicorn starts, and its
workers keep it (their threads share two malloc arenas).

The open sheets' streams are not served here: the front sends them to the stream group,
gunicorn_streams_conf.py, where an idle stream costs a socket and not a thread.

SCOREKEEPER_WORKERS (4), SCOREKEEPER_THREADS (4) and SCOREKEEPER_BIND (127.0.0.1:8000) change
it; gunicorn's own flags after it win. The workers and threads gunicorn runs, flags included,
are handed to the app through the environment (its SERVER_WORKERS, SERVER_THREADS and
LIVE_STREAMS settings): its database pool and the start-up check of PostgreSQL's
max_connections count them.
"""

import os
import threading

workers = int(os.environ.get("SCOREKEEPER_WORKERS", "4"))
_request_threads = int(os.environ.get("SCOREKEEPER_THREADS", "4"))
# A gthread worker runs each request in one of its threads, and a stream of changes would
# hold one for as long as its sheet is open: this group holds none (LIVE_STREAMS 0: a stream
# that reaches it anyway gets a 503, and its sheet asks every 5 s). A server run without the
# stream group may give each worker SCOREKEEPER_LIVE_STREAMS stream seats, a thread each,
# besides its request threads (200 each was the default before the stream group).
_live_streams = int(os.environ.get("SCOREKEEPER_LIVE_STREAMS", "0"))
threads = _request_threads + _live_streams
# Each stream is a connection of its own, besides the tablets' kept-alive ones.
worker_connections = max(1000, 2 * threads)
# Threads: a request waiting on the database or a PDF leaves the others their turn.
worker_class = "gthread"
bind = os.environ.get("SCOREKEEPER_BIND", "127.0.0.1:8000")

# No preload: each worker builds its app after the fork, so that its database pool and the
# worker processes of its fair queues are its own, and a worker that starts while the
# database is away answers 503s rather than fail to boot.
preload_app = False
# A gthread worker's heartbeat comes from its main loop, which long requests do not block:
# this only kills a worker that is stuck. Requests are bounded by the database's timeouts
# (DATABASE_STATEMENT_TIMEOUT_SECONDS) and PDFs by PDF_TIMEOUT_SECONDS.
timeout = 30
# On SIGTERM (a deploy, a restart), a worker finishes the turns under way before it exits.
graceful_timeout = 30
keepalive = 5
# The heartbeat files on a memory file system: a full or slow disk must not get healthy
# workers killed.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
# gunicorn's control socket would sit in the home folder, which other programs of the
# account share, and lets whoever reaches it add or stop workers: the server needs none.
control_socket_disable = True


def on_starting(server) -> None:
    """In gunicorn's master, before any worker: the counts it settled on, a `--threads` or
    `--workers` flag included, for the apps its workers build. gunicorn's threads are the
    request threads and the stream seats together; a `--threads` flag that leaves no room
    for LIVE_STREAMS seats gives them all to requests (the sheets then ask every 5 s). A
    pool smaller than the request threads would turn a busy moment into 503s; the streams
    hold no connection."""
    streams = _live_streams if server.cfg.threads > _live_streams else 0
    os.environ["SCOREKEEPER_WORKERS"] = str(server.cfg.workers)
    os.environ["SCOREKEEPER_THREADS"] = str(server.cfg.threads - streams)
    os.environ["SCOREKEEPER_LIVE_STREAMS"] = str(streams)


def _in_a_thread(function) -> None:
    threading.Thread(target=function, daemon=True).start()


def post_worker_init(worker):
    """The streams ended first on SIGTERM; the fork server and the Conseil's tables made
    ready for the first requests; the coach's figures of past games counted."""
    from scorekeeper.store.changes import end_streams_on_sigterm

    end_streams_on_sigterm(_in_a_thread)
    # Each worker's fork server, for the first print or sign-in after a (re)start.
    if worker.wsgi.config["FORK_SERVER_AT_START"]:
        from scorekeeper.workers import start_fork_server

        start_fork_server()
    # The Conseil's tables of classique and Yatzy, if missing: one worker builds them; and
    # the coach's figures of the games finished without them, one worker counts them.
    from scorekeeper.web.conseil import build_ahead_at_start, coach_at_start

    build_ahead_at_start(worker.wsgi)
    coach_at_start(worker.wsgi)


def worker_exit(server, worker) -> None:
    """In the worker, once its requests are done: the jobs still under way in its worker
    processes (a Conseil's build, minutes) are for nobody now; ended, so that the worker
    exits at once rather than wait for them."""
    from scorekeeper.workers import stop_workers

    stop_workers()
