"""The game itself, pure Python: no Flask, no database, no I/O.

Everything the app shows about a game comes from a replay of its entries here.
"""

from scorekeeper.rules.dice import Dice, is_yams, parse_dice, yams_face
from scorekeeper.rules.document import Document, read_document, write_document
from scorekeeper.rules.errors import RuleError
from scorekeeper.rules.game import GameState, IllegalEntry, replay
from scorekeeper.rules.labels import BOX_LABELS, COLUMN_LABELS, PRESET_LABELS
from scorekeeper.rules.options import UPPER_BOXES
from scorekeeper.rules.players import check_players
from scorekeeper.rules.rule_set import Rules
from scorekeeper.rules.scoring import is_variable, score
from scorekeeper.rules.sheet import (
    BARRED_BY_DICE,
    BARRED_BY_PLUS_MINUS,
    BARRED_BY_VACHE,
    Column,
    Entry,
    Placement,
    Score,
    Sheet,
    Standing,
)

__all__ = [
    "BARRED_BY_DICE",
    "BARRED_BY_PLUS_MINUS",
    "BARRED_BY_VACHE",
    "BOX_LABELS",
    "COLUMN_LABELS",
    "PRESET_LABELS",
    "UPPER_BOXES",
    "Column",
    "Dice",
    "Document",
    "Entry",
    "GameState",
    "IllegalEntry",
    "Placement",
    "Rules",
    "RuleError",
    "Score",
    "Sheet",
    "Standing",
    "check_players",
    "is_variable",
    "is_yams",
    "parse_dice",
    "read_document",
    "replay",
    "score",
    "write_document",
    "yams_face",
]
