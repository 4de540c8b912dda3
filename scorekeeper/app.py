"""The Flask application factory: instance folder, secret key, database, extensions, blueprints."""

from __future__ import annotations

import contextlib
import os
import secrets
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from flask import Flask, current_app, request
from flask_babel import Babel
from flask_wtf.csrf import CSRFProtect
from jinja2 import FileSystemBytecodeCache
from sqlalchemy.exc import SQLAlchemyError
from werkzeug.middleware.proxy_fix import ProxyFix

from scorekeeper import config as config_module
from scorekeeper.config import DATABASE_FILE, PACKAGE_DIR
from scorekeeper.store import Store
from scorekeeper.store.availability import unavailable
from scorekeeper.store.changes import listen_to
from scorekeeper.store.engine import connection_room, engine_url, server_session_settings
from scorekeeper.web import edge, register_blueprints
from scorekeeper.web.language import select_locale
from scorekeeper.web.quotas import quotas_of
from scorekeeper.web.store import CHANGES_EXTENSION, QUOTAS_EXTENSION, STORE_EXTENSION

SECRET_KEY_FILE = "secret_key"
CONFIG_FILE = "config.py"
DATABASE_URL_ENV = "SCOREKEEPER_DATABASE_URL"
SECRET_KEY_ENV = "SCOREKEEPER_SECRET_KEY"
# The instance's files only its owner may read: the games, the key that signs sessions,
# and config.py, which holds the household PIN. SQLite gives its -wal and -shm files the
# database's own permissions.
PRIVATE_FILES = (
    DATABASE_FILE,
    f"{DATABASE_FILE}-wal",
    f"{DATABASE_FILE}-shm",
    CONFIG_FILE,
    SECRET_KEY_FILE,
)

babel = Babel()
csrf = CSRFProtect()


class _BestEffortBytecodeCache(FileSystemBytecodeCache):
    """The compiled templates kept when the disk lets them be: on a full disk (or a folder
    gone), the page is served from the template compiled from its source, never a 500."""

    def load_bytecode(self, bucket) -> None:
        with contextlib.suppress(OSError):
            super().load_bytecode(bucket)

    def dump_bytecode(self, bucket) -> None:
        with contextlib.suppress(OSError):
            super().dump_bytecode(bucket)


def _resource_dir(name: str) -> Path:
    """The packaged copy in an installed wheel, else the top-level folder of the checkout."""
    packaged = PACKAGE_DIR / name
    return packaged if packaged.is_dir() else PACKAGE_DIR.parent / name


def default_instance_path() -> Path:
    """Where the games live when no folder is given.

    A checkout keeps them in its `instance/` folder. An installed copy keeps them in the
    user's data folder (platformdirs), which outlives the virtualenv: Flask's own default,
    `$PREFIX/var/scorekeeper-instance`, sat inside it, and deleting the venv to reinstall
    lost every game. A database already in that old folder is still used from there.
    """
    checkout = PACKAGE_DIR.parent
    if (checkout / "pyproject.toml").is_file():
        return checkout / "instance"
    import platformdirs  # here: a server given its instance folder never needs it

    user_data = Path(platformdirs.user_data_dir("scorekeeper", appauthor=False))
    inside_venv = Path(sys.prefix) / "var" / "scorekeeper-instance"
    if not user_data.exists() and (inside_venv / DATABASE_FILE).exists():
        return inside_venv
    return user_data


@contextlib.contextmanager
def _private_files() -> Iterator[None]:
    """Whatever is created meanwhile is its owner's only: folders 0700, files 0600.

    The umask belongs to the whole process: this runs while the app is built, before any
    request thread exists.
    """
    previous = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(previous)


def _make_private(instance: Path) -> None:
    """Close the instance folder and its private files made before they were created so."""
    with contextlib.suppress(PermissionError):
        instance.chmod(0o700)
        for name in PRIVATE_FILES:
            with contextlib.suppress(FileNotFoundError):
                (instance / name).chmod(0o600)


