"""PostgreSQL restarted, a worker killed during an outage, every connection taken by another
client, a game locked 20 s: under gunicorn, 8 tablets playing through it all. On a cluster of
the test's own (tests/robustness/faults.py); in the PostgreSQL run of the suite, as CI's.

`pytest -s` prints the table docs/hosting.md quotes.
"""

from __future__ import annotations

import os

import pytest

from scorekeeper.config import defaults
from tests.robustness.faults import postgresql_bin, run_faults, run_stream_faults
from tests.support.databases import ON_POSTGRESQL, REQUIRE_POSTGRESQL_ENV
from tests.support.front import nginx_or_skip

# PostgreSQL and gunicorn back within this long of PostgreSQL's return.
BACK_WITHIN_S = 5.0


@pytest.fixture
def bin_folder():
    if not ON_POSTGRESQL:
        pytest.skip("runs in the PostgreSQL run of the suite (SCOREKEEPER_TEST_DATABASE_URL)")
    found = postgresql_bin()
    if found is None:
        if os.environ.get(REQUIRE_POSTGRESQL_ENV) == "1":
            pytest.fail("no PostgreSQL server programs (initdb, pg_ctl) on this machine")
        pytest.skip("no PostgreSQL server programs (initdb, pg_ctl) on this machine")
    return found


def test_the_service_rides_out_its_databases_faults(tmp_path, bin_folder):
    run = run_faults(tmp_path, bin_folder)
    lines = [
        "| phase | answers | 303 | 503 | 500 | no answer | back after | other games' GET p95 |"
    ]
    lines.append("|---|---|---|---|---|---|---|---|")
    for phase in run.phases:
        statuses = run.statuses(phase)
        back = run.back_after(phase) if phase.back_at is not None else None
        lines.append(
            f"| {phase.name} | {sum(statuses.values())} | {statuses[303]} | {statuses[503]} "
            f"| {statuses[500]} | {statuses[0]} | "
            f"{'' if back is None else f'{back:.1f} s'} | "
            f"{run.other_games_p95(phase) * 1000:.0f} ms |"
        )
    acknowledged = sum(len(tablet.acknowledged) for tablet in run.tablets)
    lines.append(
        f"\n{acknowledged} turns acknowledged, {len(run.lost())} lost, "
        f"{len(run.doubled())} doubled; gunicorn's master alive: {run.master_alive}"
    )
    print("\n" + "\n".join(lines))

    assert run.master_alive
    for phase in run.phases:
        statuses = run.statuses(phase)
        assert statuses[500] == 0, (phase.name, statuses)
        assert set(statuses) <= {200, 303, 503, 0}, (phase.name, statuses)
        for answer in run.answers(phase):
            if answer.status == 503:
                _check_told_nothing_was_lost(answer)
        if phase.back_at is not None:
            back = run.back_after(phase)
            assert back is not None and back <= BACK_WITHIN_S, (phase.name, back)
    # Every connection taken by another client: each request is refused by PostgreSQL
    # ("too many clients"), and each answer is a 503 that says the database is busy.
    crowded = next(phase for phase in run.phases if phase.name.startswith("max_connections"))
    refused = run.answered_within(crowded)
    assert refused and {answer.status for answer in refused} == {503}, run.statuses(crowded)
    assert all("La base de données est occupée" in answer.said for answer in refused)
    assert "too many clients already" in run.server_log
    assert run.lost() == [] and run.doubled() == []
    assert acknowledged > 100
    locked = next(phase for phase in run.phases if phase.name.endswith("lock on one game"))
    # Other games never wait behind the locked one: a request that did would take the whole
    # lock timeout. A bound in halves of it, not a ratio to the idle phases, so that a busy
    # machine's noise cannot fail the test while a wait behind the lock still would.
    lock_timeout_s = defaults(tmp_path)["DATABASE_LOCK_TIMEOUT_SECONDS"]
    assert run.other_games_p95(locked) <= lock_timeout_s / 2, run.other_games_p95(locked)


def _check_told_nothing_was_lost(answer):
    """A 503 says when to try again and, in French (the tablets ask for no language), that
    nothing was lost or, after a form, that nothing was written."""
    assert answer.retry_after is not None and int(answer.retry_after) > 0, answer
    said = "Rien n'est perdu" if answer.method == "GET" else "Rien n'a été enregistré"
    assert said in answer.said and "réessayez" in answer.said, (answer.method, answer.said)


def test_open_sheets_ride_out_the_databases_restarts_and_killed_workers(tmp_path, bin_folder):
    """Through the whole stack (nginx, the pages' gunicorn, the streams' gevent gunicorn):
    one tablet plays while two follow the game by their streams; PostgreSQL restarts (fast,
    immediate), then a worker of each gunicorn is killed."""
    nginx_or_skip()
    run = run_stream_faults(tmp_path, bin_folder)
    lines = ["| fault | each follower's stream back after |", "|---|---|"]
    for phase in run.phases:
        back = run.streams_back_after(phase)
        said = ", ".join("never" if seconds is None else f"{seconds:.1f} s" for seconds in back)
        lines.append(f"| {phase.name} | {said} |")
    acknowledged = len(run.player.acknowledged)
    lines.append(
        f"\n{acknowledged} turns acknowledged, {len(run.lost())} lost, "
        f"{len(run.doubled())} doubled; answers {dict(run.statuses())}; streams refused "
        f"{[follower.refused for follower in run.followers]}, broken "
        f"{[follower.broken for follower in run.followers]}"
    )
    print("\n" + "\n".join(lines))

    assert run.statuses()[500] == 0, run.statuses()
    assert run.lost() == [] and run.doubled() == []
    assert acknowledged > 40
    for phase in run.phases:
        # Each follower's stream brings the turns written after the fault, by itself.
        back = run.streams_back_after(phase)
        assert all(seconds is not None and seconds <= BACK_WITHIN_S for seconds in back), (
            phase.name,
            back,
        )
