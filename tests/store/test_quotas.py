"""Quotas in the store: counted per household in a window, when they free up, the games a
household stores, and the limit holding when many requests take the last units at once."""

import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, insert, select

from scorekeeper.store import quotas
from scorekeeper.store.games import create_game
from scorekeeper.store.households import create_household
from scorekeeper.store.quotas import (
    GAMES,
    MINUTE,
    NO_QUOTAS,
    PDF_PAGES,
    Quota,
    QuotaExceeded,
    Quotas,
    check_room,
)
from scorekeeper.store.schema import games, quota_uses
from tests.support.threads import WAIT_SECONDS, joined

PAGES = Quota(PDF_PAGES, 5, MINUTE)


@pytest.fixture
def households(store):
    return create_household(store, "Les A", "hash"), create_household(store, "Les B", "hash")


def _uses(store) -> int:
    with store.engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(quota_uses))


def test_a_quota_counts_each_household_apart_and_refuses_past_its_limit(store, households):
    a, b = households
    quotas.take(store, household=a, quota=PAGES, amount=3)
    quotas.take(store, household=a, quota=PAGES, amount=2)
    quotas.take(store, household=b, quota=PAGES, amount=5)
    with pytest.raises(QuotaExceeded) as refused:
        quotas.take(store, household=a, quota=PAGES, amount=1)
    assert (refused.value.kind, refused.value.limit, refused.value.used, refused.value.asked) == (
        PDF_PAGES,
        5,
        5,
        1,
    )
    assert _uses(store) == 3  # the refused request counted nothing
    with pytest.raises(QuotaExceeded):
        check_room(store, household=b, quota=PAGES, amount=1, now=datetime.now(UTC))


def test_uses_leave_the_window_and_the_refusal_says_when(store, households):
    a, _b = households
    now = datetime.now(UTC)
    with store.engine.begin() as connection:
        connection.execute(
            insert(quota_uses),
            [
                {
                    "household_id": a,
                    "kind": PDF_PAGES,
                    "used_at": now - timedelta(seconds=90),
                    "amount": 5,
                },  # out of the window: counts no more
                {
                    "household_id": a,
                    "kind": PDF_PAGES,
                    "used_at": now - timedelta(seconds=40),
                    "amount": 2,
                },
                {
                    "household_id": a,
                    "kind": PDF_PAGES,
                    "used_at": now - timedelta(seconds=10),
                    "amount": 3,
                },
            ],
        )
    with pytest.raises(QuotaExceeded) as refused:
        check_room(store, household=a, quota=PAGES, amount=2, now=now)
    # Two pages fit once the use of 40 s ago leaves the minute, 20 s from now.
    assert refused.value.used == 5
    assert refused.value.frees_at == now - timedelta(seconds=40) + MINUTE
    with pytest.raises(QuotaExceeded) as too_big:
        quotas.take(store, household=a, quota=PAGES, amount=6)
    assert too_big.value.frees_at is None  # more than the whole quota: time frees nothing
    # A use forgets the household's uses out of the window.
    with store.engine.begin() as connection:
        quotas.use(connection, household=a, quota=Quota(PDF_PAGES, 10, MINUTE), amount=1, now=now)
    assert _uses(store) == 3


def test_a_quota_holds_when_many_take_its_last_units_at_once(store, households):
    a, _b = households
    start = threading.Barrier(12)
    taken, refused = [], []

    def take() -> None:
        start.wait(timeout=WAIT_SECONDS)
        try:
            taken.append(quotas.take(store, household=a, quota=PAGES, amount=1))
        except QuotaExceeded:
            refused.append(1)

    threads = [threading.Thread(target=take) for _ in range(12)]
    for thread in threads:
        thread.start()
    joined(threads)
    assert (len(taken), len(refused)) == (5, 7)
    assert _uses(store) == 5


def test_a_new_game_past_the_games_stored_is_refused_and_written_nowhere(store, households):
    a, b = households
    kept = Quotas(games_stored=2)
    create_game(store, {}, ["Mag"], household=a, quotas=kept)
    create_game(store, {}, ["Mag"], household=a, quotas=kept)
    create_game(store, {}, ["Mag"], household=b, quotas=kept)
    with pytest.raises(QuotaExceeded) as refused:
        create_game(store, {}, ["Zoé"], household=a, quotas=kept)
    assert (refused.value.kind, refused.value.used, refused.value.asked) == (GAMES, 2, 1)
    with store.engine.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(games)) == 3
    with pytest.raises(QuotaExceeded):
        quotas.check_room_for_games(store, household=a, quotas=kept, adding=1)
    quotas.check_room_for_games(store, household=b, quotas=kept, adding=1)


def test_without_quotas_nothing_is_counted(store, households):
    a, _b = households
    assert NO_QUOTAS == Quotas()
    for _ in range(3):
        assert quotas.take(store, household=a, quota=NO_QUOTAS.pdf_pages, amount=50) is None
        create_game(store, {}, ["Mag"], household=a, quotas=NO_QUOTAS)
    assert _uses(store) == 0
