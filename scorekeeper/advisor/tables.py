"""What the server knows of the advisor's tables without loading one: the tables a game needs
(one per column kind), the files they are kept in, how exact the advice is for a rule set,
and whether a request for advice can be answered.

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
from scorekeeper.rules.options import OPTIONS
from scorekeeper.rules.rule_set import Rules

# Bumped when the table's layout or meaning changes, so that old cache files are not read.
TABLE_FORMAT = 2

# The options a column's table depends on: what the boxes score and how many dice are thrown.
_TABLE_OPTIONS = tuple(option.name for option in OPTIONS if option.scores_only) + (
    "dice",
    "plus_minus",
)

# Presets whose boxes score as the classique sheet's under the same options: Yahtzee differs
# only by its names (docs/rules.md §12), so it plays on the classique tables.
CLASSIQUE_TABLES = frozenset({"classique", "yahtzee"})

# Columns played in one throw a turn (Yams sec): their dice are those of the first throw.
ONE_THROW_COLUMNS = frozenset({"sec"})

# How exact the advice is, one key per kind of rule set (the pages say it in one line):
# the optimal solitaire strategy; the same for the turn being played, la vache's floors
# counted exactly, later turns valued by the solitaire table; a policy made of the columns'
# exact tables, measured by simulation (docs/advisor.md); Maxi Yatzy's policy, played against
# an estimate of the sheet, measured against a proven bound (advisor/maxi.py).
EXACT = "exact"
EXACT_THIS_TURN = "exact_this_turn"
POLICY = "policy"
MAXI_POLICY = "maxi_policy"
# Each key in one line, as the page and the commands say it.
QUALITY_LINES = {
    EXACT: N_("Conseil exact : la meilleure stratégie en solitaire."),
    EXACT_THIS_TURN: N_(
        "Conseil exact pour ce tour, planchers de la vache compris ; les tours suivants sont "
        "estimés par la stratégie en solitaire, qui ignore la vache."
    ),
    POLICY: N_(
        "Conseil estimé : chaque colonne jouée au mieux, la colonne choisie selon les dés "
        "(mesuré en simulant des parties, il fait bien mieux que jouer les colonnes chacune "
        "son tour)."
    ),
    MAXI_POLICY: N_(
        "Conseil estimé : chaque tour joué au mieux contre une estimation de la suite de la "
        "partie. Sur %(games)s parties simulées, il marque %(mean)s points en moyenne ; "
        "aucune façon de jouer ne peut dépasser %(bound)s en moyenne (borne prouvée) : il "
        "en est à %(gap)s points au plus."
    ),
}
# What bench/maxi_yatzy.py measured of Maxi Yatzy's policy, as the quality line says it
# (docs/performance.md, "Maxi Yatzy's Conseil"): its mean over that many games, and the
# bound that advisor/maxi.py proves (tests/advisor/test_maxi.py recomputes it).
MAXI_FIGURES = {"games": 20_000, "mean": 462.3, "bound": 560.5}


def quality_figures(rules: Rules) -> dict[str, float]:
    """The figures the quality line of these rules says (none but Maxi Yatzy's)."""
    if not rules.saves_throws:
        return {}
    return MAXI_FIGURES | {"gap": round(MAXI_FIGURES["bound"] - MAXI_FIGURES["mean"], 1)}


def advice_quality(rules: Rules, players: int) -> str:
    """How exact the advice is for a game of these rules and this many players."""
    if rules.saves_throws:
        return MAXI_POLICY
    if len(rules.columns) > 1:
        return POLICY
    if rules.vache and players > 1:
        return EXACT_THIS_TURN
    return EXACT


def has_win_chances(rules: Rules) -> bool:
    """Whether the chances to win (« Pour gagner ») are computed for these rules: one free
    column of five dice, without Plus et Moins; any preset, Generala and its instant win
    included, any scoring option, with or without la vache (docs/advisor-winning.md says why
    the others are not)."""
    return rules.columns == ("free",) and rules.dice == 5 and not rules.plus_minus


def table_options(rules: Rules, kind: str = "free") -> dict:
    """What the table of one column kind of these rules depends on."""
    options = {
        "format": TABLE_FORMAT,
        "kind": kind,
        **{name: getattr(rules, name) for name in _TABLE_OPTIONS},
    }
    if rules.preset not in CLASSIQUE_TABLES:
        options["preset"] = rules.preset
    return options


def check_request(state: GameState, dice: object) -> Dice:
    """The dice read, once the game is known to be in play (else RuleError)."""
    if state.is_over:
        raise RuleError(N_("La partie est terminée : il n'y a plus rien à conseiller."))
    return parse_dice(dice, state.rules.dice)


THROWS = (1, 2, 3)
LAST_THROW = 3


def check_throw(throw: object, most: int = LAST_THROW) -> int:
    """Which throw of the turn the dice come from (1 to ``most``: 3, or Maxi Yatzy's throws
    at hand; 3 when not given)."""
    if throw is None or throw == "":
        return LAST_THROW
    text = str(throw).strip()
    if text not in {str(number) for number in range(1, max(most, LAST_THROW) + 1)}:
        if most > LAST_THROW:
            raise RuleError(
                N_("« {value} » n'est pas un lancer : choisissez de 1 à {most}."),
                value=text[:10],
                most=most,
            )
        raise RuleError(
            N_("« {value} » n'est pas un lancer : choisissez 1, 2 ou 3."), value=text[:10]
        )
    return int(text)


def turn_throws(state: GameState) -> int:
    """How many throws the active player's turn has: one when every column left open to
    them is played sec; in Maxi Yatzy, three and those saved; else three."""
    player = state.active_player
    if player is None:
        return LAST_THROW
    if state.rules.saves_throws:
        return state.throws_at_hand(player)
    open_kinds = {
        kind for kind, column in state.sheets[player].columns.items() if not column.is_full
    }
    return 1 if open_kinds <= ONE_THROW_COLUMNS else LAST_THROW


def is_last_throw(state: GameState, throw: int) -> bool:
    """Whether dice of this ``throw`` are the turn's last, to be scored (else some are kept
    and the others thrown again): the 3rd throw, or the only one of a turn left with Sec
    columns alone."""
    return throw >= turn_throws(state)


CACHE_GLOB = "advisor-*.npy"


def cache_path(rules: Rules, instance_dir: str | os.PathLike, kind: str | None = None) -> Path:
    """The file of the table of one column kind (the game's first column by default) in the
    instance folder, named by a hash of the options it depends on."""
    options = json.dumps(table_options(rules, kind or rules.columns[0]), sort_keys=True)
    digest = hashlib.sha256(options.encode()).hexdigest()
    return Path(instance_dir) / CACHE_GLOB.replace("*", digest[:16])


def spreads_path(rules: Rules, instance_dir: str | os.PathLike) -> Path:
    """The spreads' file, beside the free column's table (same name with ``-spreads``)."""
    table = cache_path(rules, instance_dir, "free")
    return table.with_name(f"{table.stem}-spreads{table.suffix}")


def tables_saved(rules: Rules, instance_dir: str | os.PathLike, *, with_chances: bool) -> bool:
    """Whether the files of every table these rules need are in the instance folder (their
    spreads too where ``with_chances`` and the rules have chances to win), read from the
    folder alone: the server learns it without numpy. Maxi Yatzy's policy has none to
    build."""
    if rules.saves_throws:
        return True
    paths = [cache_path(rules, instance_dir, kind) for kind in rules.columns]
    if with_chances and has_win_chances(rules):
        paths.append(spreads_path(rules, instance_dir))
    return all(path.exists() for path in paths)
