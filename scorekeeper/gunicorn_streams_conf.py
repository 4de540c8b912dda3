"""gunicorn's configuration for a hosted server's open sheets (docs/hosting.md):

    gunicorn -c python:scorekeeper.gunicorn_streams_conf 'scorekeeper.wsgi:app'

The front (deploy/nginx/server.conf) sends here only the streams of changes,
`/games/<id>/events` and `/watch/<token>/events`; every other request goes to the pages' and
turns' gunicorn (gunicorn_conf.py). A stream sleeps until a turn wakes it, so this group runs
gunicorn's gevent worker: an open sheet is a socket and a greenlet, about 35 KiB, not a
thread, and one process holds thousands (docs/architecture.md says why this engine). The same
app answers, with the same LISTEN/NOTIFY hub (store/changes.py), so that servers on several
machines stay live.

SCOREKEEPER_STREAM_WORKERS (1), SCOREKEEPER_STREAMS_PER_WORKER (10,000, fewer when the
process may not open that many files) and SCOREKEEPER_STREAMS_BIND (127.0.0.1:8001) change it;
gunicorn's own flags after it win.
"""

import os
import resource

from scorekeeper import gunicorn_conf as _app

workers = int(os.environ.get("SCOREKEEPER_STREAM_WORKERS", "1"))
worker_class = "gevent"
bind = os.environ.get("SCOREKEEPER_STREAMS_BIND", "127.0.0.1:8001")

# Each open sheet is a connection from the front, and a few files are the process's own
# (its database connections, its listening socket, the modules' files).
_SPARE_FILES = 100
_soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if _hard != resource.RLIM_INFINITY and _soft < _hard:
    # The soft limit is often 1,024: a process holding idle sockets needs its hard limit.
    resource.setrlimit(resource.RLIMIT_NOFILE, (_hard, _hard))
_files = _hard if _hard != resource.RLIM_INFINITY else 1_000_000
_streams = max(
    0, min(int(os.environ.get("SCOREKEEPER_STREAMS_PER_WORKER", "10000")), _files - _SPARE_FILES)
)
# A few connections beyond the seats, so that a stream past them is answered the app's 503
# (its page then asks every 5 s) rather than left waiting for gevent to accept it.
worker_connections = _streams + 50
# A stream holds no database connection between its events: a few serve the version read
# when a stream opens and the sheet drawn when a turn is pushed.
_DATABASE_CONNECTIONS = 4

preload_app = _app.preload_app
timeout = _app.timeout
graceful_timeout = _app.graceful_timeout
keepalive = _app.keepalive
worker_tmp_dir = _app.worker_tmp_dir
control_socket_disable = _app.control_socket_disable


def on_starting(server) -> None:
    """In gunicorn's master: the counts for the app each worker builds, its pool and its
    stream seats."""
    os.environ["SCOREKEEPER_WORKERS"] = str(server.cfg.workers)
    os.environ["SCOREKEEPER_THREADS"] = str(_DATABASE_CONNECTIONS)
    os.environ["SCOREKEEPER_LIVE_STREAMS"] = str(_streams)


def post_worker_init(worker) -> None:
    """The streams ended first on SIGTERM, from a greenlet (gevent's signal handler may not
    wait). No fork server and no Conseil's tables here: this group draws no PDF and answers
    no turn."""
    import gevent

    from scorekeeper.store.changes import end_streams_on_sigterm

    end_streams_on_sigterm(gevent.spawn)
