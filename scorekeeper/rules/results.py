"""What each player's sheet of a finished game adds up to: its result, read from the
replayed state (the store keeps it for the hall of fame; the card and the review show it);
and the key of the rule set whose results compare with one another.
"""

import hashlib
import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scorekeeper.rules.dice import is_yams
from scorekeeper.rules.game import GameState
from scorekeeper.rules.rule_set import Rules

RULES_KEY_LENGTH = 16


@dataclass(frozen=True)
class SeatResult:
    """What one player's sheet of a finished game adds up to."""

    seat: int
    player_count: int
    total: int
    upper: int
    upper_bonus: int
    lower: int
    yams_bonus: int
    column_count: int
    bonus_columns: int
    yams_count: int
    barred_count: int
    barred_cells: str
    # The cells left empty by a game won at once (a Generala servida), as barred_cells.
    empty_cells: str
    rank: int
    won: bool


def seat_results(state: GameState) -> tuple[SeatResult, ...]:
    """Every seat's result of a finished game, read from its replayed state."""
    if not state.is_over:
        raise ValueError("only a finished game has results")
    ranks = {standing.player: standing.rank for standing in state.ranking()}
    # A Maxi Yatzy's Yams is its six dice alike (docs/rules.md §15); five of six are a Femtal.
    alike = (lambda dice: len(set(dice)) == 1) if state.rules.is_maxi_yatzy else is_yams
    yams = Counter(entry.player for entry in state.entries if alike(entry.dice))
    player_count = len(state.players)
    seats = []
    for seat, sheet in enumerate(state.sheets):
        barred = [
            f"{kind}:{box}"
            for kind, column in sheet.columns.items()
            for box in state.rules.boxes
            if box in column.cells and column.cells[box].barred
        ]
        # A game won at once (a Generala servida) ends with boxes left empty.
        empty = [
            f"{kind}:{box}"
            for kind, column in sheet.columns.items()
            for box in state.rules.boxes
            if box not in column.cells
        ]
        seats.append(
            SeatResult(
                seat=seat,
                player_count=player_count,
                total=sheet.total,
                upper=sheet.upper,
                upper_bonus=sheet.upper_bonus,
                lower=sheet.lower,
                yams_bonus=sheet.yams_bonus,
                column_count=len(sheet.columns),
                bonus_columns=sum(1 for column in sheet.columns.values() if column.upper_bonus),
                yams_count=yams[seat],
                barred_count=len(barred),
                barred_cells=" ".join(barred),
                empty_cells=" ".join(empty),
                rank=ranks[seat],
                # Alone at the table, nobody is beaten: a win needs an opponent.
                won=ranks[seat] == 1 and player_count > 1,
            )
        )
    return tuple(seats)


def canonical_rules(rules: Mapping[str, Any]) -> str:
    """The one JSON text of a set of rules, whatever defaults its dict left implicit."""
    return json.dumps(Rules.from_dict(dict(rules)).to_dict(), sort_keys=True, separators=(",", ":"))


def rules_key(rules: Mapping[str, Any]) -> str:
    """The key grouping comparable games: equal rules give equal keys in every instance."""
    digest = hashlib.sha256(canonical_rules(rules).encode("utf-8")).hexdigest()
    return digest[:RULES_KEY_LENGTH]