def _load_secret_key(instance: Path) -> str:
    """Read the instance's secret key, creating it on the first start."""
    path = instance / SECRET_KEY_FILE
    if not path.exists():
        # Written aside then linked into place: two processes starting at once agree on one
        # key, and none ever reads a half-written file.
        fd, draft = tempfile.mkstemp(dir=instance, prefix=f".{SECRET_KEY_FILE}-")
        try:
            with os.fdopen(fd, "w", encoding="ascii") as file:
                file.write(secrets.token_hex(32))
            with contextlib.suppress(FileExistsError):
                os.link(draft, path)
        finally:
            os.unlink(draft)
    key = path.read_text(encoding="ascii").strip()
    if not key:
        raise RuntimeError(f"the secret key file {path} is empty; delete it to make a new one")
    return key


def create_app(
    config: Mapping[str, Any] | None = None, instance_path: str | os.PathLike | None = None
) -> Flask:
    """Build the app.

    The instance folder comes from `instance_path`, else `config["INSTANCE_PATH"]`, else
    `default_instance_path()`. Settings apply in this order, the last one winning: the defaults
    of scorekeeper/config.py, the instance's config.py, the SCOREKEEPER_DATABASE_URL and
    SCOREKEEPER_SECRET_KEY environment variables, `config`. Raises DatabaseSetupError when
    the database URL cannot be used, SettingError for another setting that cannot be.
    """
    config = dict(config or {})
    instance_path = instance_path or config.pop("INSTANCE_PATH", None) or default_instance_path()
    app = Flask(
        "scorekeeper",
        instance_path=str(Path(instance_path).resolve()),
        instance_relative_config=True,
        template_folder=str(_resource_dir("templates")),
        static_folder=str(_resource_dir("static")),
    )
    instance = Path(app.instance_path)
    with _private_files():
        instance.mkdir(parents=True, exist_ok=True)
    _make_private(instance)

    app.config.from_mapping(config_module.defaults(instance))
    app.config.from_pyfile(CONFIG_FILE, silent=True)
    if os.environ.get(DATABASE_URL_ENV):
        app.config["DATABASE_URL"] = os.environ[DATABASE_URL_ENV]
    if os.environ.get(SECRET_KEY_ENV):
        # Several processes, maybe on several machines, must sign with one key.
        app.config["SECRET_KEY"] = os.environ[SECRET_KEY_ENV]
    app.config.update(config)
    config_module.check_time_zone(app.config["BABEL_DEFAULT_TIMEZONE"])
    # Compiling the templates a page needs takes longer than serving it: each start after
    # the first reads them compiled (Jinja writes each file aside, then renames it, so that
    # several processes may share the folder). A cache: a folder that cannot be made costs
    # the compiling only.
    templates_compiled = Path(app.config["TEMPLATE_CACHE_FOLDER"])
    with _private_files(), contextlib.suppress(OSError):
        templates_compiled.mkdir(parents=True, exist_ok=True)
    app.jinja_options = {
        **app.jinja_options,
        "bytecode_cache": _BestEffortBytecodeCache(str(templates_compiled)),
    }
    served_host = config_module.external_host(app.config)
    if config_module.served_over_https(app.config):
        # Devices open the server over HTTPS: its cookies (the session, which holds the CSRF
        # token, and the device's remember-me) must never travel in clear.
        app.config["SESSION_COOKIE_SECURE"] = True
        app.config["REMEMBER_COOKIE_SECURE"] = True
    if app.config["HOUSEHOLDS"] and app.config["TRUSTED_HOSTS"] is None:
        # Hosted, the server answers for the address its links name, and no other.
        app.config["TRUSTED_HOSTS"] = [served_host]
    with _private_files():
        if not app.config.get("SECRET_KEY"):
            app.config["SECRET_KEY"] = _load_secret_key(instance)
        store = _open_store(app.config)
        try:
            store.migrate()
            _check_connection_room(app, store)
        except SQLAlchemyError as error:
            # A process that starts while the database is away (restarting, full) serves
            # 503s, and migrates at the first request that finds it back: a worker respawned
            # during an outage must not take the whole server down.
            why = unavailable(error)
            if why is None:
                raise
            app.logger.warning("database %s at start: serving 503s until it is back", why.value)
    # The open sheets of this process hear what the store's writes change.
    changes = listen_to(store, app.config["LIVE_STREAMS"])
    app.extensions[STORE_EXTENSION] = store
    app.extensions[CHANGES_EXTENSION] = changes
    app.extensions[QUOTAS_EXTENSION] = quotas_of(app.config)

    proxies = int(app.config["TRUSTED_PROXIES"])
    if proxies:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies)

    babel.init_app(app, locale_selector=select_locale)
    # First of the checks before each request, so that nothing reads a request's text
    # before it is checked.
    edge.register(app)
    csrf.init_app(app)

    app.before_request(_database_ready)
    register_blueprints(app)
    return app


