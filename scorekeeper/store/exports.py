"""Export of games as documents: a JSON array of game documents, the ``replay`` format
(``rules``, ``players``, ``entries``) plus ``id``, ``status``, ``created_at``, ``started_at``
and ``finished_at``, and ``identities`` where a seat's lasting player is now called otherwise
than the name on the sheet; ``transfer`` reads them back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from sqlalchemy import (
    select,
)

from scorekeeper.rules import (
    Rules,
)
from scorekeeper.store.engine import Store
from scorekeeper.store.errors import GameNotFound
from scorekeeper.store.schema import entries, game_players, games, players

# Games read at a time for an export.
EXPORT_BATCH = 500


def _document(game, seats: list, log: list) -> dict[str, Any]:
    # The same shape as rules.write_document, built from the stored log without a replay:
    # an export of a hundred thousand games stays quick.
    rules = Rules.from_dict(json.loads(game.rules))
    names = [seat.name for seat in seats]
    single_column = len(rules.columns) == 1
    written = []
    for entry in log:
        item = {
            "player": names[entry.seat],
            "box": entry.box,
            "dice": [int(die) for die in entry.dice],
        }
        if not single_column:
            item["column"] = entry.column
        if entry.throw is not None:
            item["throw"] = entry.throw
        if entry.throws is not None:
            item["throws"] = entry.throws
        written.append(item)
    document = {
        "id": game.id,
        "status": game.status,
        "created_at": game.created_at.isoformat(),
        "started_at": game.started_at.isoformat() if game.started_at else None,
        "finished_at": game.finished_at.isoformat() if game.finished_at else None,
        "rules": rules.to_dict(),
        "players": names,
        "entries": written,
    }
    identities = [seat.identity for seat in seats]
    if identities != names:
        document["identities"] = identities
    return document


def export_documents(
    store: Store, game_id: int | None = None, *, household: int
) -> Iterator[dict[str, Any]]:
    """The documents of every game of the household (or of one), by id; GameNotFound for an
    id the household has not."""
    with store.engine.connect() as connection:
        query = select(games.c.id).where(games.c.household_id == household).order_by(games.c.id)
        if game_id is not None:
            query = query.where(games.c.id == game_id)
        ids = list(connection.scalars(query))
    if game_id is not None and not ids:
        raise GameNotFound(game_id)
    for start in range(0, len(ids), EXPORT_BATCH):
        yield from _export_batch(store, ids[start : start + EXPORT_BATCH])


def _export_batch(store: Store, ids: list[int]) -> list[dict[str, Any]]:
    with store.engine.begin() as connection:
        rows = connection.execute(select(games).where(games.c.id.in_(ids))).all()
        seats: dict[int, list] = {game_id: [] for game_id in ids}
        for seat in connection.execute(
            select(game_players.c.game_id, game_players.c.name, players.c.name.label("identity"))
            .join(players, players.c.id == game_players.c.player_id)
            .where(game_players.c.game_id.in_(ids))
            .order_by(game_players.c.game_id, game_players.c.seat)
        ):
            seats[seat.game_id].append(seat)
        logs: dict[int, list] = {game_id: [] for game_id in ids}
        for entry in connection.execute(
            select(
                entries.c.game_id,
                entries.c.seat,
                entries.c.column,
                entries.c.box,
                entries.c.dice,
                entries.c.throw,
                entries.c.throws,
            )
            .where(entries.c.game_id.in_(ids))
            .order_by(entries.c.game_id, entries.c.seq)
        ):
            logs[entry.game_id].append(entry)
    # A game deleted between the listing of ids and this batch is simply not exported.
    return [
        _document(game, seats[game.id], logs[game.id])
        for game in sorted(rows, key=lambda row: row.id)
    ]


def json_array(documents: Iterable[dict[str, Any]]) -> Iterator[str]:
    """A JSON array written piece by piece, one document a line."""
    first = True
    for document in documents:
        yield ("[\n" if first else ",\n") + json.dumps(document, ensure_ascii=False)
        first = False
    yield "[]\n" if first else "\n]\n"
