"""The server's tables: built in a worker process, one at a time, progress told, a bounded
number kept in memory and on disk. The worker here solves only the end of a game."""

import fcntl
import logging
import os
import time
from pathlib import Path

import numpy as np
import pytest

from scorekeeper.advisor.builds import AHEAD_LOCK_FILE, AHEAD_RULES, Progress, Strategies
from scorekeeper.advisor.solver import SheetIndex, build_table
from scorekeeper.advisor.spreads import build_spreads
from scorekeeper.advisor.strategy import save_array
from scorekeeper.advisor.tables import CACHE_GLOB, cache_path, spreads_path, tables_saved
from scorekeeper.rules import Rules
from tests.advisor.helpers import END_GAME_FILLED
from tests.support.threads import WAIT_SECONDS

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
    save_array(table, cache_path(rules, instance_dir))
    with log.open("a") as file:
        file.write("end\n")


def end_game_spreads_worker(rules, instance_dir, done):
    """Runs in the worker process: the sub-game table's spreads, saved where the real ones
    go (the fresh sheet's given a value, as the table's start)."""
    with (Path(instance_dir) / LOG).open("a") as file:
        file.write(f"spreads {rules.joker} {rules.yams_bonus}\n")
    sheet = SheetIndex(rules)
    table = build_table(rules, filled=END_GAME_FILLED, sheet=sheet)
    spreads = build_spreads(rules, table, filled=END_GAME_FILLED)
    spreads[:, sheet.place(sheet.state({}))] = 0.0
    save_array(spreads, spreads_path(rules, instance_dir))
    with (Path(instance_dir) / LOG).open("a") as file:
        file.write("end\n")


def held_worker(rules, instance_dir, done):
    """end_game_worker once the test has written the file GO: every build is asked for
    while the first one runs, whatever the machine's load."""
    while not (Path(instance_dir) / GO).exists():
        time.sleep(0.02)
    end_game_worker(rules, instance_dir, done)


def no_spreads_worker(rules, instance_dir, done):
    """Runs in the worker process: leaves no spreads (the chances wait for another build)."""


def workers(**others):
    """The sub-game builds of a table and of its spreads."""
    return {"worker": end_game_worker, "spreads_worker": end_game_spreads_worker} | others


def failing_worker(rules, instance_dir, done):
    raise SystemExit(3)


def dying_worker(rules, instance_dir, done):
    """A build whose process dies under it (killed, out of memory)."""
    os._exit(3)


def endless_worker(rules, instance_dir, done):
    """A build half-way, for as long as its process lives."""
    done.value = 0.5
    while True:
        time.sleep(0.05)


def _wait_built(strategies, rules_list, seconds=180):
    deadline = time.monotonic() + seconds
    while any(strategies.progress(rules) is not None for rules in rules_list):
        assert time.monotonic() < deadline, "the builds did not end"
        time.sleep(0.05)


def test_builds_run_one_at_a_time_in_a_worker_and_are_kept(tmp_path):
    strategies = Strategies(str(tmp_path), **workers())
    for rules in RULE_SETS:
        assert strategies.get(rules) is None and strategies.progress(rules) is None
        assert strategies.chances(rules) is None
        assert strategies.build(rules, household=1)
        assert strategies.progress(rules) is not None
    assert not strategies.build(RULE_SETS[0], household=2)  # asked again: queued once
    _wait_built(strategies, RULE_SETS, seconds=300)
    lines = (tmp_path / LOG).read_text().splitlines()
    # Never two builds at once: each start is followed by its end; the spreads of a table
    # come in the same turn, before the next rule set's table.
    assert lines[0::2] == [
        "start official True",
        "spreads official True",
        "start free True",
        "spreads free True",
        "start official False",
        "spreads official False",
    ]
    assert lines[1::2] == ["end"] * 6
    for rules in RULE_SETS:
        assert strategies.get(rules).start_value == 254.5
        assert strategies.progress(rules) is None
        chances = strategies.chances(rules)
        assert chances is strategies.chances(rules)  # one per rule set, kept
        assert np.shares_memory(chances.values, strategies.get(rules).tables["free"])


def test_least_recently_used_tables_leave_memory_and_disk(tmp_path):
    strategies = Strategies(str(tmp_path), **workers(kept_in_memory=1, kept_on_disk=3))
    for rules in RULE_SETS:
        strategies.build(rules, household=1)
        _wait_built(strategies, [rules])
        assert strategies.chances(rules) is not None
    assert strategies.loaded.keys() == [RULE_SETS[2]]
    assert strategies.chances_loaded.keys() == [RULE_SETS[2]]
    kept = set(tmp_path.glob(CACHE_GLOB))
    # The spreads are files of the cache like the tables: the least recently used leave.
    assert kept == {
        spreads_path(RULE_SETS[1], tmp_path),
        cache_path(RULE_SETS[2], tmp_path),
        spreads_path(RULE_SETS[2], tmp_path),
    }


def test_a_table_without_spreads_gets_them_and_rules_without_chances_none(tmp_path):
    """A table built before the chances to win (or by the command line) gets its spreads
    at the next build asked; Triple's table gets none: no chances for several columns."""
    end_game_worker(Rules(), str(tmp_path), type("Done", (), {"value": 0})())
    strategies = Strategies(str(tmp_path), **workers())
    assert strategies.get(Rules()) is not None and strategies.chances(Rules()) is None
    assert strategies.build(Rules(), household=1)
    _wait_built(strategies, [Rules()])
    assert (tmp_path / LOG).read_text().splitlines() == [
        "start official True",
        "end",
        "spreads official True",
        "end",
    ]
    assert strategies.chances(Rules()) is not None
    triple = Rules.from_dict({"preset": "triple"})
    assert strategies.chances(triple) is None


