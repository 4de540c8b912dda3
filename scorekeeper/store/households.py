"""Households of a hosted score keeper: their names and passphrases, devices, join links,
spectator links, and the deletion of a household with all it owns.

Passphrases reach this module already hashed (slowly, by the web layer). Tokens (a device's,
a spectator link's, a join link's) reach it as they are, random, and only their hash is kept
(token_hash): a copy of the database signs no device in and opens no link.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from scorekeeper.store.engine import DEVICE, LINK, Store, mark_revoked, utc_now
from scorekeeper.store.errors import GameNotFound
from scorekeeper.store.household_names import (
    HouseholdNameTaken,
    household_key,
    household_name,
    household_skeleton,
)
from scorekeeper.store.limits import forget_household_attempts
from scorekeeper.store.schema import (
    coach_figures,
    devices,
    entries,
    game_players,
    games,
    households,
    join_links,
    player_box_stats,
    player_stats,
    players,
    results,
    rule_sets,
    spectator_links,
)


@dataclass(frozen=True)
class HouseholdRecord:
    id: int
    name: str
    passphrase_hash: str | None


@dataclass(frozen=True)
class DeviceRecord:
    id: int
    household_id: int
    name: str
    created_at: datetime
    last_seen_at: datetime


_DEVICE_COLUMNS = (
    devices.c.id,
    devices.c.household_id,
    devices.c.name,
    devices.c.created_at,
    devices.c.last_seen_at,
)


def token_hash(token: str) -> str:
    """What is kept of a token: its SHA-256. A token is 24 or 32 random bytes, beyond any
    guessing, so a fast hash without salt is as safe as a slow one, and a request finds its
    row by one index lookup."""
    return hashlib.sha256(token.encode()).hexdigest()


def _household(row) -> HouseholdRecord | None:
    return None if row is None else HouseholdRecord(row.id, row.name, row.passphrase_hash)


def create_household(store: Store, name: str, passphrase_hash: str) -> int:
    """A new household called `name` (trimmed, see household_name); HouseholdNameRefused
    for a name no household may have, HouseholdNameTaken when another household has it or
    one that looks like it (the table's unique keys decide, also between two at once)."""
    name = household_name(name)
    try:
        return store.write(
            lambda connection: connection.execute(
                insert(households).values(
                    name=name,
                    name_key=household_key(name),
                    name_skeleton=household_skeleton(name),
                    passphrase_hash=passphrase_hash,
                    created_at=utc_now(),
                )
            ).inserted_primary_key[0]
        )
    except IntegrityError:
        raise HouseholdNameTaken(name) from None


def household_name_taken(store: Store, name: str) -> bool:
    """Whether a household has this name, or one that looks like it: asked before a
    passphrase is hashed, create_household deciding in the end."""
    with store.engine.connect() as connection:
        return (
            connection.scalar(
                select(households.c.id)
                .where(
                    or_(
                        households.c.name_key == household_key(name),
                        households.c.name_skeleton == household_skeleton(name),
                    )
                )
                .limit(1)
            )
            is not None
        )


def find_household(store: Store, name: str) -> HouseholdRecord | None:
    """The household called `name` (see household_key), None if there is none."""
    with store.engine.connect() as connection:
        return _household(
            connection.execute(
                select(households).where(households.c.name_key == household_key(name))
            ).one_or_none()
        )


def get_household(store: Store, household: int) -> HouseholdRecord | None:
    with store.engine.connect() as connection:
        return _household(
            connection.execute(select(households).where(households.c.id == household)).one_or_none()
        )


def household_ids(store: Store) -> list[int]:
    """Every household's id, the oldest first: for the server's own work over all of them
    (the coach counting the games of each, scorekeeper/coach.py), never for a page."""
    with store.engine.connect() as connection:
        return list(connection.scalars(select(households.c.id).order_by(households.c.id)))


def count_households(store: Store) -> int:
    with store.engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(households))


def add_device(store: Store, household: int, token: str, name: str) -> int:
    now = utc_now()
    return store.write(
        lambda connection: connection.execute(
            insert(devices).values(
                household_id=household,
                token_hash=token_hash(token),
                name=name[:120],
                created_at=now,
                last_seen_at=now,
            )
        ).inserted_primary_key[0]
    )


def device_by_token(store: Store, token: str) -> DeviceRecord | None:
    """The device this token signs in, None once it was removed."""
    found = signed_in_device(store, token)
    return None if found is None else found[0]


def signed_in_device(store: Store, token: str) -> tuple[DeviceRecord, str] | None:
    """The device this token signs in and its household's name, None once it was removed:
    one query, since a hosted server asks on every request."""
    with store.engine.connect() as connection:
        row = connection.execute(
            select(*_DEVICE_COLUMNS, households.c.name)
            .join(households, households.c.id == devices.c.household_id)
            .where(devices.c.token_hash == token_hash(token))
        ).one_or_none()
    return None if row is None else (DeviceRecord(*row[:-1]), row[-1])


def device_seen(store: Store, device_id: int, at: datetime) -> None:
    store.write(
        lambda connection: connection.execute(
            update(devices).where(devices.c.id == device_id).values(last_seen_at=at)
        )
    )


