"""Who may sit at a game: 1 to 10 players, each with a name of their own."""

from collections.abc import Sequence

from scorekeeper.rules.errors import RuleError
from scorekeeper.rules.labels import N_

MAX_PLAYERS = 10
MAX_NAME_LENGTH = 40


def check_players(players: Sequence[str]) -> None:
    """1 to 10 players, names of 1 to 40 printable characters, no two alike ignoring case."""
    if not 1 <= len(players) <= MAX_PLAYERS:
        raise RuleError(
            N_("Une partie se joue de 1 à {most} joueurs, pas {count}."),
            most=MAX_PLAYERS,
            count=len(players),
        )
    seen = set()
    for name in players:
        if not isinstance(name, str) or not name.strip():
            raise RuleError(N_("Chaque joueur a besoin d'un nom."))
        if len(name) > MAX_NAME_LENGTH:
            raise RuleError(
                N_("Le nom « {name} » dépasse {most} caractères."), name=name, most=MAX_NAME_LENGTH
            )
        if not name.isprintable():
            raise RuleError(N_("Le nom « {name} » contient des caractères invisibles."), name=name)
        key = name.strip().casefold()
        if key in seen:
            raise RuleError(N_("Deux joueurs ne peuvent pas s'appeler « {name} »."), name=name)
        seen.add(key)
