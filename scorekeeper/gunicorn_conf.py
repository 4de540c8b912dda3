"""gunicorn's configuration for a hosted server (docs/hosting.md):

    gunicorn -c python:scorekeeper.gunicorn_conf 'scorekeeper.wsgi:app'

SCOREKEEPER_WORKERS (4), SCOREKEEPER_THREADS (4), SCOREKEEPER_LIVE_STREAMS (200) and
SCOREKEEPER_BIND (127.0.0.1:8000) change it; gunicorn's own flags after it win. The workers
and threads are handed to the app through the environment (its SERVER_WORKERS, SERVER_THREADS
and LIVE_STREAMS settings): its database pool and the start-up check of PostgreSQL's
max_connections count them.
"""

import os
import signal
import threading

workers = int(os.environ.setdefault("SCOREKEEPER_WORKERS", "4"))
request_threads = int(os.environ.setdefault("SCOREKEEPER_THREADS", "4"))
# A gthread worker runs each request in one of its threads, and an open sheet's stream of
# changes holds one for as long as the sheet is open (asleep until a turn wakes it, no
# database connection held). So each worker has its request threads plus one per stream it
# accepts: 4 + 200 by default, 800 open sheets on 4 workers (about 260 households at play,
# three tablets each). The app refuses a stream beyond LIVE_STREAMS with a 503 while
# threads are still free for the turns, and that sheet polls every 5 s instead.
live_streams = int(os.environ.setdefault("SCOREKEEPER_LIVE_STREAMS", "200"))
threads = request_threads + live_streams
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


def post_worker_init(worker):
    """On SIGTERM the worker waits for its requests to end (graceful_timeout), and a stream
    would never end by itself: end them all first, then stop as gunicorn does."""
    graceful_exit = signal.getsignal(signal.SIGTERM)

    def stop(signum, frame):
        from scorekeeper.store.changes import stop_watchers

        # In a thread: the signal handler must not wait for a lock a request thread holds.
        threading.Thread(target=stop_watchers, daemon=True).start()
        graceful_exit(signum, frame)

    signal.signal(signal.SIGTERM, stop)
