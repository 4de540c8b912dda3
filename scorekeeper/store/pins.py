"""Wrong household PINs per client address, kept in the database so that every server
process counts the same tries (the web layer decides how many a window allows)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, insert, select

from scorekeeper.store.engine import Store
from scorekeeper.store.schema import pin_failures

# Longer values (a proxy's header is believed as it comes) are cut: an address fits.
MAX_ADDRESS_LENGTH = 64


def recent_pin_failures(
    store: Store, address: str, since: datetime, *, household: int
) -> list[datetime]:
    """When this address typed a wrong PIN of the household after `since`, the earliest
    first."""
    with store.engine.begin() as connection:
        return list(
            connection.scalars(
                select(pin_failures.c.failed_at)
                .where(
                    pin_failures.c.household_id == household,
                    pin_failures.c.address == address[:MAX_ADDRESS_LENGTH],
                    pin_failures.c.failed_at > since,
                )
                .order_by(pin_failures.c.failed_at)
            )
        )


def add_pin_failure(
    store: Store, address: str, at: datetime, forget_before: datetime, *, household: int
) -> None:
    """Count a wrong PIN from `address`, and forget every one older than `forget_before`."""

    def add(connection) -> None:
        connection.execute(delete(pin_failures).where(pin_failures.c.failed_at < forget_before))
        connection.execute(
            insert(pin_failures).values(
                household_id=household, address=address[:MAX_ADDRESS_LENGTH], failed_at=at
            )
        )

    store.write(add)


def forget_pin_failures(store: Store, address: str, *, household: int) -> None:
    """Forget this address's wrong PINs (it has just typed the right one)."""
    store.write(
        lambda connection: connection.execute(
            delete(pin_failures).where(
                pin_failures.c.household_id == household,
                pin_failures.c.address == address[:MAX_ADDRESS_LENGTH],
            )
        )
    )
