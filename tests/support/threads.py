"""Waits on the threads a test starts: each bounded, and failing loudly at its bound."""

import threading
import time
from collections.abc import Iterable

# Far longer than any test's thread takes on a loaded machine; short enough that a thread
# that hangs fails its test, rather than the whole run at CI's time limit.
WAIT_SECONDS = 120


def joined(threads: Iterable[threading.Thread], seconds: float = WAIT_SECONDS) -> None:
    """Wait for every thread to end, ``seconds`` at most for them all; fail naming any left."""
    threads = list(threads)
    deadline = time.monotonic() + seconds
    for thread in threads:
        thread.join(timeout=max(0.0, deadline - time.monotonic()))
    running = [thread.name for thread in threads if thread.is_alive()]
    assert not running, f"still running after {seconds} s: {running}"
