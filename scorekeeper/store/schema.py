"""The tables as the code sees them; migrations create them and a test keeps both in step."""

from datetime import UTC, datetime

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    SmallInteger,
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

# The longest key of a turn (entries.turn_key): the tablet makes 32 hex digits.
TURN_KEY_LENGTH = 64


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


# A family: it owns its games, players, records, counters and PIN failures. A household
# installation has one, made by the first migration that knew of them; a hosted one many.
households = Table(
    "households",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(60), nullable=False),
    # The name as typed to join, ignoring case, compatibility forms and spaces, and a digest
    # of what it looks like (store/household_names.py): no two households share either.
    # None for the one household of an installation at home, which nobody joins by name.
    Column("name_key", String(180), nullable=True),
    Column("name_skeleton", String(64), nullable=True),
    # Werkzeug's salted scrypt hash of the passphrase; None where nobody signs in.
    Column("passphrase_hash", Text, nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
    UniqueConstraint("name_key"),
    Index("ix_households_name_skeleton", "name_skeleton", unique=True),
)

games = Table(
    "games",
    metadata,
    Column("id", Integer, primary_key=True),
    # No foreign key: SQLite adds one only by rebuilding the table, which would cascade to
    # every game's log (migration 0006). The store deletes a household's games with it.
    Column("household_id", Integer, nullable=False),
    Column("rules", Text, nullable=False),
    Column("status", String(20), nullable=False, server_default="in_progress"),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("finished_at", UTCDateTime, nullable=True),
    # When its first entry was written: with ``finished_at`` (the last one's), how long the
    # game took. None before it is played, and for games played before migration 0016.
    Column("started_at", UTCDateTime, nullable=True),
    # The game this one is the Revanche of: unique, so that a rematch is made once however
    # often (or from however many tablets) Revanche is tapped. No foreign key, as above.
    Column("rematch_of", Integer, nullable=True),
    Index("ix_games_rematch_of", "rematch_of", unique=True),
    # Never reuse a deleted game's number (a PostgreSQL sequence never does anyway).
    sqlite_autoincrement=True,
)

