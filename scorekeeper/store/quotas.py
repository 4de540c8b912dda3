"""Per-household quotas of a hosted server: the games a household keeps, and the heavy work
(imports, PDF pages, advisor builds) it may ask for in a window of time.

The app says which quotas hold (the QUOTA_* settings, hosted only) and passes them to what
they bound; without them (``NO_QUOTAS``) nothing is counted. The games stored are checked
where games are made (``games.create_game``, ``transfer.import_games``), so that no way of
making one forgets it. Uses are rows of ``quota_uses``, kept while they count, so that every server
process refuses past the same limit. A use is counted in the transaction of the work it
pays for, or in one of its own just before the work; either way the household's row is
locked first (PostgreSQL: FOR NO KEY UPDATE, which the foreign keys of the rows it is
adding elsewhere do not wait for; SQLite: the transaction's first write took the database's
lock), so that two requests at once never both take the last unit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import Connection, delete, func, insert, select

from scorekeeper.store.errors import StoreError
from scorekeeper.store.schema import games, households, quota_uses

if TYPE_CHECKING:
    from scorekeeper.store.engine import Store

# The kinds of quota, as quota_uses.kind stores them (the games stored are counted, not used).
GAMES = "games"
IMPORTS = "imports"
PDF_PAGES = "pdf_pages"
ADVISOR_BUILDS = "advisor_builds"

DAY = timedelta(days=1)
MINUTE = timedelta(minutes=1)


@dataclass(frozen=True)
class Quota:
    """At most ``limit`` units of ``kind`` in any ``window`` of time; None: no limit."""

    kind: str
    limit: int | None
    window: timedelta


@dataclass(frozen=True)
class Quotas:
    """Every quota of a household; the defaults limit nothing (a household at home)."""

    games_stored: int | None = None
    imports: Quota = field(default=Quota(IMPORTS, None, DAY))
    pdf_pages: Quota = field(default=Quota(PDF_PAGES, None, MINUTE))
    advisor_builds: Quota = field(default=Quota(ADVISOR_BUILDS, None, DAY))

    @classmethod
    def of(
        cls,
        games_stored: int | None,
        imports_per_day: int | None,
        pdf_pages_per_minute: int | None,
        advisor_builds_per_day: int | None,
    ) -> Quotas:
        return cls(
            games_stored,
            Quota(IMPORTS, imports_per_day, DAY),
            Quota(PDF_PAGES, pdf_pages_per_minute, MINUTE),
            Quota(ADVISOR_BUILDS, advisor_builds_per_day, DAY),
        )


NO_QUOTAS = Quotas()


class QuotaExceeded(StoreError):
    """A household asked for more than a quota allows: nothing was done.

    ``used`` is what the household holds or used in the window, ``asked`` what the request
    wanted on top. ``frees_at`` is when enough of the window frees up for the same request;
    None when time frees nothing: the games stored (deleting games does), or a request larger
    than the whole quota.
    """

    def __init__(
        self, kind: str, limit: int, used: int, asked: int, frees_at: datetime | None = None
    ) -> None:
        super().__init__(f"{kind}: {used} + {asked} > {limit}")
        self.kind = kind
        self.limit = limit
        self.used = used
        self.asked = asked
        self.frees_at = frees_at

    def __reduce__(self):
        # Raised in an import's worker process, read in the server's.
        return QuotaExceeded, (self.kind, self.limit, self.used, self.asked, self.frees_at)


def lock_household(connection: Connection, *, household: int) -> None:
    """Hold the household's quotas until the transaction ends (see the module's comment)."""
    connection.execute(
        select(households.c.id).where(households.c.id == household).with_for_update(key_share=True)
    )


def check_games_stored(
    connection: Connection, *, household: int, quotas: Quotas, added: int
) -> None:
    """In the transaction that has just added ``added`` games to the household: raise
    QuotaExceeded, so that it rolls back, when the household now stores too many."""
    if quotas.games_stored is None:
        return
    lock_household(connection, household=household)
    stored = connection.scalar(_games_of(household))
    if stored > quotas.games_stored:
        raise QuotaExceeded(GAMES, quotas.games_stored, stored - added, added)


def check_room_for_games(store: Store, *, household: int, quotas: Quotas, adding: int) -> None:
    """QuotaExceeded when the household already stores too many games to add ``adding``:
    a look before heavy work, counting nothing (check_games_stored decides)."""
    if quotas.games_stored is None:
        return
    with store.engine.connect() as connection:
        stored = connection.scalar(_games_of(household))
    if stored + adding > quotas.games_stored:
        raise QuotaExceeded(GAMES, quotas.games_stored, stored, adding)


def use(
    connection: Connection, *, household: int, quota: Quota, amount: int, now: datetime
) -> int | None:
    """Count ``amount`` units of ``quota`` for the household in the caller's transaction;
    the use's id (None when the quota limits nothing). QuotaExceeded, counting nothing,
    when the window has no room for them."""
    if quota.limit is None:
        return None
    mine = (quota_uses.c.household_id == household) & (quota_uses.c.kind == quota.kind)
    since = now - quota.window
    # A write first: on SQLite it takes the lock before anything is read.
    connection.execute(delete(quota_uses).where(mine, quota_uses.c.used_at <= since))
    lock_household(connection, household=household)
    uses = connection.execute(
        select(quota_uses.c.used_at, quota_uses.c.amount).where(mine).order_by(quota_uses.c.used_at)
    ).all()
    _refuse_beyond(quota, uses, amount)
    return connection.execute(
        insert(quota_uses).values(
            household_id=household, kind=quota.kind, used_at=now, amount=amount
        )
    ).inserted_primary_key[0]


def check_room(store: Store, *, household: int, quota: Quota, amount: int, now: datetime) -> None:
    """QuotaExceeded when ``amount`` units would not fit now: a look before heavy work,
    counting nothing (``use`` counts them, in the transaction that does the work)."""
    if quota.limit is None:
        return
    with store.engine.connect() as connection:
        uses = connection.execute(
            select(quota_uses.c.used_at, quota_uses.c.amount)
            .where(
                quota_uses.c.household_id == household,
                quota_uses.c.kind == quota.kind,
                quota_uses.c.used_at > now - quota.window,
            )
            .order_by(quota_uses.c.used_at)
        ).all()
    _refuse_beyond(quota, uses, amount)


def take(store: Store, *, household: int, quota: Quota, amount: int) -> int | None:
    """``use`` in a transaction of its own, just before the work it pays for; give the use
    back (``give_back``) if the work does not happen after all."""
    if quota.limit is None:
        return None
    now = datetime.now(UTC)
    return store.write(
        lambda connection: use(connection, household=household, quota=quota, amount=amount, now=now)
    )


def give_back(store: Store, use_id: int | None) -> None:
    """Forget a use whose work did not happen (every PDF worker was busy, say)."""
    if use_id is not None:
        store.write(
            lambda connection: connection.execute(
                delete(quota_uses).where(quota_uses.c.id == use_id)
            )
        )


def _games_of(household: int):
    return select(func.count()).select_from(games).where(games.c.household_id == household)


def _refuse_beyond(quota: Quota, uses: Sequence, amount: int) -> None:
    """QuotaExceeded if ``amount`` more than ``uses`` (the window's, oldest first) passes
    the limit, with the moment enough of them leave the window."""
    used = sum(row.amount for row in uses)
    if used + amount <= quota.limit:
        return
    if amount > quota.limit:
        raise QuotaExceeded(quota.kind, quota.limit, used, amount)
    freed = 0
    for row in uses:
        freed += row.amount
        if used - freed + amount <= quota.limit:
            raise QuotaExceeded(quota.kind, quota.limit, used, amount, row.used_at + quota.window)
    raise AssertionError("the uses of a window always free enough for a request within it")
