"""A finished game as BG Stats, the board gamers' play logger, imports a play from another
app: a JSON document given to its ``createPlay`` link, which opens BG Stats on the tablet
with the play filled in for the player to confirm (docs/architecture.md, "BG Stats"). BG
Stats documents that link, one play at a time, and no file of many plays: every finished
game of a household is exported as one JSON array of such plays (``finished_plays``).

The document: ``sourceName`` (the app the play comes from), ``sourcePlayId`` (the same
play sent twice is one play), ``playDate`` (local time, "YYYY-MM-DD HH:MM:SS"),
``durationMin`` where the length is known, ``comments``, ``game`` (its name, its
BoardGameGeek id, an id of our own, highest score wins) and ``players`` (name, an id of our
own, score, rank, winner, who played first). Every rule set is a game of Yahtzee on
BoardGameGeek, whose id it carries; the rules in words go in the comments.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote

from sqlalchemy import select

from scorekeeper.rules import Rules, Standing
from scorekeeper.store.engine import Store
from scorekeeper.store.records import FINISHED
from scorekeeper.store.schema import game_players, games, results

SOURCE_NAME = "Yams score keeper"
# BoardGameGeek's Yahtzee, the game it files Yams, Yatzy and Kniffel under. Generala has no
# id we could check: without one, BG Stats matches it by name.
YAHTZEE_BGG_ID = 2243
BGG_IDS = {
    "classique": YAHTZEE_BGG_ID,
    "yatzy": YAHTZEE_BGG_ID,
    "yahtzee": YAHTZEE_BGG_ID,
    "kniffel": YAHTZEE_BGG_ID,
}
PLAY_LINK = "https://app.bgstatsapp.com/createPlay.html?data="
DATE_FORM = "%Y-%m-%d %H:%M:%S"
# Finished games read at a time for the export of all of them.
PLAYS_BATCH = 500


def bgstats_play(
    game_id: int,
    standings: Sequence[Standing],
    played_at: datetime,
    length: timedelta | None,
    rules: Rules,
    rules_words: str,
) -> dict[str, Any]:
    """The BG Stats play of a finished game, from its ranking (``GameState.ranking``, best
    first); ``played_at`` is when it started (or ended, where the start is not known), in the
    household's time. The game is named as its players name it (Yams, Kniffel, Generala…),
    whatever the page's language: BG Stats keeps one game per name and id."""
    play: dict[str, Any] = {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": f"yams-{game_id}",
        "playDate": played_at.strftime(DATE_FORM),
        "comments": rules_words,
        "game": {
            "name": rules.game_name,
            # The Yams of earlier exports keep their id, which BG Stats matched them by.
            "sourceGameId": "yams" if rules.preset == "classique" else rules.preset,
            "highestWins": True,
            "noPoints": False,
        },
        "players": [
            {
                "name": standing.name,
                "sourcePlayerId": standing.name,
                "score": standing.total,
                "rank": standing.rank,
                "winner": standing.rank == 1,
                "startPlayer": standing.player == 0,
            }
            for standing in standings
        ],
    }
    if rules.preset in BGG_IDS:
        play["game"]["bggId"] = BGG_IDS[rules.preset]
    if length is not None:
        play["durationMin"] = max(1, round(length.total_seconds() / 60))
    return play


def play_link(play: dict[str, Any]) -> str:
    """The link that opens BG Stats with this play to confirm."""
    return PLAY_LINK + quote(json.dumps(play, ensure_ascii=False, separators=(",", ":")))


@dataclass(frozen=True)
class FinishedPlay:
    """What a play of BG Stats says of a finished game, read from its results."""

    game_id: int
    rules: Rules
    started_at: datetime | None
    finished_at: datetime
    standings: tuple[Standing, ...]  # best first, as GameState.ranking gives them

    @property
    def length(self) -> timedelta | None:
        return None if self.started_at is None else self.finished_at - self.started_at


def finished_plays(store: Store, *, household: int) -> Iterator[FinishedPlay]:
    """Every finished game of the household, the earliest first, from its stored results
    (totals and ranks, the names as written on the sheet): no game is replayed."""
    with store.engine.connect() as connection:
        ids = list(
            connection.scalars(
                select(games.c.id)
                .where(games.c.household_id == household, games.c.status == FINISHED)
                .order_by(games.c.finished_at, games.c.id)
            )
        )
    for start in range(0, len(ids), PLAYS_BATCH):
        yield from _plays(store, ids[start : start + PLAYS_BATCH])


def _plays(store: Store, ids: list[int]) -> list[FinishedPlay]:
    with store.engine.connect() as connection:
        found = {
            game.id: game
            for game in connection.execute(
                select(games.c.id, games.c.rules, games.c.started_at).where(games.c.id.in_(ids))
            )
        }
        standings: dict[int, list] = {game_id: [] for game_id in ids}
        ends: dict[int, datetime] = {}
        for row in connection.execute(
            select(
                results.c.game_id,
                results.c.seat,
                results.c.rank,
                results.c.total,
                results.c.finished_at,
                game_players.c.name,
            )
            .join(
                game_players,
                (game_players.c.game_id == results.c.game_id)
                & (game_players.c.seat == results.c.seat),
            )
            .where(results.c.game_id.in_(ids))
            .order_by(results.c.game_id, results.c.rank, results.c.seat)
        ):
            standings[row.game_id].append(Standing(row.rank, row.seat, row.name, row.total))
            ends[row.game_id] = row.finished_at
    # A game deleted, or reopened by an undo, since the ids were listed is left out.
    return [
        FinishedPlay(
            game_id,
            Rules.from_dict(json.loads(found[game_id].rules)),
            found[game_id].started_at,
            ends[game_id],
            tuple(standings[game_id]),
        )
        for game_id in ids
        if game_id in found and standings[game_id]
    ]
