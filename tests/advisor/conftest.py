"""A sub-game table shared by the advisor tests: the full build takes too long for CI
(bench/advisor.py runs it), the last seven turns of a sheet take a fraction of a second."""

import pytest

from scorekeeper.advisor import strategy as strategy_module
from scorekeeper.advisor.solver import SheetIndex, build_table
from scorekeeper.rules import Rules
from tests.advisor.helpers import END_GAME_FILLED, FAKE_START_VALUE


@pytest.fixture(scope="session")
def end_game_table():
    return build_table(Rules(), filled=END_GAME_FILLED)


@pytest.fixture
def fake_build(monkeypatch, end_game_table):
    """Replaces the full build: the sub-game table of the same rules, with a start value;
    records the calls."""
    calls = []

    def build(rules, kind="free", progress=None, sheet=None):
        calls.append(rules)
        if progress is not None:
            progress(1, 2)
            progress(2, 2)
        sheet = sheet or SheetIndex(rules, kind)
        if sheet.size == len(end_game_table) and kind == "free":
            table = end_game_table.copy()
        else:
            table = build_table(rules, kind, filled=END_GAME_FILLED, sheet=sheet)
        table[sheet.place(sheet.state({}))] = FAKE_START_VALUE
        return table

    monkeypatch.setattr(strategy_module, "build_table", build)
    return calls
