"""The tablets of the browser tests and the server they reach: the screens they have, the
bound of a page's waits, one tablet turned from screen to screen and language to language,
and the app served by waitress from a thread.

A fresh browser context costs Chromium about 0.5 s of CPU, and a page loaded in an open one
0.2 s: a test that looks at pages at several sizes and in both languages turns one tablet
(`screens`) and loads each page again, rather than open a context for each."""

import contextlib
import threading
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import waitress

from scorekeeper.web.language import LANGUAGE_NAMES
from scorekeeper.web.store import CHANGES_EXTENSION

# Debian's Chromium in its headless shell (apt-get install chromium-headless-shell): the
# engine without the browser around it, as Playwright runs headless tests, for half the CPU
# of the whole browser (docs/development.md).
CHROMIUM = "/usr/bin/chromium-headless-shell"
TABLETS = {"portrait": (768, 1024), "landscape": (1024, 768), "ten-inch": (1280, 800)}
PHONE = (390, 844)
SCREENS = {**TABLETS, "phone": PHONE}
LANGUAGES = ("fr", "en")
# Every language of the app, for the checks that read each page in each (axe-core).
ALL_LANGUAGES = tuple(LANGUAGE_NAMES)

# How long a page may take to reach the state a test waits for: a navigation, an element, an
# expect(). A page answers in well under a second on a quiet machine, but on two cores at a
# load of 20 a navigation took more than Playwright's 5 s. The bound times nothing: it only
# makes a page that never gets there fail its test instead of hanging the run.
PAGE_WAIT_MS = 30_000


@contextlib.contextmanager
def served_in_thread(app) -> Iterator[str]:
    """The base URL of ``app`` served by waitress on 127.0.0.1 from a thread, until the end."""
    # As `scorekeeper serve`: the request threads, and one for each open page's stream.
    threads = app.config["SERVER_THREADS"] + app.config["LIVE_STREAMS"]
    served = waitress.create_server(app, host="127.0.0.1", port=0, threads=threads)
    thread = threading.Thread(target=served.run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{served.effective_port}"
    finally:
        # The open pages' streams end first: a thread still sending to a closed server errs.
        changes = app.extensions[CHANGES_EXTENSION]
        changes.stop()
        deadline = time.monotonic() + 5
        while changes.watchers and time.monotonic() < deadline:
            time.sleep(0.01)
        served.close()
        thread.join(timeout=5)


def turn_to(page, size, language="fr"):
    """The tablet resized to ``size`` and its language chosen as the language switch does (its
    cookie): the next page it loads is drawn for them. The page's script lays a sheet out as
    it loads, so a test loads its page again (`load`) after it."""
    width, height = SCREENS[size]
    page.set_viewport_size({"width": width, "height": height})
    # The cookie of the whole site: one set for a page's own address would hold for that path
    # alone.
    address = urlsplit(page.url)
    site = f"{address.scheme}://{address.netloc}/"
    page.context.add_cookies([{"name": "lang", "value": language, "url": site}])


def screens(page, sizes=("landscape", "portrait"), languages=LANGUAGES):
    """Each (size, language) in turn, the tablet turned to it (`turn_to`)."""
    for size in sizes:
        for language in languages:
            turn_to(page, size, language)
            yield size, language


def load(page, path, language=None):
    """``path`` loaded in the tablet's page, with nothing kept from the pages before it: the
    dice and the box a sheet keeps over a reload (sessionStorage) are forgotten first."""
    page.evaluate("() => sessionStorage.clear()")
    page.goto(path)
    if language is not None:
        assert page.locator("html").get_attribute("lang") == language, path
    return page
