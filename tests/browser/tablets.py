"""The tablets of the browser tests and the server they reach: the screens they have, the
bound of a page's waits, and the app served by waitress from a thread."""

import contextlib
import threading
import time
from collections.abc import Iterator

import waitress

from scorekeeper.web.store import STORE_EXTENSION

TABLETS = {"portrait": (768, 1024), "landscape": (1024, 768), "ten-inch": (1280, 800)}
PHONE = (390, 844)

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
        changes = app.extensions[STORE_EXTENSION].changes
        changes.stop()
        deadline = time.monotonic() + 5
        while changes.watchers and time.monotonic() < deadline:
            time.sleep(0.01)
        served.close()
        thread.join(timeout=5)
