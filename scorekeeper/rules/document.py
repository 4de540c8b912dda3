"""Game documents: the JSON form of a game used by ``replay``, import and export.

{"rules": {"preset": "classique"},
 "players": ["Mag", "Alix"],
 "entries": [{"player": "Mag", "box": "sixes", "dice": [6, 6, 6, 6, 2]}, ...]}

An entry of a Generala game may say the throw its dice came from (``"throw": 1``, a
servida); an entry of a Maxi Yatzy game the throws its turn used (``"throws": 4``, one saved
before). The rules derive what it scores, and the throws each player has saved.
"""

import json
from dataclasses import dataclass

from scorekeeper.rules.errors import RuleError
from scorekeeper.rules.game import GameState, IllegalEntry, replay
from scorekeeper.rules.labels import N_
from scorekeeper.rules.players import check_players
from scorekeeper.rules.rule_set import Rules
from scorekeeper.rules.sheet import Entry

# A file of documents nests five levels (the list, a game, its entries, an entry, its
# dice); deeper is not a game, and Python's parser would run out of stack near 1,000.
MAX_JSON_DEPTH = 8
# Longer numbers than any a game has (a date's year is text); int() stops at 4,300 digits.
MAX_JSON_DIGITS = 20


class _NotAGameNumber(ValueError):
    """A number JSON allows but no game document has."""


def _json_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_JSON_DIGITS:
        raise _NotAGameNumber(
            RuleError(
                N_(
                    "Ce fichier contient un nombre de plus de {most} chiffres : ce n'est pas "
                    "une partie."
                ),
                most=MAX_JSON_DIGITS,
            )
        )
    return int(text)


def _json_constant(name: str) -> None:
    raise _NotAGameNumber(
        RuleError(N_("Ce fichier contient « {value} », qui n'est pas un nombre JSON."), value=name)
    )


def _depth(value: object) -> int:
    """How many lists and objects nest in ``value``, counted without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if deepest > MAX_JSON_DEPTH:
                break
            stack.extend(
                (child, depth + 1) for child in (item.values() if isinstance(item, dict) else item)
            )
    return deepest


def read_json(text: str) -> object:
    """The JSON value of a game file; RuleError when it is not JSON or could be no game:
    nested too deep, a number too long, NaN or Infinity (Python's json takes all three)."""
    too_deep = RuleError(
        N_(
            "Ce fichier imbrique plus de {most} niveaux de listes ou "
            "d'objets : ce n'est pas une partie."
        ),
        most=MAX_JSON_DEPTH,
    )
    try:
        value = json.loads(text, parse_int=_json_int, parse_constant=_json_constant)
    except json.JSONDecodeError as error:
        raise RuleError(
            N_("Ce fichier n'est pas du JSON valide (ligne {line}, colonne {column})."),
            line=error.lineno,
            column=error.colno,
        ) from None
    except _NotAGameNumber as error:
        raise error.args[0] from None
    except RecursionError:
        raise too_deep from None
    if _depth(value) > MAX_JSON_DEPTH:
        raise too_deep
    return value


@dataclass(frozen=True)
class Document:
    rules: Rules
    players: tuple[str, ...]
    entries: tuple[Entry, ...]

    def replay(self) -> GameState:
        return replay(self.rules, self.players, self.entries)


def read_document(data: object) -> Document:
    """A document from parsed JSON; RuleError (IllegalEntry for an entry) says what is wrong."""
    if not isinstance(data, dict):
        raise RuleError(
            N_(
                "Un document de partie est un objet JSON avec « rules », "
                "« players » et « entries »."
            )
        )
    rules = Rules.from_dict(data.get("rules"))
    players = data.get("players")
    if not isinstance(players, list):
        raise RuleError(N_("« players » doit être la liste des noms des joueurs."))
    check_players(players)
    raw_entries = data.get("entries", [])
    if not isinstance(raw_entries, list):
        raise RuleError(N_("« entries » doit être la liste des entrées, dans l'ordre du jeu."))
    entries = tuple(
        _read_entry(number, raw, rules, players) for number, raw in enumerate(raw_entries, start=1)
    )
    return Document(rules, tuple(players), entries)


def write_document(state: GameState) -> dict:
    """The document that replays to ``state``."""
    single_column = len(state.rules.columns) == 1
    entries = []
    for entry in state.entries:
        written = {
            "player": state.players[entry.player],
            "box": entry.box,
            "dice": list(entry.dice),
        }
        if not single_column:
            written["column"] = entry.column
        if entry.throw is not None:
            written["throw"] = entry.throw
        if entry.throws is not None:
            written["throws"] = entry.throws
        entries.append(written)
    return {"rules": state.rules.to_dict(), "players": list(state.players), "entries": entries}


def _read_entry(number: int, raw: object, rules: Rules, players: list[str]) -> Entry:
    try:
        if not isinstance(raw, dict):
            raise RuleError(N_("une entrée est un objet avec « player », « box » et « dice »."))
        for key in raw:
            if key not in ("player", "box", "dice", "column", "throw", "throws"):
                raise RuleError(N_("clé inconnue « {name} »."), name=key)
        name = raw.get("player")
        if not isinstance(name, str) or name not in players:
            raise RuleError(N_("joueur inconnu « {name} »."), name=name)
        if "column" in raw:
            column = raw["column"]
        elif len(rules.columns) == 1:
            column = rules.columns[0]
        else:
            raise RuleError(N_("précisez la colonne (« column ») : cette partie en a plusieurs."))
        box, dice = raw.get("box"), raw.get("dice")
        for key, value in (("column", column), ("box", box)):
            if not isinstance(value, str):
                raise RuleError(
                    N_("« {name} » est un nom entre guillemets, pas « {value} »."),
                    name=key,
                    value=value,
                )
        # A die is a whole number in a list: "66662", 6.0 or true are not dice in a file,
        # whatever a player may type on the sheet.
        if not isinstance(dice, list) or any(type(die) is not int for die in dice):
            raise RuleError(
                N_("« dice » est la liste des dés, par exemple [6, 6, 6, 6, 2], pas « {value} »."),
                value=dice,
            )
        throw = raw.get("throw")
        # A throw is a whole number, 1 to 3 (the rules say which they count): not "1" or true.
        if "throw" in raw and type(throw) is not int:
            raise RuleError(
                N_("« throw » est le lancer d'où viennent les dés : 1, 2 ou 3, pas « {value} »."),
                value=throw,
            )
        throws = raw.get("throws")
        # The throws a turn used: a whole number (the rules say how many the player has).
        if "throws" in raw and type(throws) is not int:
            raise RuleError(
                N_("« throws » est le nombre de lancers du tour, par exemple 4, pas « {value} »."),
                value=throws,
            )
        return Entry(players.index(name), column, box, dice, throw, throws)
    except RuleError as error:
        raise IllegalEntry(number, error) from error
