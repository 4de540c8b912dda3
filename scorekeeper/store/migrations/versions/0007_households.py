"""Households: each family's games, players, records, counters and PIN failures are its own.

Every existing row goes to household 1, the one household of an installation at home, made
here. A rule set's counters and records become per household: its key stays the hash of the
rules, the same in every household, and ``rule_sets`` is keyed by (household, key). The
devices, join links, spectator links and wrong passphrases of hosted mode get their tables.

On SQLite the altered tables are rebuilt (batch mode), with foreign keys off meanwhile
(Store.migrate). ``games`` is never rebuilt all the same: SQLite adds its column in
place, which it allows with a default and without a foreign key; the store deletes a
household's games with it.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30
"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

HOME = 1
RECORDS = {"total": "total", "upper": "upper", "yams": "yams_count", "streak": "bonus_streak"}
OWNED = ("games", "players", "rule_sets", "results", "pin_failures")


def _household_column(table: str) -> None:
    """A household_id holding HOME in every existing row, then with no default."""
    if table == "games":
        op.add_column(
            table, sa.Column("household_id", sa.Integer(), nullable=False, server_default=str(HOME))
        )
        if op.get_bind().dialect.name != "sqlite":
            op.alter_column(table, "household_id", server_default=None)
        return
    with op.batch_alter_table(table) as batch:
        batch.add_column(
            sa.Column("household_id", sa.Integer(), nullable=False, server_default=str(HOME))
        )
    with op.batch_alter_table(table) as batch:
        batch.alter_column("household_id", server_default=None)


def upgrade() -> None:
    op.create_table(
        "households",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(60), nullable=False),
        sa.Column("name_key", sa.String(180), nullable=True),
        sa.Column("passphrase_hash", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_households"),
        sa.UniqueConstraint("name_key", name="uq_households_name_key"),
    )
    households = sa.table(
        "households",
        sa.column("id"),
        sa.column("name"),
        sa.column("created_at", sa.DateTime(timezone=True)),
    )
    op.bulk_insert(households, [{"id": HOME, "name": "Maison", "created_at": datetime.now(UTC)}])
    if op.get_bind().dialect.name == "postgresql":
        # The row was given its id: the sequence must start after it.
        op.execute(
            "SELECT setval(pg_get_serial_sequence('households', 'id'), "
            "(SELECT max(id) FROM households))"
        )

    # Foreign keys to rule_sets.key go before its primary key changes.
    for table in ("results", "player_stats", "player_box_stats"):
        with op.batch_alter_table(table) as batch:
            batch.drop_constraint(f"fk_{table}_rules_key_rule_sets", type_="foreignkey")
    for table in OWNED:
        _household_column(table)
    for table in ("players", "rule_sets", "pin_failures"):
        with op.batch_alter_table(table) as batch:
            batch.create_foreign_key(
                f"fk_{table}_household_id_households", "households", ["household_id"], ["id"]
            )
    with op.batch_alter_table("players") as batch:
        batch.drop_constraint("uq_players_name_key", type_="unique")
        batch.create_unique_constraint(
            "uq_players_household_id_name_key", ["household_id", "name_key"]
        )
    with op.batch_alter_table("rule_sets") as batch:
        batch.drop_constraint("pk_rule_sets", type_="primary")
        batch.create_primary_key("pk_rule_sets", ["household_id", "key"])
    with op.batch_alter_table("results") as batch:
        batch.create_foreign_key(
            "fk_results_household_id_rule_sets",
            "rule_sets",
            ["household_id", "rules_key"],
            ["household_id", "key"],
        )
    for name, column in RECORDS.items():
        op.drop_index(f"ix_results_rules_{name}", table_name="results")
        op.create_index(
            f"ix_results_rules_{name}",
            "results",
            ["household_id", "rules_key", sa.text(f"{column} DESC"), "finished_at", "game_id"],
        )
    op.drop_index("ix_games_status_finished_at", table_name="games")
    op.create_index(
        "ix_games_household_status_finished", "games", ["household_id", "status", "finished_at"]
    )
    op.drop_index("ix_pin_failures_address_time", table_name="pin_failures")
    op.create_index(
        "ix_pin_failures_household_address_time",
        "pin_failures",
        ["household_id", "address", "failed_at"],
    )

    op.create_table(
        "devices",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("household_id", sa.Integer(), nullable=False),
        sa.Column("token", sa.String(64), nullable=False),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["household_id"], ["households.id"], name="fk_devices_household_id_households"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_devices"),
        sa.UniqueConstraint("token", name="uq_devices_token"),
    )
    op.create_index("ix_devices_household_id", "devices", ["household_id"])
    op.create_table(
        "join_links",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("household_id", sa.Integer(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["household_id"], ["households.id"], name="fk_join_links_household_id_households"
        ),
        sa.PrimaryKeyConstraint("token_hash", name="pk_join_links"),
    )
    op.create_table(
        "spectator_links",
        sa.Column("token", sa.String(64), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name="fk_spectator_links_game_id_games", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("token", name="pk_spectator_links"),
        sa.UniqueConstraint("game_id", name="uq_spectator_links_game_id"),
    )
    op.create_table(
        "passphrase_failures",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name_key", sa.String(180), nullable=False),
        sa.Column("address", sa.String(64), nullable=False),
        sa.Column("failed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_passphrase_failures"),
    )
    op.create_index(
        "ix_passphrase_failures_name_time", "passphrase_failures", ["name_key", "failed_at"]
    )
    op.create_index(
        "ix_passphrase_failures_address_time", "passphrase_failures", ["address", "failed_at"]
    )


def downgrade() -> None:
    """Back to one database of one household: refused once another household exists."""
    if op.get_bind().execute(sa.text("SELECT count(*) FROM households")).scalar() > 1:
        raise RuntimeError("several households share this database: it cannot go back to one")
    for table in ("passphrase_failures", "spectator_links", "join_links", "devices"):
        op.drop_table(table)
    op.drop_index("ix_pin_failures_household_address_time", table_name="pin_failures")
    op.create_index("ix_pin_failures_address_time", "pin_failures", ["address", "failed_at"])
    op.drop_index("ix_games_household_status_finished", table_name="games")
    op.create_index("ix_games_status_finished_at", "games", ["status", "finished_at"])
    for name, column in RECORDS.items():
        op.drop_index(f"ix_results_rules_{name}", table_name="results")
        op.create_index(
            f"ix_results_rules_{name}",
            "results",
            ["rules_key", sa.text(f"{column} DESC"), "finished_at", "game_id"],
        )
    with op.batch_alter_table("results") as batch:
        batch.drop_constraint("fk_results_household_id_rule_sets", type_="foreignkey")
    with op.batch_alter_table("rule_sets") as batch:
        batch.drop_constraint("pk_rule_sets", type_="primary")
        batch.create_primary_key("pk_rule_sets", ["key"])
    with op.batch_alter_table("players") as batch:
        batch.drop_constraint("uq_players_household_id_name_key", type_="unique")
        batch.create_unique_constraint("uq_players_name_key", ["name_key"])
    # SQLite (3.35 or later) drops a column in place: games is not rebuilt.
    op.execute("ALTER TABLE games DROP COLUMN household_id")
    for table in OWNED[1:]:
        with op.batch_alter_table(table) as batch:
            if table != "results":
                batch.drop_constraint(f"fk_{table}_household_id_households", type_="foreignkey")
            batch.drop_column("household_id")
    for table in ("results", "player_stats", "player_box_stats"):
        with op.batch_alter_table(table) as batch:
            batch.create_foreign_key(
                f"fk_{table}_rules_key_rule_sets", "rule_sets", ["rules_key"], ["key"]
            )
    op.drop_table("households")
