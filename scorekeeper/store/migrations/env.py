"""Alembic environment: migrates the connection that the store hands over."""

import contextlib

from alembic import context

from scorekeeper.store.schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError(
        "scorekeeper migrations run through Store.migrate(), "
        'which passes the connection in cfg.attributes["connection"]'
    )

context.configure(
    connection=connection,
    target_metadata=metadata,
    # SQLite cannot ALTER most things in place; batch mode rebuilds the table instead.
    render_as_batch=connection.dialect.name == "sqlite",
)



@contextlib.contextmanager
def _sqlite_foreign_keys_off():
    """SQLite's way to rebuild a table that others point to: foreign keys off meanwhile,
    which SQLite allows only between transactions, and checked before they are back on.
    Without it, dropping the old copy of a table would delete or refuse the rows that point
    to it. The caller's transaction goes on around the migrations."""
    sqlite = connection.connection.driver_connection
    sqlite.execute("COMMIT")
    sqlite.execute("PRAGMA foreign_keys = OFF")
    sqlite.execute("BEGIN")
    try:
        yield
        broken = sqlite.execute("PRAGMA foreign_key_check").fetchone()
        if broken is not None:
            raise RuntimeError(f"a migration left rows of {broken[0]} pointing to nothing")
        sqlite.execute("COMMIT")
    except BaseException:
        sqlite.execute("ROLLBACK")
        raise
    finally:
        sqlite.execute("PRAGMA foreign_keys = ON")
        sqlite.execute("BEGIN")


on_sqlite = connection.dialect.name == "sqlite" and connection.in_transaction()
with _sqlite_foreign_keys_off() if on_sqlite else contextlib.nullcontext():
    with context.begin_transaction():
        context.run_migrations()
