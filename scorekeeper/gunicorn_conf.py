"""gunicorn's configuration for a hosted server (docs/hosting.md):

    gunicorn -c python:scorekeeper.gunicorn_conf 'scorekeeper.wsgi:app'

SCOREKEEPER_WORKERS (4), SCOREKEEPER_THREADS (4) and SCOREKEEPER_BIND (127.0.0.1:8000)
change it; gunicorn's own flags after it win. The workers and threads gunicorn runs, flags
included, are handed to the app through the environment (its SERVER_WORKERS and
SERVER_THREADS settings): its database pool and the start-up check of PostgreSQL's
max_connections count them.
"""

import os

workers = int(os.environ.get("SCOREKEEPER_WORKERS", "4"))
threads = int(os.environ.get("SCOREKEEPER_THREADS", "4"))
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
    `--workers` flag included, for the apps its workers build. A pool smaller than the
    threads would turn a busy moment into 503s."""
    os.environ["SCOREKEEPER_WORKERS"] = str(server.cfg.workers)
    os.environ["SCOREKEEPER_THREADS"] = str(server.cfg.threads)
