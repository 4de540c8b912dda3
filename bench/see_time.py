"""In Chromium, 4 tablets on one game: from the tap that writes a turn on one of them to the
new sheet painted on the other three; then what the open tablets cost while nobody plays.

    python -m bench.see_time [--rounds 12] [--idle 20] [--before DIR]

Each design runs `scorekeeper serve` (waitress, SQLite) from its own checkout in a process
of its own: this one (push), and with --before DIR a checkout from before the push (polling
every 0.4 s, then a page load), turn about in one run. The tablets take turns to play (the
dice typed on the keypad, then the tap on the box, which writes it); each page notes when it
shows a new sheet, painted (the frame after it, as tests/browser/test_instant.py does), and
the tap's moment, by the clock all the pages share. Then the tablets stay open --idle
seconds with nobody playing: the requests they make, and the server's CPU meanwhile against
as long with no tablet open.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from bench.server import percentile
from testing.live import SERVE_CODE, Client, LiveServer, serve_arguments
from testing.samples import SCORING_TURNS

CHROMIUM = "/usr/bin/chromium"
TABLETS = 4
# Every box but Yams, in turn.
TURNS = [turn for turn in SCORING_TURNS if turn[1] != "yams"]
PAINTED = "sheet painted"

# On every page: the moment of a tap on a box that writes, and each sheet painted (after a
# page load or a swap), kept in sessionStorage over page loads, by the shared clock.
MEASURE = """(() => {
  const now = () => performance.timeOrigin + performance.now();
  document.addEventListener("click", (event) => {
    if (event.target.closest('button[name="target"].preview')) {
      sessionStorage.setItem("tapped", String(now()));
    }
  }, true);
  const painted = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  const record = async () => {
    await painted();
    const seq = Number(document.querySelector("[data-live-seq]")?.dataset.liveSeq);
    const seen = JSON.parse(sessionStorage.getItem("seen") || "[]");
    seen.push([seq, now()]);
    sessionStorage.setItem("seen", JSON.stringify(seen));
    console.debug("sheet painted");
  };
  addEventListener("pageshow", record);
  addEventListener("sheet:swapped", record);
})();"""


def serve(checkout: Path, instance: Path, log: Path) -> LiveServer:
    """`scorekeeper serve` of `checkout`, whatever copy of scorekeeper is installed."""
    command = [
        "sh",
        "-c",
        f'cd "{checkout}" && PYTHONPATH="{checkout}" exec "{sys.executable}" -c "$0" "$@"',
        SERVE_CODE,
        *serve_arguments(instance),
    ]
    return LiveServer(instance, log, command=command)


def cpu_seconds(pid: int) -> float:
    """The CPU of every thread of a process, from the scheduler's nanoseconds (/proc's
    user and system times count in 10 ms ticks: too coarse for an idle tablet)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            continue  # a thread that just ended
    return total / 1e9


def new_game(server: LiveServer) -> int:
    client = Client(server.base)
    page = client.get("/games/new")
    token = page.text.split('name="csrf_token"', 1)[1].split('value="', 1)[1].split('"', 1)[0]
    answer = client.post(
        "/games/new", {"csrf_token": token, "names-0": "Mag", "preset": "classique"}
    )
    client.close()
    return int(answer.location.rsplit("/", 1)[1])


def tap_dice(page, dice: str) -> None:
    for face in dice:
        page.locator(f'button[name="add"][value="{face}"]').dispatch_event("click")


def measure(browser, checkout: Path, rounds: int, idle: float, workdir: Path) -> dict:
    instance = workdir / "instance"
    server = serve(checkout, instance, workdir / "serve.log")
    with server:
        game_id = new_game(server)
        host, port = server.base
        pages = []
        for _ in range(TABLETS):
            context = browser.new_context(
                viewport={"width": 1024, "height": 768},
                locale="fr-FR",
                has_touch=True,
                base_url=f"http://{host}:{port}",
            )
            context.set_default_timeout(15_000)
            context.add_init_script(MEASURE)
            page = context.new_page()
            page.goto(f"/games/{game_id}")
            pages.append(page)
        time.sleep(1)
        seen_after = []
        try:
            for number in range(rounds):
                dice, box = TURNS[number % len(TURNS)]
                player = pages[number % TABLETS]
                others = [page for page in pages if page is not player]
                tap_dice(player, dice)
                target = player.locator(f'button[name="target"][value="free:{box}"].preview')
                target.wait_for()
                player.wait_for_timeout(300)  # the preview of all five dice is in
                with ExitStack() as painted:
                    for page in pages:
                        painted.enter_context(
                            page.expect_console_message(lambda message: message.text == PAINTED)
                        )
                    target.dispatch_event("click")
                tapped = float(player.evaluate("sessionStorage.getItem('tapped')"))
                for page in others:
                    seen = page.evaluate("JSON.parse(sessionStorage.getItem('seen'))")
                    shown = [at for seq, at in seen if seq == number + 1]
                    seen_after.append(shown[0] - tapped)
            # Nobody plays: what the open tablets ask, and what the server spends on them.
            made = []
            for page in pages:
                page.on("request", lambda request: made.append(request.url))
            before = cpu_seconds(server.process.pid)
            started = time.perf_counter()
            time.sleep(idle)
            open_cpu = (cpu_seconds(server.process.pid) - before) / (time.perf_counter() - started)
        finally:
            for page in pages:
                page.context.close()
        time.sleep(1)
        before = cpu_seconds(server.process.pid)
        started = time.perf_counter()
        time.sleep(idle)
        closed_cpu = (cpu_seconds(server.process.pid) - before) / (time.perf_counter() - started)
    return {
        "seen": sorted(seen_after),
        "requests": len(made) / TABLETS,
        "cpu_ms_per_s": (open_cpu - closed_cpu) / TABLETS * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--idle", type=float, default=20)
    parser.add_argument("--before", type=Path, help="a checkout from before the push")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    here = Path(__file__).resolve().parents[1]
    plan = [("push, this checkout", here)]
    if args.before:
        plan.insert(0, ("poll, before the push", args.before.resolve()))
    print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}", flush=True)
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as folder:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        for number, (label, checkout) in enumerate(plan):
            workdir = Path(folder) / str(number)
            workdir.mkdir()
            found = measure(browser, checkout, args.rounds, args.idle, workdir)
            seen = found["seen"]
            print(
                f"{label}: the tap on one tablet to the sheet painted on the {TABLETS - 1} "
                f"others, {len(seen)} times: median {statistics.median(seen):.0f} ms, p95 "
                f"{percentile(seen, 0.95):.0f} ms, worst {seen[-1]:.0f} ms; an idle tablet: "
                f"{found['requests']:.1f} requests in {args.idle:.0f} s, server CPU "
                f"{found['cpu_ms_per_s']:.3f} ms a second (load average "
                f"{os.getloadavg()[0]:.1f})",
                flush=True,
            )
        browser.close()


if __name__ == "__main__":
    main()
