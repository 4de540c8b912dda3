"""The first Conseil of a new game: how long a family waits for it, with the tables built
ahead (ADVISOR_TABLES_AHEAD, the default) and without (built when asked), in one run.

    python -m bench.first_advice [--players 2,4] [--first-turn-after 20] [--quick]

Each case is a `scorekeeper serve` in a new instance folder (no table saved yet), on
SQLite: a game of classique, Yatzy or classique with la vache is created as soon as the
server answers, its first turn is played ``--first-turn-after`` seconds later (the usual
case: the first player's three throws), then the Conseil is asked for the second player's
first throw; the figure is the time from that ask to the page's 200 with its advice (a
page asked every 0.2 s meanwhile, as the page's own script does, only faster).

- **usual**: an instance started once before (classique's and Yatzy's tables built at that
  start, then the server restarted, as every evening), the first turn after the delay;
- **first evening**: the server's very first start, the first turn after the delay;
- **worst**: the very first start, the first turn typed at once (0 s).

Goal (docs/performance.md, "The advisor"): ≤ 1 s after the first turn in the usual case,
classique, Yatzy and la vache, 2 to 4 players, on a quiet machine. The load average is
printed beside the figures: builds are CPU, and a busy machine slows them.
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
import time
from pathlib import Path

from testing.live import Client, LiveServer, Sheet
from testing.samples import new_game_form

RULE_SETS = {
    "classique": {"preset": "classique"},
    "yatzy": {"preset": "yatzy"},
    "la vache": {"preset": "classique", "vache": "y"},
}
NAMES = ("Papa", "Maman", "Léa", "Sam")
ASK_EVERY_SECONDS = 0.2
# Longer than any build on two busy cores: a case past it is printed as such, not waited on.
GIVE_UP_SECONDS = 300.0
# Until classique's and Yatzy's tables are saved by the start of a server: the "usual" case's
# evening before.
AHEAD_SAVED = ("classique", "yatzy")


def new_game(tablet: Client, rule_set: str, players: int) -> int:
    token = Sheet.read(tablet.get("/games/new").text).csrf_token
    fields = new_game_form(NAMES[:players], preset=RULE_SETS[rule_set]["preset"])
    fields |= {k: v for k, v in RULE_SETS[rule_set].items() if k != "preset"}
    created = tablet.post("/games/new", {**fields, "csrf_token": token or ""})
    if created.status != 303:
        raise RuntimeError(f"the game was not created: {created.status}")
    return int(re.search(r"/games/(\d+)", created.location or "").group(1))


def first_advice(server: LiveServer, rule_set: str, players: int, delay: float) -> float:
    """Seconds from asking the Conseil, after the first turn played ``delay`` s after the
    game was created, to its advice."""
    tablet = Client(server.base)
    game_id = new_game(tablet, rule_set, players)
    time.sleep(delay)
    _page, sheet = tablet.sheet(game_id)
    played = tablet.submit(game_id, sheet, "12346", sheet.targets[0])
    if played.status not in (200, 303):
        raise RuntimeError(f"the first turn was refused: {played.status}")
    asked = time.perf_counter()
    while time.perf_counter() - asked < GIVE_UP_SECONDS:
        page = tablet.get(f"/games/{game_id}/advice?dice=11235&throw=1")
        if page.status == 200:
            return time.perf_counter() - asked
        if page.status != 503:
            raise RuntimeError(f"the Conseil answered {page.status}")
        time.sleep(ASK_EVERY_SECONDS)
    return float("inf")


def tables_built_at_start(instance: Path, log: Path) -> None:
    """The evening before: a server started in ``instance`` until classique's and Yatzy's
    tables (and their spreads) are saved, then stopped."""
    from scorekeeper.advisor.tables import tables_saved
    from scorekeeper.rules import Rules

    rule_sets = [Rules(), Rules.from_dict({"preset": "yatzy"})]
    with LiveServer(instance, log, tables_ahead=True):
        started = time.monotonic()
        while not all(tables_saved(rules, str(instance), with_chances=True) for rules in rule_sets):
            if time.monotonic() - started > GIVE_UP_SECONDS:
                raise RuntimeError("the tables built ahead were not saved in time")
            time.sleep(0.5)


def case(root: Path, name: str, rule_set: str, players: int, delay: float, ahead: bool) -> float:
    instance = root / f"{name}-{rule_set}-{players}-{ahead}".replace(" ", "_")
    log = instance.with_suffix(".log")
    if name == "usual" and ahead:
        tables_built_at_start(instance, log)
    with LiveServer(instance, log, tables_ahead=ahead) as server:
        return first_advice(server, rule_set, players, delay)


def seconds(value: float) -> str:
    return "gave up" if value == float("inf") else f"{value:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="2,4")
    parser.add_argument("--first-turn-after", type=float, default=20.0)
    parser.add_argument("--quick", action="store_true", help="2 players, usual and worst only")
    arguments = parser.parse_args()
    players = [2] if arguments.quick else [int(p) for p in arguments.players.split(",")]
    cases = [("usual", arguments.first_turn_after), ("first evening", arguments.first_turn_after)]
    cases = [cases[0]] if arguments.quick else cases
    cases.append(("worst", 0.0))
    print(f"load average at the start: {os.getloadavg()[0]:.1f}")
    print(f"{'case':<14} {'rules':<10} {'players':>7} {'built when asked':>17} {'ahead':>9}")
    with tempfile.TemporaryDirectory(prefix="first-advice-") as root:
        for name, delay in cases:
            for rule_set in RULE_SETS:
                for count in players:
                    # Without building ahead, the evening before saves nothing: the same case.
                    asked = case(Path(root), name, rule_set, count, delay, ahead=False)
                    ahead = case(Path(root), name, rule_set, count, delay, ahead=True)
                    print(
                        f"{name:<14} {rule_set:<10} {count:>7} {seconds(asked):>17} "
                        f"{seconds(ahead):>9}",
                        flush=True,
                    )
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
