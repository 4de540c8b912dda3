"""Game documents as an import reads them: each one checked by replaying it, before
anything is written, and every problem named with its file, document and entry.

A document is the ``replay`` format (``rules``, ``players``, ``entries``), with, as an
export writes it (store/transfer.py), ``id``, ``status``, ``created_at``, ``started_at``,
``finished_at`` and ``identities``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from scorekeeper.rules import (
    GameState,
    IllegalEntry,
    RuleError,
    check_players,
    read_document,
)
from scorekeeper.rules.document import read_json
from scorekeeper.rules.labels import N_
from scorekeeper.store.engine import utc_now
from scorekeeper.store.errors import StoreError
from scorekeeper.store.records import FINISHED, GAME_STATUSES, IN_PROGRESS


def _identity(text: str) -> str:
    return text


@dataclass(frozen=True)
class Problem:
    """Why one document of one file cannot be imported."""

    file: str
    # Position in the file's array, from 1; None when the file holds a single document.
    document: int | None
    error: RuleError

    @property
    def entry(self) -> int | None:
        return self.error.number if isinstance(self.error, IllegalEntry) else None

    def render(self, translate: Callable[[str], str] = _identity) -> str:
        """The problem in one sentence: the file, the game, the entry, then what is wrong."""
        where = [self.file]
        if self.document is not None:
            where.append(translate(N_("partie {number}")).format(number=self.document))
        if self.entry is not None:
            where.append(translate(N_("entrée {number}")).format(number=self.entry))
        # One message, not a join: the space before the colon is French typography.
        return translate(N_("{where} : {problem}")).format(
            where=", ".join(where), problem=self.error.render(translate)
        )


class ImportRefused(StoreError):
    """At least one document is not a legal game: nothing was imported."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        super().__init__("; ".join(problem.render() for problem in problems))
        self.problems = tuple(problems)

    def __reduce__(self):
        # Raised in an import's worker process, read in the server's.
        return ImportRefused, (self.problems,)


@dataclass(frozen=True)
class GameImport:
    """A checked game, ready to be written."""

    file: str
    document: int | None
    state: GameState
    identities: tuple[str, ...]
    status: str
    created_at: datetime
    finished_at: datetime | None
    started_at: datetime | None = None


# The dates a game may carry: no family played Yams before 1900, and a later year than
# 9998 leaves no room for a time zone's offset within datetime's range.
FIRST_DATE = datetime(1900, 1, 1, tzinfo=UTC)
LAST_DATE = datetime(9998, 12, 31, tzinfo=UTC)


def _date(data: dict, name: str) -> datetime | None:
    value = data.get(name)
    if value is None:
        return None
    try:
        if not isinstance(value, str):
            raise ValueError
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise RuleError(
            N_(
                "« {name} » est une date ISO 8601 (par exemple "
                "2024-07-14T20:30:00+02:00), pas « {value} »."
            ),
            name=name,
            value=value,
        ) from None
    # A date typed without its offset, or a bare day, is taken as UTC.
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    if not FIRST_DATE <= moment <= LAST_DATE:
        # Outside them, the shift to UTC overflows datetime (0001-01-01T00:00:00+01:00).
        raise RuleError(
            N_("« {name} » : la date {value} n'est pas entre l'an {first} et l'an {last}."),
            name=name,
            value=value,
            first=FIRST_DATE.year,
            last=LAST_DATE.year,
        )
    return moment.astimezone(UTC)


def _status(data: dict, state: GameState) -> str:
    status = data.get("status")
    if status is None:
        return FINISHED if state.is_over else IN_PROGRESS
    if not isinstance(status, str) or status not in GAME_STATUSES:
        raise RuleError(
            N_("« status » vaut in_progress, finished ou abandoned, pas « {value} »."), value=status
        )
    if status == FINISHED and not state.is_over:
        raise RuleError(
            N_("« status » dit finished, mais la partie n'a que {filled} entrées sur {needed}."),
            filled=len(state.entries),
            needed=len(state.players) * state.rules.turns_per_player,
        )
    if status != FINISHED and state.is_over:
        raise RuleError(
            N_(
                "« status » dit {value}, mais toutes les cases sont remplies : "
                "la partie est terminée (finished)."
            ),
            value=status,
        )
    return status


def _identities(data: dict, names: tuple[str, ...]) -> tuple[str, ...]:
    identities = data.get("identities")
    if identities is None:
        return names
    if not isinstance(identities, list) or len(identities) != len(names):
        raise RuleError(
            N_("« identities » donne le joueur de chaque place : une liste de {count} noms."),
            count=len(names),
        )
    check_players(identities)
    return tuple(identities)


def check_document(data: object, file: str, document: int | None, now: datetime) -> GameImport:
    """A game document checked by its replay; RuleError (IllegalEntry) says what is wrong."""
    state = read_document(data).replay()
    status = _status(data, state)
    created_at, finished_at = _date(data, "created_at"), _date(data, "finished_at")
    started_at = _date(data, "started_at")
    if finished_at is not None and status != FINISHED:
        raise RuleError(N_("« finished_at » ne va qu'avec une partie terminée."))
    if started_at is not None and not state.entries:
        raise RuleError(N_("« started_at » ne va qu'avec une partie commencée."))
    if status == FINISHED:
        finished_at = finished_at or created_at or started_at or now
    created_at = created_at or started_at or finished_at or now
    if finished_at is not None and finished_at < created_at:
        raise RuleError(N_("« finished_at » précède « created_at »."))
    if started_at is not None and started_at < created_at:
        raise RuleError(N_("« started_at » précède « created_at »."))
    if started_at is not None and finished_at is not None and finished_at < started_at:
        raise RuleError(N_("« finished_at » précède « started_at »."))
    return GameImport(
        file,
        document,
        state,
        _identities(data, state.players),
        status,
        created_at,
        finished_at,
        started_at,
    )


def _documents(content: bytes | str) -> list[object] | dict:
    try:
        text = content.decode("utf-8-sig") if isinstance(content, bytes) else content
    except UnicodeDecodeError:
        raise RuleError(
            N_("Ce fichier n'est pas du texte UTF-8 : est-ce bien un export du Yams ?")
        ) from None
    return read_json(text)


def check_files(files: Iterable[tuple[str, bytes | str]]) -> list[GameImport]:
    """Every game of every file, checked; ImportRefused lists every problem found."""
    now = utc_now()
    checked: list[GameImport] = []
    problems: list[Problem] = []
    for file, content in files:
        try:
            data = _documents(content)
            if isinstance(data, list) and not data:
                raise RuleError(N_("Ce fichier ne contient aucune partie."))
            if not isinstance(data, (list, dict)):
                raise RuleError(
                    N_(
                        "Un fichier d'import contient une partie (un objet JSON) ou "
                        "une liste de parties, comme un export."
                    )
                )
        except RuleError as error:
            problems.append(Problem(file, None, error))
            continue
        numbered = enumerate(data, start=1) if isinstance(data, list) else [(None, data)]
        for number, document in numbered:
            try:
                checked.append(check_document(document, file, number, now))
            except RuleError as error:
                problems.append(Problem(file, number, error))
    if problems:
        raise ImportRefused(problems)
    return checked


# Staging: one temporary table per table an import writes, on the import's own connection.
# They are filled before the transaction that writes (on SQLite a temporary table is another
# database: filling it takes no lock on the games'), which then copies them in with one
# INSERT ... SELECT each, run by the database alone.
