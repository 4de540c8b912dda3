"""The tables as the code sees them; migrations create them and a test keeps both in step."""

from datetime import UTC, datetime

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.types import TypeDecorator

# Named constraints let later migrations alter them by name on every engine.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = MetaData(naming_convention=NAMING_CONVENTION)

# The largest id of an INTEGER column on PostgreSQL (SQLite's go further): no row has a
# larger id, and a larger one reaching the database driver is an error.
MAX_DATABASE_ID = 2**31 - 1


class UTCDateTime(TypeDecorator):
    """Timezone-aware UTC datetimes, also on SQLite, which stores no offset."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to the store; use datetime.now(UTC)")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


games = Table(
    "games",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("rules", Text, nullable=False),
    Column("status", String(20), nullable=False, server_default="in_progress"),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("finished_at", UTCDateTime, nullable=True),
    # Never reuse a deleted game's number (a PostgreSQL sequence never does anyway).
    sqlite_autoincrement=True,
)

players = Table(
    "players",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(40), nullable=False),
    # casefold() may lengthen a name ("ß" -> "ss"), at most threefold.
    Column("name_key", String(120), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    UniqueConstraint("name_key"),
)

game_players = Table(
    "game_players",
    metadata,
    Column("game_id", Integer, ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False),
    Column("name", String(40), nullable=False),
    PrimaryKeyConstraint("game_id", "seat"),
    UniqueConstraint("game_id", "player_id"),
)

entries = Table(
    "entries",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("game_id", Integer, ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("column", String(20), nullable=False),
    Column("box", String(30), nullable=False),
    Column("dice", String(10), nullable=False),
    Column("score", Integer, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    UniqueConstraint("game_id", "seq"),
    Index(None, "game_id"),
)

# What the hall of fame and the player pages read: a cache of the replay of finished games,
# written when a game finishes and removed when an undo reopens it (see store/results.py).

rule_sets = Table(
    "rule_sets",
    metadata,
    # A short hash of the canonical rules: the same rules give the same key in every instance.
    Column("key", String(16), primary_key=True),
    Column("rules", Text, nullable=False),
    Column("games", Integer, nullable=False),
    Column("results", Integer, nullable=False),
)

results = Table(
    "results",
    metadata,
    Column("game_id", Integer, ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False),
    Column("rules_key", String(16), ForeignKey("rule_sets.key"), nullable=False),
    Column("finished_at", UTCDateTime, nullable=False),
    Column("player_count", Integer, nullable=False),
    Column("total", Integer, nullable=False),
    Column("upper", Integer, nullable=False),
    Column("upper_bonus", Integer, nullable=False),
    Column("lower", Integer, nullable=False),
    Column("yams_bonus", Integer, nullable=False),
    Column("column_count", Integer, nullable=False),
    Column("bonus_columns", Integer, nullable=False),
    Column("yams_count", Integer, nullable=False),
    Column("barred_count", Integer, nullable=False),
    # The barred boxes as "column:box" words, so that per-box counts never need a replay.
    Column("barred_cells", Text, nullable=False),
    Column("rank", Integer, nullable=False),
    Column("won", Boolean, nullable=False),
    # Games of this rule set in a row, ending with this one, where the player had every
    # upper bonus (0 when this game missed one).
    Column("bonus_streak", Integer, nullable=False),
    PrimaryKeyConstraint("game_id", "seat"),
    Index("ix_results_player_rules_time", "player_id", "rules_key", "finished_at", "game_id"),
)

# Each record of a rule set, highest first and, among equals, the earliest first: the first
# row of the index is the record holder, and a page of best totals is a slice of it, however
# many games tie (migration 0003).
Index("ix_results_rules_total", results.c.rules_key, results.c.total.desc(),
      results.c.finished_at, results.c.game_id)
Index("ix_results_rules_upper", results.c.rules_key, results.c.upper.desc(),
      results.c.finished_at, results.c.game_id)
Index("ix_results_rules_yams", results.c.rules_key, results.c.yams_count.desc(),
      results.c.finished_at, results.c.game_id)
Index("ix_results_rules_streak", results.c.rules_key, results.c.bonus_streak.desc(),
      results.c.finished_at, results.c.game_id)
Index("ix_results_player_rules_total", results.c.player_id, results.c.rules_key,
      results.c.total, results.c.finished_at, results.c.game_id)
Index("ix_results_player_time", results.c.player_id, results.c.finished_at, results.c.game_id)

player_stats = Table(
    "player_stats",
    metadata,
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False),
    Column("rules_key", String(16), ForeignKey("rule_sets.key"), nullable=False),
    Column("games", Integer, nullable=False),
    Column("duels", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("total_sum", Integer, nullable=False),
    Column("column_count", Integer, nullable=False),
    Column("bonus_columns", Integer, nullable=False),
    Column("yams_games", Integer, nullable=False),
    Column("yams_count", Integer, nullable=False),
    Column("cells", Integer, nullable=False),
    Column("barred_count", Integer, nullable=False),
    PrimaryKeyConstraint("player_id", "rules_key"),
)

player_box_stats = Table(
    "player_box_stats",
    metadata,
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False),
    Column("rules_key", String(16), ForeignKey("rule_sets.key"), nullable=False),
    Column("box", String(30), nullable=False),
    Column("filled", Integer, nullable=False),
    Column("barred", Integer, nullable=False),
    PrimaryKeyConstraint("player_id", "rules_key", "box"),
)

Index("ix_games_status_finished_at", games.c.status, games.c.finished_at)
Index("ix_game_players_player_id", game_players.c.player_id)

# Wrong household PINs, one row each, kept for the minute they count: in the database, so
# that every server process refuses the sixth try (see store/pins.py).
pin_failures = Table(
    "pin_failures",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("address", String(64), nullable=False),
    Column("failed_at", UTCDateTime, nullable=False),
    Index("ix_pin_failures_address_time", "address", "failed_at"),
    Index("ix_pin_failures_failed_at", "failed_at"),
)
