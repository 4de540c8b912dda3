"""The coach: for each finished game, the points each player left to the Conseil, counted in
the background and kept, so that a player's page shows how they play over the months and the
hall of fame names the most precise player of each rule set.

A player's figure for a game is the review's (advisor/review.py): the sum, over their turns,
of the best box's expected final total minus the chosen box's, from the advisor's tables;
counted only where the Conseil is exact, or exact for the turn and says what it estimates
(``counted_by_the_coach``). It is never computed in a request: the turn that finishes a game
hands it to the coach (``game_finished``), whose thread reads the game and has a worker
process (scorekeeper/workers.py, at a lower priority than the request threads; the pool
of the Conseil's builds, in turn with them) replay and review it, then writes each seat's
figure (store/coach.py). A game whose tables are not built yet waits: when a build saves
them (advisor/builds.py, ``Strategies.when_built``), the coach looks again at every
household's games (``sweep_all``), as it does once after a start, for the games finished
before it existed, and after an import (``sweep_household``).

One thread a server process, started by the first thing asked and asleep whenever nothing
is: an idle server runs nothing, and the request that finishes a game only wakes it. A game
just finished comes before the rest of a sweep, which goes a batch at a time, each
household's latest games first.
"""

from __future__ import annotations

import fcntl
import logging
import threading
from collections import deque
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import IO

from scorekeeper.advisor.review import counted_by_the_coach, review_game, rule_set_counted
from scorekeeper.advisor.tables import tables_saved
from scorekeeper.rules import Entry, Rules, replay
from scorekeeper.store.coach import SeatFigure, games_awaiting_coach, record_coach_figures
from scorekeeper.store.engine import Store
from scorekeeper.store.games import load_game
from scorekeeper.store.halloffame import list_rule_sets
from scorekeeper.store.households import household_ids
from scorekeeper.store.records import FINISHED, GameRecord
from scorekeeper.workers import WorkerFailed, Workers

logger = logging.getLogger(__name__)

# Games a worker reviews in one job: a few seconds of a core, the tables loaded once.
BATCH = 50
# Held for its life by the one process of a server (gunicorn runs several) that looks at
# every household's games after a start.
START_LOCK_FILE = "coach-start.lock"


def review_games(instance_path: str, games: Sequence[GameRecord]) -> list[list[SeatFigure] | None]:
    """The job of a worker process: each finished game's figures by seat, from the tables
    saved in ``instance_path``; None for a game whose tables are not there (any more)."""
    from scorekeeper.advisor.strategy import load  # numpy: in the worker only

    strategies = {}
    figures: list[list[SeatFigure] | None] = []
    for record in games:
        rules = Rules.from_dict(record.rules)
        if rules not in strategies:
            strategies[rules] = load(rules, instance_path)
        if strategies[rules] is None:
            figures.append(None)
            continue
        # With each entry's throw: a Generala servida scores more, and may end the game; and
        # its throws, which Maxi Yatzy's replay checks against those saved.
        entries = (
            Entry(entry.seat, entry.column, entry.box, entry.dice, entry.throw, entry.throws)
            for entry in record.entries
        )
        _turns, players = review_game(strategies[rules], replay(rules, record.players, entries))
        figures.append(
            [SeatFigure(player.given_away, player.turns, player.best_turns) for player in players]
        )
    return figures


