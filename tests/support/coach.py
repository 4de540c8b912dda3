"""What the coach's tests share: the Conseil's tables put in an instance, the figures stored,
and the same figures added up again from the review's own numbers."""

from __future__ import annotations

import shutil
from pathlib import Path

from scorekeeper.advisor.review import review_game
from scorekeeper.advisor.strategy import load as load_strategy
from scorekeeper.advisor.tables import CACHE_GLOB
from scorekeeper.app import STORE_EXTENSION
from scorekeeper.play import load
from scorekeeper.store.schema import coach_figures

# The coach's figures and the test's are sums of the same floats in the same order.
SAME = 1e-9


def copy_tables(folder: Path, instance: str | Path) -> None:
    """The shared tables (tests/support/advisor_tables.py) in an instance folder."""
    for table in Path(folder).glob(CACHE_GLOB):
        shutil.copy(table, Path(instance) / table.name)


def stored_figures(store) -> dict[int, list[tuple[float, int, int]]]:
    """Each game's figures by seat: points given away, turns, turns on the best box."""
    with store.engine.connect() as connection:
        rows = connection.execute(
            coach_figures.select().order_by(coach_figures.c.game_id, coach_figures.c.seat)
        ).all()
    found: dict[int, list[tuple[float, int, int]]] = {}
    for row in rows:
        found.setdefault(row.game_id, []).append((row.given_away, row.turns, row.best_turns))
    return found


def recomputed(app, game_id: int, *, household: int) -> list[tuple[float, int, int]]:
    """A game's figures added up from the review's turns: for each seat, the best box's
    expected total minus the chosen one's over its turns, its turns, and those on the best."""
    store = app.extensions[STORE_EXTENSION]
    _record, state = load(store, game_id, household=household)
    turns, _players = review_game(load_strategy(state.rules, app.instance_path), state)
    return [
        (
            sum(turn.best_total - turn.chosen_total for turn in turns if turn.player == seat),
            sum(1 for turn in turns if turn.player == seat),
            sum(1 for turn in turns if turn.player == seat and turn.was_best),
        )
        for seat in range(len(state.players))
    ]


def assert_same(found, expected) -> None:
    assert len(found) == len(expected)
    for (given_away, turns, best), (want, want_turns, want_best) in zip(
        found, expected, strict=True
    ):
        assert abs(given_away - want) <= SAME, (given_away, want)
        assert (turns, best) == (want_turns, want_best)