@pytest.mark.parametrize("worker", [failing_worker, dying_worker])
def test_a_failed_build_is_forgotten_and_asked_again(tmp_path, caplog, worker):
    strategies = Strategies(str(tmp_path), **workers(worker=worker))
    with caplog.at_level(logging.INFO, logger="scorekeeper.advisor.builds"):
        assert strategies.build(Rules(), household=1)
        _wait_built(strategies, [Rules()])
    assert [record.levelno for record in caplog.records] == [logging.ERROR]
    assert strategies.get(Rules()) is None
    # Asked again, built again: the pool has a worker for it (a new one, after a death).
    strategies.worker = end_game_worker
    assert strategies.build(Rules(), household=1)
    assert strategies.progress(Rules()) is not None
    _wait_built(strategies, [Rules()])
    assert strategies.get(Rules()) is not None


def test_a_build_stopped_with_the_server_ends_at_once_and_is_no_error(tmp_path, caplog):
    """Ctrl-C or SIGTERM during a build: the build's worker ends with the server, with no
    error and no traceback in its output."""
    strategies = Strategies(str(tmp_path), worker=endless_worker)
    with caplog.at_level(logging.INFO, logger="scorekeeper.advisor.builds"):
        assert strategies.build(Rules(), household=1)
        deadline = time.monotonic() + WAIT_SECONDS
        while strategies.progress(Rules()) != 0.5:
            assert time.monotonic() < deadline, "the build never started"
            time.sleep(0.05)
        strategies.workers.stop()  # as the server does when it stops (workers.stop_workers)
        _wait_built(strategies, [Rules()])
    assert [record.levelno for record in caplog.records] == [logging.INFO]
    assert strategies.get(Rules()) is None


def test_households_take_turns_for_their_builds(tmp_path):
    strategies = Strategies(str(tmp_path), worker=held_worker, spreads_worker=no_spreads_worker)
    # Household 1 asks for three tables, then household 2 for one: 2's goes second.
    for rules in RULE_SETS:
        strategies.build(rules, household=1)
    later = Rules(joker="free", yams_bonus=False)
    strategies.build(later, household=2)
    (tmp_path / GO).touch()
    _wait_built(strategies, [*RULE_SETS, later], seconds=180)
    starts = [
        line for line in (tmp_path / LOG).read_text().splitlines() if line.startswith("start")
    ]
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


def test_built_ahead_every_table_first_then_the_spreads_and_only_what_is_missing(tmp_path):
    from tests.support.build_workers import BUILT_LOG, files_saved, spreads_saved

    strategies = Strategies(str(tmp_path), worker=files_saved, spreads_worker=spreads_saved)
    strategies.build_ahead().join(timeout=WAIT_SECONDS)
    # The Conseil needs only the tables: both come before the spreads of either.
    log = (tmp_path / BUILT_LOG).read_text().splitlines()
    assert log == ["table classique", "table yatzy", "spreads classique", "spreads yatzy"]
    assert (
        all(tables_saved(rules, tmp_path, with_chances=True) for rules in AHEAD_RULES)
        and AHEAD_RULES[1].preset == "yatzy"
    )
    assert strategies.progress(AHEAD_RULES[0]) is None
    # Once saved, a start builds nothing.
    Strategies(str(tmp_path), worker=files_saved, spreads_worker=spreads_saved).build_ahead().join(
        timeout=WAIT_SECONDS
    )
    assert (tmp_path / BUILT_LOG).read_text().splitlines() == log


def test_one_process_of_a_server_builds_ahead_the_others_skip_it(tmp_path):
    from tests.support.build_workers import BUILT_LOG, files_saved, spreads_saved

    with open(tmp_path / AHEAD_LOCK_FILE, "w") as held:  # another process building ahead
        fcntl.flock(held, fcntl.LOCK_EX)
        strategies = Strategies(str(tmp_path), worker=files_saved, spreads_worker=spreads_saved)
        ahead = strategies.build_ahead()
        ahead.join(timeout=WAIT_SECONDS)
        assert not ahead.is_alive()
        assert not (tmp_path / BUILT_LOG).exists()
        assert all(strategies.progress(rules) is None for rules in AHEAD_RULES)


def test_the_time_left_comes_from_the_build_s_pace(tmp_path):
    strategies = Strategies(str(tmp_path))
    rules = Rules()
    assert strategies.remaining(rules) is None  # no build
    strategies.building[rules] = None
    assert strategies.remaining(rules) is None  # waiting for another build
    assert strategies.progress(rules) == 0.0
    strategies.building[rules] = progress = Progress()
    strategies.started[rules] = time.monotonic() - 30
    progress.value = 0.01
    assert strategies.remaining(rules) is None  # too early to tell its pace
    progress.value = 0.25
    assert strategies.progress(rules) == 0.25
    assert 89 < strategies.remaining(rules) < 92  # 30 s for a quarter: 90 s for the rest
    progress.discard()
    assert strategies.progress(rules) == 1.0  # read as its build ends
