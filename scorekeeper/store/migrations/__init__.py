"""Alembic migrations, run from code so that no alembic.ini is needed anywhere."""

import re
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Connection, Engine, func, insert, inspect, select, text

from scorekeeper.store.records import HOME_NAME
from scorekeeper.store.results import backfill_results
from scorekeeper.store.schema import households

MIGRATIONS_DIR = Path(__file__).resolve().parent
VERSIONS_DIR = MIGRATIONS_DIR / "versions"
_REVISION = re.compile(r'^revision\b[^=]*=\s*["\']([^"\']+)["\']', re.MULTILINE)
_DOWN_REVISION = re.compile(r'^down_revision\b[^=]*=\s*["\']([^"\']+)["\']', re.MULTILINE)
# The key of the advisory lock that one process at a time holds to migrate PostgreSQL.
MIGRATION_LOCK = 0x5C0BE4EE


def alembic_config():
    """An Alembic Config whose scripts are the ones shipped inside the package.

    Callers put an open SQLAlchemy connection in ``cfg.attributes["connection"]``;
    env.py runs the migrations on it.
    """
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    return cfg


def head_revision() -> str:
    """The newest migration, read from the scripts' text: a start on an up-to-date database
    then needs no Alembic at all (a quarter of a second of imports). Each script names its
    revision and the one it follows; the head is the one no script follows."""
    revisions, followed = set(), set()
    for script in VERSIONS_DIR.glob("*.py"):
        text = script.read_text(encoding="utf-8")
        revisions.update(_REVISION.findall(text))
        followed.update(_DOWN_REVISION.findall(text))
    heads = revisions - followed
    if len(heads) != 1:
        raise RuntimeError(f"the migrations have {len(heads)} heads: {sorted(heads)}")
    return heads.pop()


def upgrade(engine: Engine) -> None:
    """Bring the schema to the newest migration; a no-op when it is already there.

    On PostgreSQL any number of processes may start at once: one migrates under an
    advisory lock, the others wait for its commit and find nothing left to do. Every
    database then has a household, the home one, from the first start.
    """
    with engine.begin() as connection:
        if _schema_revision(connection) == head_revision():
            # Every start but the first: Alembic is not even imported.
            _ensure_home_household(connection)
            backfill_results(connection)
            return
    from alembic import command

    cfg = alembic_config()
    with engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if sqlite:
            # SQLite changes a table by rebuilding it: with foreign keys on, dropping the
            # old games table would delete every entry (ON DELETE CASCADE). The pragma
            # only works outside a transaction, hence on the driver's connection.
            connection.connection.driver_connection.execute("PRAGMA foreign_keys = OFF")
        try:
            with connection.begin():
                if connection.dialect.name == "postgresql":
                    # A migration takes the time it needs, whatever bounds the requests.
                    connection.exec_driver_sql("SET LOCAL lock_timeout = 0")
                    connection.exec_driver_sql("SET LOCAL statement_timeout = 0")
                    connection.execute(
                        text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK}
                    )
                cfg.attributes["connection"] = connection
                command.upgrade(cfg, "head")
                if sqlite and connection.exec_driver_sql("PRAGMA foreign_key_check").first():
                    raise RuntimeError(
                        "a migration left rows pointing nowhere; nothing was changed"
                    )
                _ensure_home_household(connection)
                backfill_results(connection)
        finally:
            if sqlite:
                connection.connection.driver_connection.execute("PRAGMA foreign_keys = ON")


def _schema_revision(connection: Connection) -> str | None:
    """The migration the database is at, None for a new database."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    return connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()


def _ensure_home_household(connection: Connection) -> None:
    """Every database has a household from the first start: the home one."""
    if connection.scalar(select(func.count()).select_from(households)) == 0:
        connection.execute(insert(households).values(name=HOME_NAME, created_at=datetime.now(UTC)))
