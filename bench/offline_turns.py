"""Turns tapped in Chromium with the network cut at a random moment of each turn's request,
back after a while: how many were lost, how many written twice.

    python -m bench.offline_turns [--tries 50] [--cut-seconds 30] [--seed 42]
                                  [--database-url URL]

`scorekeeper serve` (waitress; SQLite in a fresh instance folder, or the PostgreSQL
database given) behind a proxy that cuts the network (testing/network_cut.py); one tablet,
Chromium, plays a game of four players through it. Each try types a throw, taps the box
that scores it, and the proxy cuts that turn's request at one of its moments in turn
(before it leaves, half sent, its answer lost once the turn is written, its answer cut
midway, at a random instant), the network gone as a reset, a front's 502 or silence, for
--cut-seconds. Then it waits until the tablet has the answer and counts the turn's entries
in the database: one is the goal, none is lost, two is doubled; the tablet's words are
counted too (« Déjà enregistré » for a turn written before its answer was lost, a refusal
where none is due, the browser's own error page), and how long after the network's return
the next sheet showed.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

from scorekeeper.config import DATABASE_FILE
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.engine import Store
from scorekeeper.store.games import load_game
from testing.live import Client, LiveServer
from testing.network_cut import MOMENTS, NetworkCut, random_plan, tap_through_cut
from testing.samples import SCORING_TURNS, new_game_form

CHROMIUM = "/usr/bin/chromium"
PLAYERS = ("Mag", "Alix", "Chloé", "Dan")
# Past the cut: a turn's answer comes within the tablet's longest pause between two tries
# (8 s) and a request the network swallowed (given up after 20 s), with room for a busy
# machine.
ANSWER_SECONDS = 60.0
# A sheet whose preview does not come within this has stopped answering the keypad.
TYPING_MS = 15_000


def new_game(server: LiveServer) -> int:
    client = Client(server.base)
    page = client.get("/games/new")
    token = page.text.split('name="csrf_token"', 1)[1].split('value="', 1)[1].split('"', 1)[0]
    answer = client.post("/games/new", {"csrf_token": token, **new_game_form(PLAYERS)})
    client.close()
    return int(answer.location.rsplit("/", 1)[1])


def typed(page, dice: str) -> None:
    """The throw in the dice field, once the previews shown are its own."""
    form = "form[data-turn-url]"
    page.locator(f'{form}[aria-busy="false"]').wait_for(timeout=TYPING_MS)
    page.locator("#dice").fill(dice)
    page.locator(f'{form}[aria-busy="false"][data-previewed="{dice}"]').wait_for(timeout=TYPING_MS)


def in_step(page, cut: NetworkCut, turn: int) -> bool:
    """The tablet shows the sheet of the game as it is stored, ready for the next turn."""
    page.wait_for_load_state()
    return (
        page.url.startswith(cut.base)
        and page.locator(f'[data-live-seq="{turn}"]').count() == 1
        and page.locator("#dice").count() == 1
    )


def run(tries: int, seconds: float, seed: int, database_url: str | None, workdir: Path):
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    instance = workdir / "instance"
    rng = random.Random(seed)
    outcomes = []
    with LiveServer(instance, workdir / "serve.log", database_url=database_url) as server:
        store = Store(database_url or f"sqlite:///{instance / DATABASE_FILE}")
        with (
            NetworkCut(server.base) as cut,
            sync_playwright() as playwright,
        ):
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
            )
            context = browser.new_context(
                viewport={"width": 1024, "height": 768}, locale="fr-FR", base_url=cut.base
            )
            context.set_default_timeout(ANSWER_SECONDS * 1000)
            page = context.new_page()
            turns_per_game = len(PLAYERS) * len(SCORING_TURNS)
            game_id = new_game(server)
            page.goto(f"/games/{game_id}")
            reloads = 0
            for number in range(tries):

                def log(game_id=game_id):
                    entries = load_game(store, game_id, household=HOME_HOUSEHOLD).entries
                    return [(e.seq, e.seat, e.box, e.dice) for e in entries]

                # The next turn of the game as it is stored (a turn lost is played again).
                turn = len(log())
                if turn == turns_per_game:
                    game_id = new_game(server)
                    page.goto(f"/games/{game_id}")
                    turn = 0
                elif not in_step(page, cut, turn):
                    # The tablet shows the browser's error page, or a sheet behind the game:
                    # the family reloads it to go on.
                    reloads += 1
                    page.goto(f"/games/{game_id}")
                dice, box = SCORING_TURNS[turn // len(PLAYERS)]
                try:
                    typed(page, dice)
                except PlaywrightError:  # a page that stopped answering the keypad
                    reloads += 1
                    page.goto(f"/games/{game_id}")
                    typed(page, dice)
                target = page.locator(f'button[name="target"][value="free:{box}"].preview')
                outcome = tap_through_cut(
                    page,
                    cut,
                    random_plan(rng, number, seconds),
                    target,
                    log,
                    seconds + ANSWER_SECONDS,
                )
                outcomes.append(outcome)
                print(
                    f"  try {number + 1:2}: {outcome.plan.moment:11} {outcome.plan.style:6} "
                    f"written {outcome.written}"
                    + (", « Déjà enregistré »" if outcome.repeated else "")
                    + (", refused" if outcome.refused else "")
                    + (", error page" if outcome.error_page else "")
                    + ("" if outcome.in_step else ", the sheet behind the game")
                    + (
                        f", sheet {outcome.answered_after:.1f} s after the network's return"
                        if outcome.answered_after is not None and outcome.answered_after >= 0
                        else ", answered before the cut"
                    ),
                    flush=True,
                )
            browser.close()
        store.dispose()
    return outcomes, reloads


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=50)
    parser.add_argument("--cut-seconds", type=float, default=30.0)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--database-url", help="a PostgreSQL database to play on")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}", flush=True)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        outcomes, reloads = run(
            args.tries, args.cut_seconds, args.seed, args.database_url, Path(folder)
        )
    lost = sum(outcome.written == 0 for outcome in outcomes)
    doubled = sum(outcome.written > 1 for outcome in outcomes)
    other = sum(outcome.written < 0 for outcome in outcomes)
    back = [o.answered_after for o in outcomes if o.answered_after and o.answered_after >= 0]
    by_moment = Counter(outcome.plan.moment for outcome in outcomes)
    by_style = Counter(outcome.plan.style for outcome in outcomes)
    print(
        f"{len(outcomes)} turns tapped with the network cut for {args.cut_seconds:g} s "
        f"({', '.join(f'{by_moment[m]} {m}' for m in MOMENTS)}; "
        f"{', '.join(f'{count} {style}' for style, count in sorted(by_style.items()))}) "
        f"in {time.monotonic() - started:.0f} s:"
    )
    print(
        f"  {lost} lost, {doubled} doubled, {other} other entries touched; "
        f"{sum(o.repeated for o in outcomes)} answered « Déjà enregistré » (written before "
        f"their answer was lost), {sum(o.refused for o in outcomes)} refused, "
        f"{sum(o.error_page for o in outcomes)} browser error pages, {reloads} sheets "
        f"reloaded by hand to go on"
    )
    if back:
        print(
            f"  the next sheet shown {statistics.median(back):.1f} s after the network's "
            f"return (median), {max(back):.1f} s at most (load average "
            f"{os.getloadavg()[0]:.1f})"
        )


if __name__ == "__main__":
    main()
