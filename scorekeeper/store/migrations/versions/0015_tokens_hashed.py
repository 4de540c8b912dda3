"""Device and spectator tokens are kept as their hash, as join links' already were.

A copy of the database (a backup, a dump) held every device's token as it is, which is all
a cookie needs to sign in as that tablet, and every spectator link's. Each token is replaced
by its hash (store/households.py, token_hash, the one the code compares with), so every
tablet joined stays joined and every spectator link opened keeps working: the cookie and
the link still hold the token, and the server hashes it to find its row. The columns are
renamed to say what they hold.

The downgrade cannot turn a hash back into its token: it signs every device out and revokes
every spectator link (the households and their games stay).

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-03
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from scorekeeper.store.households import token_hash

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    connection = op.get_bind()
    devices = connection.execute(sa.text("SELECT id, token FROM devices")).all()
    for device_id, token in devices:
        connection.execute(
            sa.text("UPDATE devices SET token = :hashed WHERE id = :id"),
            {"hashed": token_hash(token), "id": device_id},
        )
    links = connection.execute(sa.text("SELECT token, game_id FROM spectator_links")).all()
    for token, game_id in links:
        connection.execute(
            sa.text("UPDATE spectator_links SET token = :hashed WHERE game_id = :game"),
            {"hashed": token_hash(token), "game": game_id},
        )
    with op.batch_alter_table("devices") as batch:
        batch.drop_constraint("uq_devices_token", type_="unique")
        batch.alter_column("token", new_column_name="token_hash")
    # Named after the renamed column, once it has its name (SQLite's rebuild needs it so).
    with op.batch_alter_table("devices") as batch:
        batch.create_unique_constraint("uq_devices_token_hash", ["token_hash"])
    with op.batch_alter_table("spectator_links") as batch:
        batch.alter_column("token", new_column_name="token_hash")


def downgrade() -> None:
    op.execute("DELETE FROM devices")
    op.execute("DELETE FROM spectator_links")
    with op.batch_alter_table("spectator_links") as batch:
        batch.alter_column("token_hash", new_column_name="token")
    with op.batch_alter_table("devices") as batch:
        batch.drop_constraint("uq_devices_token_hash", type_="unique")
        batch.alter_column("token_hash", new_column_name="token")
    with op.batch_alter_table("devices") as batch:
        batch.create_unique_constraint("uq_devices_token", ["token"])