class Coach:
    """The coach of one server process: what is asked of it is done by its own thread, one
    step at a time, the games just finished first, its reviews run by ``workers``: the
    Conseil's build pool (advisor/builds.py), so that a review and a build never run at once
    and a family's two cores keep one for the tablets."""

    def __init__(
        self,
        store: Store,
        instance_path: str,
        workers: Workers,
    ) -> None:
        self.store = store
        self.instance_path = instance_path
        self.workers = workers
        # Guards the queues below; the thread sleeps on it while they are empty.
        self._lock = threading.Condition()
        self._finished: deque[tuple[int, int]] = deque()  # (household, game)
        # Households to look at whole (None: every one), then the walks that does: a rule
        # set's games without figures, newest first, from the (end, id) reached.
        self._sweeps: deque[int | None] = deque()
        self._walks: deque[tuple[int, str, tuple[datetime, int] | None]] = deque()
        self._thread: threading.Thread | None = None
        self._idle = threading.Event()
        self._idle.set()
        self._start_lock: IO | None = None

    def game_finished(self, game_id: int, *, household: int) -> None:
        """A game of ``household`` has just finished: its figures, in the background."""
        self._ask(lambda: self._finished.append((household, game_id)))

    def sweep_household(self, *, household: int) -> None:
        """Every finished game of ``household`` without figures (an import just wrote some)."""
        self._ask(lambda: self._sweeps.append(household))

    def sweep_all(self) -> None:
        """Every finished game of every household without figures (a table was just built)."""
        self._ask(lambda: self._sweeps.append(None))

    def sweep_at_start(self) -> None:
        """After a start, the games finished before (the coach's first start, the server
        stopped before it counted them, tables built by `scorekeeper strategy`): looked at
        by one process of the server, the others skip it."""
        Path(self.instance_path).mkdir(parents=True, exist_ok=True)
        # Held open, and locked, for the life of the process.
        lock = open(Path(self.instance_path) / START_LOCK_FILE, "w")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            return
        self._start_lock = lock
        self.sweep_all()

    def wait_idle(self, timeout: float) -> bool:
        """Whether everything asked was done within ``timeout`` seconds."""
        return self._idle.wait(timeout)

    def _ask(self, add: Callable[[], None]) -> None:
        # Cheap enough for the request that finishes a game: the thread is started once,
        # by the first thing asked, and then woken.
        with self._lock:
            add()
            self._idle.clear()
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="coach", daemon=True)
                self._thread.start()
            self._lock.notify()

    def _run(self) -> None:
        while True:
            with self._lock:
                while not (self._finished or self._walks or self._sweeps):
                    self._idle.set()
                    self._lock.wait()  # asleep, costing nothing, until something is asked
                if self._finished:
                    step, args = self._count_game, self._finished.popleft()
                elif self._walks:
                    step, args = self._walk, self._walks.popleft()
                else:
                    step, args = self._sweep, (self._sweeps.popleft(),)
            try:
                step(*args)
            except Exception:
                # A database away, a worker that died: the next start's sweep counts what
                # is missing. The coach never takes the server down.
                logger.exception("the coach could not count a game")

    def _countable(self, rules: Rules, players: int) -> bool:
        return counted_by_the_coach(rules, players) and tables_saved(
            rules, self.instance_path, with_chances=False
        )

    def _count_game(self, household: int, game_id: int) -> None:
        record = load_game(self.store, game_id, household=household)
        if record is None or record.status != FINISHED:
            return
        if self._countable(Rules.from_dict(record.rules), len(record.players)):
            self._count([record], household=household)

    def _sweep(self, household: int | None) -> None:
        households = household_ids(self.store) if household is None else [household]
        for each in households:
            for rule_set in list_rule_sets(self.store, household=each):
                if rule_set_counted(rule_set.rules) and tables_saved(
                    rule_set.rules, self.instance_path, with_chances=False
                ):
                    with self._lock:
                        self._walks.append((each, rule_set.key, None))

    def _walk(self, household: int, key: str, before: tuple[datetime, int] | None) -> None:
        found = games_awaiting_coach(self.store, key, BATCH, household=household, before=before)
        records = []
        for _finished_at, game_id in found:
            record = load_game(self.store, game_id, household=household)
            if (
                record is not None
                and record.status == FINISHED
                and self._countable(Rules.from_dict(record.rules), len(record.players))
            ):
                records.append(record)
        if len(found) == BATCH:
            # The rest of the walk first: a batch that fails does not end it.
            with self._lock:
                self._walks.append((household, key, found[-1]))
        if records:
            self._count(records, household=household)

    def _count(self, records: list[GameRecord], *, household: int) -> None:
        try:
            figures = self.workers.run(household, review_games, self.instance_path, records)
        except WorkerFailed:
            logger.warning("the coach's worker failed or stopped: counted at the next start")
            return
        for record, seats in zip(records, figures, strict=True):
            if seats is not None:
                record_coach_figures(
                    self.store, record.id, record.version, seats, household=household
                )
