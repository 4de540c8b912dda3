"""Which database errors mean "the database cannot serve this now" rather than a bug.

The web layer answers these with a 503 and Retry-After: the transaction was rolled back
whole (or never began), so nothing of the request was written, and the same request a moment
later may succeed. Anything else is a bug and stays a 500.
"""

from __future__ import annotations

from enum import Enum

from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout


class Unavailable(Enum):
    # Not reachable: refused, closed, shutting down, starting up.
    AWAY = "away"
    # Reachable but saturated or held: too many clients, a lock or a statement over its
    # time, every pooled connection taken, SQLite's write lock.
    BUSY = "busy"
    # The disk is full: nothing more can be written until room is made.
    FULL = "full"


# PostgreSQL's SQLSTATEs (Appendix A of its manual), by class or exact code.
_AWAY_CLASSES = ("08",)  # connection exception
_AWAY_CODES = {"57P01", "57P02", "57P03"}  # admin/crash shutdown, cannot connect now
_BUSY_CODES = {
    "53300",  # too_many_connections
    "53200",  # out_of_memory
    "55P03",  # lock_not_available (lock_timeout)
    "57014",  # query_canceled (statement_timeout)
    "40P01",  # deadlock_detected, after the store's retries
    "40001",  # serialization_failure, after the store's retries
}
_FULL_CODES = {"53100"}  # disk_full
# PostgreSQL's messages for too_many_connections when it refuses a new connection, which
# libpq passes on without their SQLSTATE. Under another lc_messages they read as "away":
# a 503 all the same.
_NO_CONNECTION_SLOT = ("too many clients already", "remaining connection slots are reserved")

# SQLite's primary result codes (Python's sqlite3 names them on its errors).
_SQLITE = {
    "SQLITE_BUSY": Unavailable.BUSY,
    "SQLITE_LOCKED": Unavailable.BUSY,
    "SQLITE_FULL": Unavailable.FULL,
    "SQLITE_CANTOPEN": Unavailable.AWAY,
}


def unavailable(error: BaseException) -> Unavailable | None:
    """Why the database could not serve, or None when `error` is not such a condition."""
    if isinstance(error, PoolTimeout):
        # Every connection of this process's pool stayed taken past pool_timeout.
        return Unavailable.BUSY
    if not isinstance(error, DBAPIError):
        return None
    if error.connection_invalidated:
        # SQLAlchemy recognised a connection that the server closed under it.
        return Unavailable.AWAY
    orig = error.orig
    sqlite_name = getattr(orig, "sqlite_errorname", None)
    if sqlite_name is not None:
        # SQLITE_BUSY_SNAPSHOT is a SQLITE_BUSY: the primary code is the first two words.
        return _SQLITE.get("_".join(sqlite_name.split("_")[:2]))
    sqlstate = getattr(orig, "sqlstate", None)
    if sqlstate is None:
        # psycopg's errors that come from no server answer (connection refused, server
        # closed the connection) carry no SQLSTATE; nor does a connection the server
        # refused at start, whose message alone says it is full.
        if type(orig).__name__ != "OperationalError":
            return None
        full = any(words in str(orig) for words in _NO_CONNECTION_SLOT)
        return Unavailable.BUSY if full else Unavailable.AWAY
    if sqlstate in _FULL_CODES:
        return Unavailable.FULL
    if sqlstate in _BUSY_CODES:
        return Unavailable.BUSY
    if sqlstate in _AWAY_CODES or sqlstate.startswith(_AWAY_CLASSES):
        return Unavailable.AWAY
    return None
