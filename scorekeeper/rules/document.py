"""Game documents: the JSON form of a game used by ``replay``, import and export.

    {"rules": {"preset": "classique"},
     "players": ["Mag", "Alix"],
     "entries": [{"player": "Mag", "box": "sixes", "dice": [6, 6, 6, 6, 2]}, ...]}
"""

from dataclasses import dataclass

from scorekeeper.rules.errors import RuleError
from scorekeeper.rules.game import Entry, GameState, IllegalEntry, check_players, replay
from scorekeeper.rules.labels import N_
from scorekeeper.rules.options import Rules


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
        raise RuleError(N_("Un document de partie est un objet JSON avec « rules », "
                           "« players » et « entries »."))
    rules = Rules.from_dict(data.get("rules"))
    players = data.get("players")
    if not isinstance(players, list):
        raise RuleError(N_("« players » doit être la liste des noms des joueurs."))
    check_players(players)
    raw_entries = data.get("entries", [])
    if not isinstance(raw_entries, list):
        raise RuleError(N_("« entries » doit être la liste des entrées, dans l'ordre du jeu."))
    entries = tuple(
        _read_entry(number, raw, rules, players)
        for number, raw in enumerate(raw_entries, start=1)
    )
    return Document(rules, tuple(players), entries)


def write_document(state: GameState) -> dict:
    """The document that replays to ``state``."""
    single_column = len(state.rules.columns) == 1
    entries = []
    for entry in state.entries:
        written = {"player": state.players[entry.player], "box": entry.box,
                   "dice": list(entry.dice)}
        if not single_column:
            written["column"] = entry.column
        entries.append(written)
    return {"rules": state.rules.to_dict(), "players": list(state.players), "entries": entries}


def _read_entry(number: int, raw: object, rules: Rules, players: list[str]) -> Entry:
    try:
        if not isinstance(raw, dict):
            raise RuleError(N_("une entrée est un objet avec « player », « box » et « dice »."))
        for key in raw:
            if key not in ("player", "box", "dice", "column"):
                raise RuleError(N_("clé inconnue « {name} »."), name=key)
        name = raw.get("player")
        if name not in players:
            raise RuleError(N_("joueur inconnu « {name} »."), name=name)
        if "column" in raw:
            column = raw["column"]
        elif len(rules.columns) == 1:
            column = rules.columns[0]
        else:
            raise RuleError(N_("précisez la colonne (« column ») : cette partie en a "
                               "plusieurs."))
        return Entry(players.index(name), column, raw.get("box"), raw.get("dice"))
    except RuleError as error:
        raise IllegalEntry(number, error) from error