def _open_store(config: Mapping[str, Any]) -> Store:
    """The server's store. On PostgreSQL a request waits for a lock or runs a statement only
    so long, and idle connections go back to the server."""
    url = config["DATABASE_URL"]
    if engine_url(url).get_backend_name() != "postgresql":
        return Store(url, **config["DATABASE_ENGINE_OPTIONS"])
    session = server_session_settings(
        lock_timeout_s=config["DATABASE_LOCK_TIMEOUT_SECONDS"],
        statement_timeout_s=config["DATABASE_STATEMENT_TIMEOUT_SECONDS"],
        idle_s=config["DATABASE_IDLE_SECONDS"],
    )
    return Store(url, session_settings=session, **_pool_options(config))


def _pool_options(config: Mapping[str, Any]) -> dict[str, Any]:
    """A PostgreSQL server's pool: one connection a request thread and no more, a request
    waiting for one only as long as for a lock; DATABASE_ENGINE_OPTIONS may say otherwise."""
    return {
        "pool_size": config["SERVER_THREADS"],
        "max_overflow": 0,
        "pool_timeout": config["DATABASE_LOCK_TIMEOUT_SECONDS"],
        **config["DATABASE_ENGINE_OPTIONS"],
    }


# Connections left for an operator's psql, pg_dump and migrate beside the servers'.
SPARE_CONNECTIONS = 3


def _check_connection_room(app: Flask, store: Store) -> None:
    """Said at start when the servers may open more connections than PostgreSQL admits: the
    last ones to ask (an operator's pg_dump, a worker under load) would be refused."""
    room = connection_room(store.engine)
    if room is None:
        return
    options = _pool_options(app.config)
    pool = options["pool_size"] + max(options["max_overflow"], 0)
    workers, imports = app.config["SERVER_WORKERS"], app.config["IMPORT_WORKERS"]
    # Each process: its pool, a connection for each import worker beside it, and the one
    # that listens for the games changed (store/changes.py).
    per_process = pool + imports + 1
    if workers * per_process > room - SPARE_CONNECTIONS:
        app.logger.warning(
            "PostgreSQL admits %d connections; %d server processes x %d (pool %d + import "
            "workers %d + 1 listening) = %d leave fewer than %d for psql, pg_dump and "
            "migrate: raise max_connections or lower the workers or SERVER_THREADS "
            "(docs/hosting.md)",
            room,
            workers,
            per_process,
            pool,
            imports,
            workers * per_process,
            SPARE_CONNECTIONS,
        )


def _database_ready() -> None:
    """Before any request reads the database: its schema is at the newest migration. Raises
    the database's error while it is away, which the error pages make a 503."""
    if request.endpoint != "static":
        current_app.extensions[STORE_EXTENSION].migrate_once()
