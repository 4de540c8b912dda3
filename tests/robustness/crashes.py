"""kill -9 of a real server while devices write, over and over.

After each restart the database passes PRAGMA integrity_check and holds every entry that was
acknowledged (303) before the kill. An entry whose request got no answer may or may not be
there (the server may have died after the commit); nothing else may. Run by
tests/robustness/test_crashes.py and scripts/robustness.py (10 kills).
"""

from __future__ import annotations

import http.client
import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import make_url

from testing.live import CLIENT_DICE, Client, LiveServer, sorted_dice
from tests.robustness.checks import (
    assert_games_replay,
    create_games,
    integrity,
    is_sqlite,
    sqlite_url,
    stored_entries,
)

GAMES_PER_DEVICE = 40
# Each device writes at most this many entries between two kills: the loops stop by themselves.
MAX_SUBMISSIONS_PER_RUN = 400
WRITE_TIMEOUT_SECONDS = 30.0

Turn = tuple[int, int]
Written = tuple[str, str]


@dataclass
class Device:
    """A tablet that keeps its place across server restarts: its games, and what it knows."""

    index: int
    game_ids: list[int]
    game: int = 0
    acknowledged: dict[Turn, Written] = field(default_factory=dict)
    in_doubt: dict[Turn, Written] = field(default_factory=dict)
    failure: Exception | None = None

    def write_until_the_server_dies(
        self, address: tuple[str, int], acknowledged_now: threading.Semaphore
    ) -> None:
        client = Client(address)
        dice = CLIENT_DICE[self.index]
        try:
            for number in range(MAX_SUBMISSIONS_PER_RUN):
                _page, sheet = client.sheet(self.game_ids[self.game])
                while not sheet.playable:
                    self.game += 1
                    _page, sheet = client.sheet(self.game_ids[self.game])
                turn = (self.game_ids[self.game], sheet.seq)
                target = sheet.targets[number % len(sheet.targets)]
                self.in_doubt[turn] = (target, sorted_dice(dice))
                page = client.submit(turn[0], sheet, dice, target)
                del self.in_doubt[turn]
                assert page.status == 303, f"{page.status} for {turn}: {page.text[:500]}"
                self.acknowledged[turn] = (target, sorted_dice(dice))
                acknowledged_now.release()
        except (OSError, http.client.HTTPException):
            return  # the server was killed
        except Exception as failure:  # re-raised by the main thread
            self.failure = failure
        finally:
            client.close()


@dataclass(frozen=True)
class CrashReport:
    kills: int
    devices: int
    acknowledged: int
    in_doubt: int
    in_doubt_stored: int
    seconds: float
    database: str

    def __str__(self) -> str:
        checked = "integrity_check ok" if self.database == "sqlite" else "database up"
        return (
            f"crashes on {self.database}: {self.kills} kill -9 with {self.devices} "
            f"devices writing, {self.seconds:.1f} s: {checked} after every restart; "
            f"{self.acknowledged} acknowledged entries, all there; {self.in_doubt} "
            f"requests cut by a kill, {self.in_doubt_stored} of them committed just "
            f"before it"
        )


def _check_after_restart(database_url: str, devices: list[Device]) -> set[Turn]:
    """Integrity (of a SQLite file), every acknowledged entry, nothing unknown; returns the
    in-doubt turns kept."""
    if is_sqlite(database_url):
        assert integrity(database_url) == "ok"
    stored = stored_entries(database_url)
    kept = set()
    for device in devices:
        for turn, written in device.acknowledged.items():
            assert stored.get(turn) == written, f"acknowledged entry {turn} lost"
        for turn, written in device.in_doubt.items():
            if turn in stored:
                assert stored[turn] == written
                kept.add(turn)
    known = {turn for device in devices for turn in [*device.acknowledged, *device.in_doubt]}
    assert set(stored) <= known, f"entries nobody wrote: {sorted(set(stored) - known)}"
    return kept


def _settle(tablets: list[Device], kept: set[Turn]) -> None:
    """After a restart, a request cut by the kill is known: stored, or never written."""
    for tablet in tablets:
        for turn, written in tablet.in_doubt.items():
            if turn in kept:
                tablet.acknowledged[turn] = written
        tablet.in_doubt.clear()


def run_crashes(
    workdir: Path, kills: int, devices: int, seed: int = 7, database_url: str | None = None
) -> CrashReport:
    """Kill a server in `workdir` while devices write, `kills` times, checking after each
    restart; on the instance folder's SQLite file, or the database `database_url` names."""
    instance = workdir / "instance"
    database_url = database_url or sqlite_url(instance)
    game_ids = create_games(instance, devices * GAMES_PER_DEVICE, database_url)
    tablets = [Device(i, game_ids[i::devices]) for i in range(devices)]
    chance = random.Random(seed)
    cut = kept = 0
    started = time.monotonic()
    for _kill in range(kills):
        with LiveServer(instance, workdir / "server.log", database_url=database_url) as server:
            kept_now = _check_after_restart(database_url, tablets)
            kept += len(kept_now)
            _settle(tablets, kept_now)
            acknowledged_now = threading.Semaphore(0)
            threads = [
                threading.Thread(
                    target=tablet.write_until_the_server_dies, args=(server.base, acknowledged_now)
                )
                for tablet in tablets
            ]
            for thread in threads:
                thread.start()
            # Let every device get a few entries through, then kill in the middle of writes.
            for _ in range(3 * devices):
                assert acknowledged_now.acquire(timeout=WRITE_TIMEOUT_SECONDS)
            time.sleep(chance.uniform(0, 0.2))
            server.kill()
            for thread in threads:
                thread.join(timeout=WRITE_TIMEOUT_SECONDS)
                assert not thread.is_alive()
            for tablet in tablets:
                if tablet.failure is not None:
                    raise tablet.failure
            cut += sum(len(tablet.in_doubt) for tablet in tablets)
    with LiveServer(instance, workdir / "server.log", database_url=database_url) as server:
        kept_now = _check_after_restart(database_url, tablets)
        kept += len(kept_now)
        _settle(tablets, kept_now)
        client = Client(server.base)
        try:
            for game_id in game_ids:
                client.sheet(game_id)
        finally:
            client.close()
    assert_games_replay(database_url, game_ids)
    return CrashReport(
        kills=kills,
        devices=devices,
        acknowledged=sum(len(tablet.acknowledged) for tablet in tablets),
        in_doubt=cut,
        in_doubt_stored=kept,
        seconds=time.monotonic() - started,
        database=make_url(database_url).get_backend_name(),
    )
