"""A finished game as BG Stats, the board gamers' play logger, imports a play from another
app: a JSON document given to its ``createPlay`` link, which opens BG Stats on the tablet
with the play filled in for the player to confirm (docs/architecture.md, "BG Stats").

The document: ``sourceName`` (the app the play comes from), ``sourcePlayId`` (the same
play sent twice is one play), ``playDate`` (local time, "YYYY-MM-DD HH:MM:SS"),
``durationMin`` where the length is known, ``comments``, ``game`` (its name, its
BoardGameGeek id, an id of our own, highest score wins) and ``players`` (name, an id of our
own, score, rank, winner, who played first). Every rule set is a game of Yahtzee on
BoardGameGeek, whose id it carries; the rules in words go in the comments.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote

from scorekeeper.rules import GameState

SOURCE_NAME = "Yams score keeper"
# BoardGameGeek's Yahtzee: the game Yams, Yatzy and Kniffel are all logged as.
YAHTZEE_BGG_ID = 2243
PLAY_LINK = "https://app.bgstatsapp.com/createPlay.html?data="
DATE_FORM = "%Y-%m-%d %H:%M:%S"


def bgstats_play(
    game_id: int,
    state: GameState,
    played_at: datetime,
    length: timedelta | None,
    rules_words: str,
    game_name: str = "Yams",
) -> dict[str, Any]:
    """The BG Stats play of a finished game; ``played_at`` is when it started (or ended,
    where the start is not known), in the household's time."""
    play: dict[str, Any] = {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": f"yams-{game_id}",
        "playDate": played_at.strftime(DATE_FORM),
        "comments": rules_words,
        "game": {
            "name": game_name,
            "bggId": YAHTZEE_BGG_ID,
            "sourceGameId": "yams",
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
            for standing in state.ranking()
        ],
    }
    if length is not None:
        play["durationMin"] = max(1, round(length.total_seconds() / 60))
    return play


def play_link(play: dict[str, Any]) -> str:
    """The link that opens BG Stats with this play to confirm."""
    return PLAY_LINK + quote(json.dumps(play, ensure_ascii=False, separators=(",", ":")))
