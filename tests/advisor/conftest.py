"""A sub-game table shared by the advisor tests: the full build takes too long for CI
(bench/advisor.py runs it), the last seven turns of a sheet take a fraction of a second."""

import pytest

from scorekeeper.advisor import strategy as strategy_module
from scorekeeper.advisor.solver import build_table
from scorekeeper.rules import Rules
from tests.advisor.helpers import END_GAME_FILLED


@pytest.fixture(scope="session")
def end_game_table():
    return build_table(Rules(), filled=END_GAME_FILLED)


@pytest.fixture
def fake_build(monkeypatch, end_game_table):
    """Replaces the full build: the sub-game table, with a start value; records the calls."""
    calls = []

    def build(rules, progress=None):
        calls.append(rules)
        if progress is not None:
            progress(1, 2)
            progress(2, 2)
        table = end_game_table.copy()
        table[0, 0, 0] = 254.5
        return table

    monkeypatch.setattr(strategy_module, "build_table", build)
    return calls
