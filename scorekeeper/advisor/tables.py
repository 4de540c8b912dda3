"""What the server knows of the advisor's tables without loading one: which rules have a
table, the file it is kept in, and whether a request for advice can be answered.

Kept apart from the strategy so that a page showing a sheet never imports numpy: the server
starts faster and idles smaller, and only asking for advice loads the tables.
"""

import hashlib
import json
import os
from pathlib import Path

from scorekeeper.rules.dice import Dice, parse_dice
from scorekeeper.rules.errors import RuleError
from scorekeeper.rules.game import GameState
from scorekeeper.rules.labels import N_
from scorekeeper.rules.options import OPTIONS, Rules

# Bumped when the table's layout or meaning changes, so that old cache files are not read.
TABLE_FORMAT = 1

# The options that only change what a box scores: the table covers each of their values.
_TABLE_OPTIONS = tuple(option.name for option in OPTIONS if option.scores_only)


def is_covered(rules: Rules) -> bool:
    """Whether the exact table exists for these rules: one free column of the classique or
    Yatzy sheet with five dice, and no house rule that looks at more than the player's own
    column."""
    return (
        rules.preset in ("classique", "yatzy")
        and rules.columns == ("free",)
        and all(
            getattr(rules, option.name) == option.default
            for option in OPTIONS
            if not option.scores_only
        )
    )


def check_covered(rules: Rules) -> None:
    if not is_covered(rules):
        # What the table's state (filled boxes, upper total, Yams at 50) cannot hold: la
        # vache depends on the other players, Plus et Moins on the values written, ordered
        # or several columns on an order and more boxes, sec and six dice on other throws.
        raise RuleError(
            N_(
                "Le conseil n'existe que pour le Yams classique ou le Yatzy à "
                "cinq dés, sur une seule colonne libre, sans la vache ni Plus et "
                "Moins."
            )
        )


def table_options(rules: Rules) -> dict:
    options = {"format": TABLE_FORMAT, **{name: getattr(rules, name) for name in _TABLE_OPTIONS}}
    if rules.preset != "classique":
        # Named only for the other sheets: the classique tables keep the file names they had.
        options["preset"] = rules.preset
    return options


def check_request(state: GameState, dice: object) -> Dice:
    """The dice read, once the game and the dice are known to have advice (else RuleError)."""
    check_covered(state.rules)
    if state.is_over:
        raise RuleError(N_("La partie est terminée : il n'y a plus rien à conseiller."))
    return parse_dice(dice, state.rules.dice)


THROWS = (1, 2, 3)
LAST_THROW = 3


def check_throw(throw: object) -> int:
    """Which throw of the turn the dice come from (1, 2 or 3; 3 when not given)."""
    if throw is None or throw == "":
        return LAST_THROW
    text = str(throw).strip()
    if text not in {str(number) for number in THROWS}:
        raise RuleError(
            N_("« {value} » n'est pas un lancer : choisissez 1, 2 ou 3."), value=text[:10]
        )
    return int(text)


CACHE_GLOB = "advisor-*.npy"


def cache_path(rules: Rules, instance_dir: str | os.PathLike) -> Path:
    """The table's file in the instance folder, named by a hash of the options it depends on."""
    options = json.dumps(table_options(rules), sort_keys=True)
    digest = hashlib.sha256(options.encode()).hexdigest()
    return Path(instance_dir) / CACHE_GLOB.replace("*", digest[:16])
