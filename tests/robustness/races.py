"""Races on a real server: devices submit turns of the same game at once, and double taps.

For each turn exactly one submission is acknowledged (303); every other one gets 409 with the
current sheet and the message saying what happened. Afterwards the database holds exactly
the acknowledged entries: none lost, none twice, none that nobody was told about. A backup
taken meanwhile is whole. Run by tests/robustness/test_races.py (small) and
scripts/robustness.py (8 clients x 200 submissions).
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from testing.live import (
    CLIENT_DICE,
    SERVE_CODE,
    Client,
    LiveServer,
    Page,
    Sheet,
    sorted_dice,
)
from tests.robustness.checks import (
    assert_games_replay,
    create_games,
    integrity,
    is_sqlite,
    sqlite_url,
    stored_entries,
)
from tests.support.threads import joined

# Every so many submissions a client taps twice: the same form on two connections at once.
DOUBLE_TAP_EVERY = 10
TURNS_PER_GAME = 26
STALE_MESSAGE = "La feuille a changé entre-temps"
# The devices' threads end within this (the full size, 1,600 submissions, takes a minute).
RACE_SECONDS = 600


@dataclass(frozen=True)
class Submission:
    game_id: int
    seq: int
    target: str
    dice: str
    status: int
    sheet_seq: int | None  # the seq of the sheet sent back with a 409; None once it is over
    stale_message: bool
    double_tap: bool


@dataclass(frozen=True)
class RaceReport:
    clients: int
    submissions: int
    acknowledged: int
    refused: int
    double_taps: int
    backup_entries: int | None  # None: no backup (PostgreSQL has its own tools)
    seconds: float

    def __str__(self) -> str:
        backup = (
            ""
            if self.backup_entries is None
            else f"; a backup taken meanwhile holds {self.backup_entries} entries, integrity ok"
        )
        return (
            f"races: {self.clients} clients, {self.submissions} submissions "
            f"({self.double_taps} double taps) in {self.seconds:.1f} s: "
            f"{self.acknowledged} acknowledged, each stored exactly once; "
            f"{self.refused} refused with 409, the message and the current sheet; "
            f"0 lost, 0 duplicated{backup}"
        )


def _submission(
    game_id: int, sheet: Sheet, dice: str, target: str, page: Page, double_tap: bool
) -> Submission:
    sheet_seq = Sheet.read(page.text).seq if page.status == 409 else None
    return Submission(
        game_id,
        sheet.seq,
        target,
        dice,
        page.status,
        sheet_seq,
        STALE_MESSAGE in page.text,
        double_tap,
    )


def _double_tap(
    client: Client, twin: Client, game_id: int, sheet: Sheet, dice: str, target: str
) -> list[Page]:
    pages: list[Page] = []
    second = threading.Thread(
        target=lambda: pages.append(twin.submit(game_id, sheet, dice, target))
    )
    second.start()
    pages.append(client.submit(game_id, sheet, dice, target))
    joined([second])
    return pages


def _play(
    index: int,
    address: tuple[str, int],
    game_ids: list[int],
    submissions: int,
    log: list[Submission],
) -> None:
    """One device: read the sheet, submit a turn, and go on from whatever the server sent."""
    client = Client(address)
    twin = client.twin()
    dice = CLIENT_DICE[index]
    game, sent = 0, 0
    try:
        _page, sheet = client.sheet(game_ids[game])
        while sent < submissions:
            while not sheet.playable:
                game += 1
                _page, sheet = client.sheet(game_ids[game])
            game_id = game_ids[game]
            # Devices tap different boxes, so the stored entry tells which one won.
            target = sheet.targets[(index * 7 + sent) % len(sheet.targets)]
            double_tap = sent % DOUBLE_TAP_EVERY == DOUBLE_TAP_EVERY - 1
            if double_tap:
                pages = _double_tap(client, twin, game_id, sheet, dice, target)
            else:
                pages = [client.submit(game_id, sheet, dice, target)]
            log.extend(
                _submission(game_id, sheet, dice, target, page, double_tap) for page in pages
            )
            sent += len(pages)
            refused = [page for page in pages if page.status == 409]
            if len(refused) == len(pages):
                sheet = Sheet.read(refused[0].text)
            else:
                _page, sheet = client.sheet(game_id)
    finally:
        client.close()
        twin.close()


def run_races(
    workdir: Path, clients: int, submissions: int, database_url: str | None = None
) -> RaceReport:
    """Start a server in `workdir`, race `clients` devices, check the database, report.

    The database is the instance folder's SQLite file, or the one `database_url` names; on
    SQLite a backup is also taken in the middle of the races, and checked.
    """
    instance = workdir / "instance"
    database_url = database_url or sqlite_url(instance)
    # Enough games for every submission to win; races make far fewer entries.
    game_ids = create_games(instance, clients * submissions // TURNS_PER_GAME + 1, database_url)
    log: list[Submission] = []
    failures: list[Exception] = []

    def device(index: int) -> None:
        try:
            _play(index, server.base, game_ids, submissions, log)
        except Exception as error:  # re-raised by the main thread
            failures.append(error)

    started = time.monotonic()
    backup = None
    with LiveServer(instance, workdir / "server.log", database_url=database_url) as server:
        threads = [threading.Thread(target=device, args=(i,)) for i in range(clients)]
        for thread in threads:
            thread.start()
        backup_file = workdir / "backup-during-races.sqlite3"
        if is_sqlite(database_url):
            backup = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    SERVE_CODE,
                    "backup",
                    "--instance",
                    str(instance),
                    str(backup_file),
                ],
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
        joined(threads, seconds=RACE_SECONDS)
    seconds = time.monotonic() - started
    if failures:
        raise failures[0]
    assert backup is None or backup.returncode == 0, backup.stderr

    statuses = {submission.status for submission in log}
    assert statuses <= {303, 409}, f"unexpected answers: {sorted(statuses)}"
    acknowledged = [s for s in log if s.status == 303]
    refused = [s for s in log if s.status == 409]
    by_turn = {(s.game_id, s.seq): s for s in acknowledged}
    assert len(by_turn) == len(acknowledged), "one turn was acknowledged twice"
    stored = stored_entries(database_url)
    # Exactly the acknowledged entries: none lost, none stored that nobody was told about.
    assert stored == {turn: (s.target, sorted_dice(s.dice)) for turn, s in by_turn.items()}
    entries_per_game = {game_id: 0 for game_id in game_ids}
    for game_id, _seq in stored:
        entries_per_game[game_id] += 1
    for s in refused:
        assert s.stale_message, "a 409 without the message saying what happened"
        if s.sheet_seq is None:
            assert entries_per_game[s.game_id] == TURNS_PER_GAME, "a 409 without the sheet"
        else:
            assert s.sheet_seq > s.seq, "a 409 whose sheet is not newer than the one sent"
    assert refused, "no submission ever raced another"
    assert_games_replay(database_url, game_ids)
    backed_up = None
    if backup is not None:
        assert integrity(database_url) == "ok"
        assert integrity(f"sqlite:///{backup_file}") == "ok"
        backed_up = stored_entries(f"sqlite:///{backup_file}")
        assert set(backed_up.items()) <= set(stored.items())

    return RaceReport(
        clients=clients,
        submissions=len(log),
        acknowledged=len(acknowledged),
        refused=len(refused),
        double_taps=sum(s.double_tap for s in log) // 2,
        backup_entries=None if backed_up is None else len(backed_up),
        seconds=seconds,
    )