def list_devices(store: Store, household: int) -> list[DeviceRecord]:
    """The household's devices, the latest seen first."""
    with store.engine.connect() as connection:
        rows = connection.execute(
            select(*_DEVICE_COLUMNS)
            .where(devices.c.household_id == household)
            .order_by(devices.c.last_seen_at.desc(), devices.c.id.desc())
        ).all()
    return [DeviceRecord(*row) for row in rows]


def remove_device(store: Store, household: int, device_id: int) -> bool:
    """Sign a device of the household out for good, its open streams ended in every
    process; False when it has no such device."""

    def remove(connection: Connection) -> int:
        removed = connection.execute(
            delete(devices).where(devices.c.id == device_id, devices.c.household_id == household)
        ).rowcount
        if removed:
            mark_revoked(connection, DEVICE, device_id)
        return removed

    return bool(store.write(remove))


def add_join_link(store: Store, household: int, token: str, expires_at: datetime) -> None:
    store.write(
        lambda connection: connection.execute(
            insert(join_links).values(
                token_hash=token_hash(token), household_id=household, expires_at=expires_at
            )
        )
    )


def join_link_household(store: Store, token: str, now: datetime) -> int | None:
    """The household a join link would open, None for a used, expired or unknown link; the
    link stays as it is (opening it is no use of it)."""
    with store.engine.connect() as connection:
        return connection.scalar(
            select(join_links.c.household_id).where(
                join_links.c.token_hash == token_hash(token), join_links.c.expires_at >= now
            )
        )


def use_join_link(store: Store, token: str, now: datetime) -> int | None:
    """The household a join link opens, used up; None for a used, expired or unknown link.
    Expired links are forgotten on the way."""
    link = token_hash(token)

    def use(connection: Connection) -> int | None:
        connection.execute(delete(join_links).where(join_links.c.expires_at < now))
        household = connection.scalar(
            select(join_links.c.household_id).where(join_links.c.token_hash == link)
        )
        # The delete decides: of two devices using one link at once, one gets the row.
        if (
            household is None
            or not connection.execute(
                delete(join_links).where(join_links.c.token_hash == link)
            ).rowcount
        ):
            return None
        return household

    return store.write(use)


def _own_game(game_id: int, household: int):
    return (games.c.id == game_id) & (games.c.household_id == household)


def has_spectator_link(store: Store, game_id: int, *, household: int) -> bool:
    """Whether the household's game has a spectator link (its token cannot be read back:
    only its hash is kept)."""
    with store.engine.connect() as connection:
        return (
            connection.scalar(
                select(spectator_links.c.game_id)
                .join(games, games.c.id == spectator_links.c.game_id)
                .where(_own_game(game_id, household))
            )
            is not None
        )


def set_spectator_token(store: Store, game_id: int, token: str | None, *, household: int) -> None:
    """Give the household's game this spectator token, in place of the one it had (None:
    revoke its link); GameNotFound when the household has no such game."""

    def change(connection: Connection) -> None:
        # Updating the game's row first takes the write lock, as every write to a game does,
        # and finds the game in the household only.
        if not connection.execute(
            update(games).where(_own_game(game_id, household)).values(updated_at=games.c.updated_at)
        ).rowcount:
            raise GameNotFound(game_id)
        connection.execute(delete(spectator_links).where(spectator_links.c.game_id == game_id))
        # The link's streams end, a new link's too: a link handed on is taken back so.
        mark_revoked(connection, LINK, game_id)
        if token is not None:
            connection.execute(
                insert(spectator_links).values(token_hash=token_hash(token), game_id=game_id)
            )

    store.write(change)


def spectated_game(store: Store, token: str) -> tuple[int, int] | None:
    """(game id, household) a spectator token shows, None for a revoked or unknown one."""
    with store.engine.connect() as connection:
        row = connection.execute(
            select(games.c.id, games.c.household_id)
            .join(spectator_links, spectator_links.c.game_id == games.c.id)
            .where(spectator_links.c.token_hash == token_hash(token))
        ).one_or_none()
    return None if row is None else (row.id, row.household_id)


def delete_household(store: Store, household: int) -> None:
    """Delete the household and everything it owns, in one transaction."""

    def remove(connection: Connection) -> None:
        game_ids = select(games.c.id).where(games.c.household_id == household)
        player_ids = select(players.c.id).where(players.c.household_id == household)
        connection.execute(delete(coach_figures).where(coach_figures.c.household_id == household))
        connection.execute(delete(results).where(results.c.household_id == household))
        connection.execute(
            delete(player_box_stats).where(player_box_stats.c.player_id.in_(player_ids))
        )
        connection.execute(delete(player_stats).where(player_stats.c.player_id.in_(player_ids)))
        connection.execute(delete(rule_sets).where(rule_sets.c.household_id == household))
        connection.execute(delete(spectator_links).where(spectator_links.c.game_id.in_(game_ids)))
        connection.execute(delete(entries).where(entries.c.game_id.in_(game_ids)))
        connection.execute(delete(game_players).where(game_players.c.game_id.in_(game_ids)))
        connection.execute(delete(games).where(games.c.household_id == household))
        connection.execute(delete(players).where(players.c.household_id == household))
        forget_household_attempts(connection, household=household)
        connection.execute(delete(devices).where(devices.c.household_id == household))
        connection.execute(delete(join_links).where(join_links.c.household_id == household))
        connection.execute(delete(households).where(households.c.id == household))

    store.write(remove)
