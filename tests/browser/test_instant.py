"""Instant: from the tap on a box's confirmation to the new sheet painted, measured by the
browser itself (Performance API), with 4 tablets playing at once on loopback.

The test checks that every turn is one request whose answer is swapped into the page, and
prints the times against the goal (p95 <= 100 ms); it does not fail on them, since a shared
machine's load decides them (run it with -s to read them).

While the turns are under way the test leaves the pages alone: each page says when its sheet
is painted (a console message, after the time is taken), and only then are the pages looked
at. Playwright's `expect` polls a page from inside it, and that polling took 60 ms of the
page's main thread per turn against 25 ms for the turn itself (a Chromium trace of one
tablet): it measured the test as much as the sheet.

The server is the one a household runs, `scorekeeper serve` (waitress and its threads) in a
process of its own, on the test's instance and database. Served from a thread of the test's
own process, it shared Python's interpreter lock with Playwright's client, which took about
10 ms of it per round of four turns against some 22 ms for the four POSTs themselves."""

import statistics
from contextlib import ExitStack
from pathlib import Path

import pytest
from playwright.sync_api import expect

from testing.live import LiveServer
from tests.browser.tablets import TABLETS
from tests.browser.taps import tap_dice

TABLETS_AT_ONCE = 4
ROUNDS = 6
P95_GOAL_MS = 100
# What MEASURE logs once a turn's time is taken.
PAINTED = "turn painted"

# Installed on every page: the moment of the tap that writes the turn (kept over a page load), and
# the moment the sheet of the next turn is painted, whether it came as a new page or was
# swapped into this one: the frame after the one that shows it.
MEASURE = """(() => {
  const key = "turn-tapped-at";
  const now = () => performance.timeOrigin + performance.now();
  document.addEventListener("click", (event) => {
    if (event.target.closest('button[name="target"].preview')) {
      sessionStorage.setItem(key, String(now()));
    }
  }, true);
  const painted = () => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 0)));
  const record = async () => {
    const tapped = Number(sessionStorage.getItem(key));
    if (!tapped) return;
    sessionStorage.removeItem(key);
    await painted();
    const spent = JSON.parse(sessionStorage.getItem("turn-times") || "[]");
    // The request's own share: from its start to its last byte (the POST, or the page load).
    const requests = performance.getEntriesByType("resource")
      .filter((entry) => entry.name.endsWith("/entries"));
    const request = requests.at(-1) || performance.getEntriesByType("navigation")[0];
    spent.push([now() - tapped, request.responseEnd - request.startTime, requests.length > 0]);
    sessionStorage.setItem("turn-times", JSON.stringify(spent));
    console.debug("turn painted");
  };
  addEventListener("pageshow", record);
  addEventListener("sheet:swapped", record);
})();"""


@pytest.fixture(scope="module")
def household_server(live_app, tmp_path_factory):
    """The base URL of `scorekeeper serve` on the live app's instance folder and database."""
    log = tmp_path_factory.mktemp("serve") / "server.log"
    with LiveServer(
        Path(live_app.instance_path), log, database_url=live_app.config["DATABASE_URL"]
    ) as server:
        host, port = server.base
        yield f"http://{host}:{port}"


def percentile(ordered, share):
    return ordered[round(share / 100 * (len(ordered) - 1))]


def test_four_tablets_play_turns_in_one_request_each_and_print_the_time(
    browser, household_server, seed
):
    pages = []
    for number in range(TABLETS_AT_ONCE):
        context = browser.new_context(
            viewport=dict(zip(("width", "height"), TABLETS["landscape"], strict=True)),
            locale="fr-FR",
            has_touch=True,
            base_url=household_server,
        )
        context.add_init_script(MEASURE)
        page = context.new_page()
        page.goto(f"/games/{seed([f'Joueur {number}', 'Alix'])}")
        pages.append(page)
    try:
        for number in range(ROUNDS):
            # Each tablet types its dice; then all four tap the box that writes it at once.
            boxes = []
            for page in pages:
                tap_dice(page, "11111" if number % 2 else "66653")
                label = ["Six", "As", "Brelan", "Yams", "Chance", "Carré"][number]
                boxes.append(page.locator(f'button.preview[aria-label^="{label}, "]'))
                boxes[-1].wait_for()
            with ExitStack() as painted:
                for page in pages:
                    painted.enter_context(
                        page.expect_console_message(lambda message: message.text == PAINTED)
                    )
                for box in boxes:
                    box.dispatch_event("click")
            for page in pages:
                expect(page.locator("[data-live-seq]")).to_have_attribute(
                    "data-live-seq", str(number + 1)
                )
        times = []
        for page in pages:
            page.wait_for_function(
                f"() => JSON.parse(sessionStorage.getItem('turn-times')"
                f" || '[]').length === {ROUNDS}"
            )
            times += page.evaluate("() => JSON.parse(sessionStorage.getItem('turn-times'))")
    finally:
        for page in pages:
            page.context.close()
    # Every turn was the one POST, swapped in: no page load.
    assert all(swapped for _total, _request, swapped in times)
    painted = sorted(total for total, _request, _swapped in times)
    requested = sorted(request for _total, request, _swapped in times)
    p95 = percentile(painted, 95)
    print(
        f"\ntap on the box to the next sheet painted, {len(times)} turns on "
        f"{TABLETS_AT_ONCE} tablets at once: median {statistics.median(painted):.0f} ms, "
        f"p95 {p95:.0f} ms, worst {painted[-1]:.0f} ms; of which the request: median "
        f"{statistics.median(requested):.0f} ms, p95 {percentile(requested, 95):.0f} ms "
        f"(goal: p95 <= {P95_GOAL_MS} ms)"
    )
