"""Results of finished games and the players' running aggregates, for the hall of fame.

They are a cache of the replay of each finished game: Store.migrate() fills them for the
games that finished before this migration.

Revision ID: 0002
Revises: 0001
Create Date: 2025-12-06
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COUNTERS = (
    "games",
    "duels",
    "wins",
    "total_sum",
    "column_count",
    "bonus_columns",
    "yams_games",
    "yams_count",
    "cells",
    "barred_count",
)


def upgrade() -> None:
    op.create_table(
        "rule_sets",
        sa.Column("key", sa.String(16), nullable=False),
        sa.Column("rules", sa.Text(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("results", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("key", name="pk_rule_sets"),
    )
    op.create_table(
        "results",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("rules_key", sa.String(16), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        *(
            sa.Column(name, sa.Integer(), nullable=False)
            for name in (
                "player_count",
                "total",
                "upper",
                "upper_bonus",
                "lower",
                "yams_bonus",
                "column_count",
                "bonus_columns",
                "yams_count",
                "barred_count",
            )
        ),
        sa.Column("barred_cells", sa.Text(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("bonus_streak", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name="fk_results_game_id_games", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name="fk_results_player_id_players"),
        sa.ForeignKeyConstraint(
            ["rules_key"], ["rule_sets.key"], name="fk_results_rules_key_rule_sets"
        ),
        sa.PrimaryKeyConstraint("game_id", "seat", name="pk_results"),
    )
    op.create_index("ix_results_rules_total", "results", ["rules_key", "total"])
    op.create_index("ix_results_rules_upper", "results", ["rules_key", "upper"])
    op.create_index("ix_results_rules_yams", "results", ["rules_key", "yams_count"])
    op.create_index("ix_results_rules_streak", "results", ["rules_key", "bonus_streak"])
    op.create_index(
        "ix_results_player_rules_time",
        "results",
        ["player_id", "rules_key", "finished_at", "game_id"],
    )
    op.create_index("ix_results_player_rules_total", "results", ["player_id", "rules_key", "total"])
    op.create_index("ix_results_player_time", "results", ["player_id", "finished_at"])
    op.create_table(
        "player_stats",
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("rules_key", sa.String(16), nullable=False),
        *(sa.Column(name, sa.Integer(), nullable=False) for name in COUNTERS),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name="fk_player_stats_player_id_players"
        ),
        sa.ForeignKeyConstraint(
            ["rules_key"], ["rule_sets.key"], name="fk_player_stats_rules_key_rule_sets"
        ),
        sa.PrimaryKeyConstraint("player_id", "rules_key", name="pk_player_stats"),
    )
    op.create_table(
        "player_box_stats",
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("rules_key", sa.String(16), nullable=False),
        sa.Column("box", sa.String(30), nullable=False),
        sa.Column("filled", sa.Integer(), nullable=False),
        sa.Column("barred", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name="fk_player_box_stats_player_id_players"
        ),
        sa.ForeignKeyConstraint(
            ["rules_key"], ["rule_sets.key"], name="fk_player_box_stats_rules_key_rule_sets"
        ),
        sa.PrimaryKeyConstraint("player_id", "rules_key", "box", name="pk_player_box_stats"),
    )
    op.create_index("ix_games_status_finished_at", "games", ["status", "finished_at"])
    op.create_index("ix_game_players_player_id", "game_players", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_game_players_player_id", table_name="game_players")
    op.drop_index("ix_games_status_finished_at", table_name="games")
    op.drop_table("player_box_stats")
    op.drop_table("player_stats")
    op.drop_table("results")
    op.drop_table("rule_sets")
