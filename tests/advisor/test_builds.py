"""The server's tables: built in a worker process, one at a time, progress told, a bounded
number kept in memory and on disk. The worker here solves only the end of a game."""

import time
from pathlib import Path

import pytest

from scorekeeper.advisor.builds import Strategies
from scorekeeper.advisor.solver import SheetIndex, build_table
from scorekeeper.advisor.strategy import _save
from scorekeeper.advisor.tables import CACHE_GLOB, cache_path
from scorekeeper.rules import Rules
from tests.advisor.helpers import END_GAME_FILLED

LOG = "builds.log"
GO = "go"
RULE_SETS = [Rules(), Rules(joker="free"), Rules(yams_bonus=False)]


def end_game_worker(rules, instance_dir, done):
    """Runs in the worker process: the sub-game table, saved where the real one goes."""
    log = Path(instance_dir) / LOG
    with log.open("a") as file:
        file.write(f"start {rules.joker} {rules.yams_bonus}\n")
    done.value = 0.5
    sheet = SheetIndex(rules)
    table = build_table(rules, filled=END_GAME_FILLED, sheet=sheet)
    table[sheet.place(sheet.state({}))] = 254.5
    _save(table, cache_path(rules, instance_dir))
    with log.open("a") as file:
        file.write("end\n")


def held_worker(rules, instance_dir, done):
    """end_game_worker once the test has written the file GO: every build is asked for
    while the first one runs, whatever the machine's load."""
    while not (Path(instance_dir) / GO).exists():
        time.sleep(0.02)
    end_game_worker(rules, instance_dir, done)


def failing_worker(rules, instance_dir, done):
    raise SystemExit(3)


def _wait_built(strategies, rules_list, seconds=60):
    deadline = time.monotonic() + seconds
    while any(strategies.progress(rules) is not None for rules in rules_list):
        assert time.monotonic() < deadline, "the builds did not end"
        time.sleep(0.05)


def test_builds_run_one_at_a_time_in_a_worker_and_are_kept(tmp_path):
    strategies = Strategies(str(tmp_path), worker=end_game_worker)
    for rules in RULE_SETS:
        assert strategies.get(rules) is None and strategies.progress(rules) is None
        assert strategies.build(rules, household=1)
        assert strategies.progress(rules) is not None
    assert not strategies.build(RULE_SETS[0], household=2)  # asked again: queued once
    _wait_built(strategies, RULE_SETS)
    lines = (tmp_path / LOG).read_text().splitlines()
    # Never two builds at once: each start is followed by its end.
    assert lines[0::2] == ["start official True", "start free True", "start official False"]
    assert lines[1::2] == ["end"] * 3
    for rules in RULE_SETS:
        assert strategies.get(rules).start_value == 254.5
        assert strategies.progress(rules) is None


def test_least_recently_used_tables_leave_memory_and_disk(tmp_path):
    strategies = Strategies(str(tmp_path), worker=end_game_worker, kept_in_memory=1, kept_on_disk=2)
    for rules in RULE_SETS:
        strategies.build(rules, household=1)
        _wait_built(strategies, [rules])
    assert list(strategies.loaded) == [RULE_SETS[2]]
    kept = set(tmp_path.glob(CACHE_GLOB))
    assert kept == {cache_path(RULE_SETS[1], tmp_path), cache_path(RULE_SETS[2], tmp_path)}


def test_a_failed_build_is_forgotten_and_asked_again(tmp_path):
    strategies = Strategies(str(tmp_path), worker=failing_worker)
    assert strategies.build(Rules(), household=1)
    _wait_built(strategies, [Rules()])
    assert strategies.get(Rules()) is None
    assert strategies.build(Rules(), household=1)
    assert strategies.progress(Rules()) == pytest.approx(0)
    _wait_built(strategies, [Rules()])


def test_households_take_turns_for_their_builds(tmp_path):
    strategies = Strategies(str(tmp_path), worker=held_worker)
    # Household 1 asks for three tables, then household 2 for one: 2's goes second.
    for rules in RULE_SETS:
        strategies.build(rules, household=1)
    later = Rules(joker="free", yams_bonus=False)
    strategies.build(later, household=2)
    (tmp_path / GO).touch()
    _wait_built(strategies, [*RULE_SETS, later])
    starts = (tmp_path / LOG).read_text().splitlines()[0::2]
    assert starts == [
        "start official True",
        "start free False",
        "start free True",
        "start official False",
    ]


def test_the_real_worker_builds_every_column_of_a_rule_set(tmp_path):
    # Descendante and Montante: two tables (small ones), built in one worker process.
    rules = Rules(columns=("down", "up"))
    strategies = Strategies(str(tmp_path))
    assert strategies.get(rules) is None
    assert strategies.build(rules, household=1)
    _wait_built(strategies, [rules])
    strategy = strategies.get(rules)
    files = {cache_path(rules, tmp_path, kind) for kind in rules.columns}
    assert len(files) == 2 and files <= set(tmp_path.glob(CACHE_GLOB))
    alone = []
    for kind in rules.columns:
        sheet = SheetIndex(rules, kind)
        alone.append(sheet.value(build_table(rules, kind, sheet=sheet), sheet.state({}))[0])
    assert strategy.start_value == pytest.approx(sum(alone), abs=1e-9)
