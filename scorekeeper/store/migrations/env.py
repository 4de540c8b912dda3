"""Alembic environment: migrates the connection that the store hands over."""

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

with context.begin_transaction():
    context.run_migrations()