players = Table(
    "players",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("household_id", Integer, ForeignKey("households.id"), nullable=False),
    Column("name", String(40), nullable=False),
    # casefold() may lengthen a name ("ß" -> "ss"), at most threefold.
    Column("name_key", String(120), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    UniqueConstraint("household_id", "name_key"),
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
    # The key the tablet made for the turn (migration 0019): the same turn sent again, after
    # a dropped network, finds its entry instead of making a second one. NULL for entries of
    # old pages, forms without scripts and imports; unique within a game.
    Column("turn_key", String(TURN_KEY_LENGTH), nullable=True),
    # The throw the dice came from, when the entry said it (a Generala servida: 1); NULL
    # otherwise (migration 0021).
    Column("throw", SmallInteger, nullable=True),
    # The throws the turn used, when the entry said it (Maxi Yatzy's saved throws); NULL
    # otherwise: the turn's own three (migration 0022).
    Column("throws", SmallInteger, nullable=True),
    # Also the index of a game's entries (migration 0008).
    UniqueConstraint("game_id", "seq"),
    Index("ix_entries_turn_key", "game_id", "turn_key", unique=True),
)

# What the hall of fame and the player pages read: a cache of the replay of finished games,
# written when a game finishes and removed when an undo reopens it (see store/results.py).

rule_sets = Table(
    "rule_sets",
    metadata,
    Column("household_id", Integer, ForeignKey("households.id"), nullable=False),
    # A short hash of the canonical rules: the same rules give the same key in every instance.
    Column("key", String(16), nullable=False),
    Column("rules", Text, nullable=False),
    Column("games", Integer, nullable=False),
    Column("results", Integer, nullable=False),
    PrimaryKeyConstraint("household_id", "key"),
)

results = Table(
    "results",
    metadata,
    Column("game_id", Integer, ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False),
    Column("household_id", Integer, nullable=False),
    Column("rules_key", String(16), nullable=False),
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
    # The cells a game won at once (a Generala servida) left empty, the same way; '' when
    # every box was filled (migration 0021).
    Column("empty_cells", Text, nullable=False, server_default=""),
    Column("rank", Integer, nullable=False),
    Column("won", Boolean, nullable=False),
    # Games of this rule set in a row, ending with this one, where the player had every
    # upper bonus (0 when this game missed one).
    Column("bonus_streak", Integer, nullable=False),
    PrimaryKeyConstraint("game_id", "seat"),
    ForeignKeyConstraint(
        ["household_id", "rules_key"], ["rule_sets.household_id", "rule_sets.key"]
    ),
    Index("ix_results_player_rules_time", "player_id", "rules_key", "finished_at", "game_id"),
)

# Each record of a household's rule set, highest first and, among equals, the earliest
# first: the first row of the index is the record holder, and a page of best totals is a
# slice of it, however many games tie (migrations 0003, 0006); best totals also end with the
# seat, the last key of their list's order (migration 0014).
for _name, _column, _last in (
    ("total", results.c.total, (results.c.seat,)),
    ("upper", results.c.upper, ()),
    ("yams", results.c.yams_count, ()),
    ("streak", results.c.bonus_streak, ()),
):
    Index(
        f"ix_results_rules_{_name}",
        results.c.household_id,
        results.c.rules_key,
        _column.desc(),
        results.c.finished_at,
        results.c.game_id,
        *_last,
    )
Index(
    "ix_results_player_rules_total",
    results.c.player_id,
    results.c.rules_key,
    results.c.total,
    results.c.finished_at,
    results.c.game_id,
)
Index("ix_results_player_time", results.c.player_id, results.c.finished_at, results.c.game_id)
# A rule set's latest games, for its usual length: a few rows read, however many games
# (migration 0017).
Index(
    "ix_results_rules_time",
    results.c.household_id,
    results.c.rules_key,
    results.c.finished_at,
    results.c.game_id,
)

# The coach: what each player of a finished game left to the Conseil (scorekeeper/coach.py),
# computed in the background from the advisor's tables, so written after its results and
# gone with them (an undo that reopens the game, its deletion). Its rule set and end are the
# results', for the rule set's latest games in order (migration 0020).
coach_figures = Table(
    "coach_figures",
    metadata,
    Column("game_id", Integer, nullable=False),
    Column("seat", Integer, nullable=False),
    Column("household_id", Integer, nullable=False),
    Column("rules_key", String(16), nullable=False),
    Column("finished_at", UTCDateTime, nullable=False),
    # The sum over the player's turns of the best box's expected final total minus the
    # chosen box's (advisor/review.py); the turns judged, and those played on the best box.
    Column("given_away", Float, nullable=False),
    Column("turns", Integer, nullable=False),
    Column("best_turns", Integer, nullable=False),
    PrimaryKeyConstraint("game_id", "seat"),
    ForeignKeyConstraint(
        ["game_id", "seat"], ["results.game_id", "results.seat"], ondelete="CASCADE"
    ),
    Index(
        "ix_coach_figures_rules_time",
        "household_id",
        "rules_key",
        "finished_at",
        "game_id",
    ),
)

player_stats = Table(
    "player_stats",
    metadata,
    Column("player_id", Integer, ForeignKey("players.id"), nullable=False),
    Column("rules_key", String(16), nullable=False),
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
    Column("rules_key", String(16), nullable=False),
    Column("box", String(30), nullable=False),
    Column("filled", Integer, nullable=False),
    Column("barred", Integer, nullable=False),
    PrimaryKeyConstraint("player_id", "rules_key", "box"),
)

# Finished games, the latest first: their ids read from the index alone (migration 0014).
Index(
    "ix_games_household_status_finished",
    games.c.household_id,
    games.c.status,
    games.c.finished_at,
    games.c.id,
)
Index("ix_game_players_player_id", game_players.c.player_id)

# The devices of a household: each signed in with its own token, which its cookie holds and
# of which only the hash is kept (store/households.py, token_hash); removing the row signs
# the device out at its next request.
devices = Table(
    "devices",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("household_id", Integer, ForeignKey("households.id"), nullable=False),
    Column("token_hash", String(64), nullable=False),
    Column("name", String(120), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("last_seen_at", UTCDateTime, nullable=False),
    UniqueConstraint("token_hash"),
    Index("ix_devices_household_id", "household_id"),
)

# One-use links that let another device join, valid for a few minutes; only a hash of the
# secret is kept, so that reading the database gives no way in.
join_links = Table(
    "join_links",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("household_id", Integer, ForeignKey("households.id"), nullable=False),
    Column("expires_at", UTCDateTime, nullable=False),
)

# The read-only link of a game for a screen that has not joined, kept as its token's hash as
# the join links are: deleting it revokes it.
spectator_links = Table(
    "spectator_links",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("game_id", Integer, ForeignKey("games.id", ondelete="CASCADE"), nullable=False),
    UniqueConstraint("game_id"),
)

# Attempts counted per key while their window lasts (store/limits.py): passphrases tried,
# households created, a household's wrong PINs. One row a key, changed by one upsert, so that
# every thread and every process counts the same, also of many attempts at once.
attempt_counts = Table(
    "attempt_counts",
    metadata,
    Column("key", String(200), primary_key=True),
    Column("window_started_at", UTCDateTime, nullable=False),
    Column("attempts", Integer, nullable=False),
    Index("ix_attempt_counts_window_started_at", "window_started_at"),
)

# What each household used of its quotas of heavy work (imports, PDF pages, advisor builds),
# one row a use, kept for as long as it counts: in the database, so that every server
# process refuses past the same limit (see store/quotas.py).
quota_uses = Table(
    "quota_uses",
    metadata,
    Column("id", Integer, primary_key=True),
    Column(
        "household_id", Integer, ForeignKey("households.id", ondelete="CASCADE"), nullable=False
    ),
    Column("kind", String(20), nullable=False),
    Column("used_at", UTCDateTime, nullable=False),
    Column("amount", Integer, nullable=False),
    Index("ix_quota_uses_household_kind_time", "household_id", "kind", "used_at"),
)
