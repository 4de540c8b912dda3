"""Passphrases hashed and checked a few at a time, at a lower priority than the turns.

Werkzeug's scrypt takes about 0.1 s of a core per passphrase, on purpose, and lets the other
Python threads run meanwhile: eight strangers signing up at once took both cores from every
household's turns. So a server process hashes and checks passphrases in PASSPHRASE_HASHERS
threads of its own, niced like the PDF workers, and PASSPHRASE_QUEUE more wait in a fair
queue (scorekeeper/fairness.py): a household typing its passphrase (its PIN) takes its turn
beside the strangers signing up or joining, who share one turn (and one waiting seat)
between them. Beyond that, Busy (a 503 that says to try again): each waiting request holds
a request thread. The server processes of a machine share its cores: a hashing thread
holds one of PASSPHRASE_HASHERS lock files of the instance folder while it hashes, so that
they hash that many passphrases at once, all together.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import os
import sys
import threading
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from flask import current_app
from werkzeug.security import check_password_hash, generate_password_hash

from scorekeeper.fairness import FairQueue
from scorekeeper.workers import WORKER_NICENESS

# The owner, in the fair queue, of the passphrases of devices that belong to no household.
STRANGERS = "strangers"
# The longest a passphrase waits for its turn: a few hashes at most are ahead of it.
WAIT_SECONDS = 10.0

T = TypeVar("T")


def passphrase_hash(passphrase: str) -> str:
    """The passphrase's salted scrypt hash, made in the calling thread (commands, tests)."""
    return generate_password_hash(passphrase, method="scrypt")


class Hashers:
    """The threads that hash passphrases, the fair queue in front of them, and the lock
    files (one per thread) that the server processes of the machine share."""

    def __init__(self, hashers: int, queue: int, folder: str | Path) -> None:
        self.queue = FairQueue(hashers, hashers + queue, waiting_per_owner=1)
        self._slots = [Path(folder) / f"passphrase-hashing-{number}.lock"
                       for number in range(hashers)]
        self._numbers = itertools.count()
        self._mine = threading.local()
        self._threads = ThreadPoolExecutor(hashers, thread_name_prefix="passphrases",
                                           initializer=self._start_thread)

    def run(self, owner: Hashable, work: Callable[..., T], *args: object) -> T:
        """``work(*args)`` in a hashing thread, in ``owner``'s turn; Busy when there is no
        seat to wait for one."""
        with self.queue.place(owner, timeout=WAIT_SECONDS):
            return self._threads.submit(self._in_slot, work, *args).result()

    def _start_thread(self) -> None:
        _lower_priority()
        # Open for the thread's life: each hash only locks and unlocks it.
        self._mine.slot = open(self._slots[next(self._numbers)], "a")

    def _in_slot(self, work: Callable[..., T], *args: object) -> T:
        fcntl.flock(self._mine.slot, fcntl.LOCK_EX)
        try:
            return work(*args)
        finally:
            fcntl.flock(self._mine.slot, fcntl.LOCK_UN)


def _lower_priority() -> None:
    # Linux keeps a nice value per thread: this one's hashing yields to the request threads.
    if sys.platform == "linux":
        with contextlib.suppress(OSError):
            thread = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, thread,
                           os.getpriority(os.PRIO_PROCESS, thread) + WORKER_NICENESS)


_shared: dict[tuple[int, int, str], Hashers] = {}
_shared_lock = threading.Lock()


def hashers() -> Hashers:
    """The process's hashers for the app's PASSPHRASE_HASHERS, PASSPHRASE_QUEUE and
    instance folder: every app of a process with the same shares them."""
    key = (current_app.config["PASSPHRASE_HASHERS"], current_app.config["PASSPHRASE_QUEUE"],
           current_app.instance_path)
    with _shared_lock:
        if key not in _shared:
            _shared[key] = Hashers(*key)
        return _shared[key]


def new_hash(passphrase: str) -> str:
    """The hash of a new household's passphrase, made in the strangers' turn."""
    return hashers().run(STRANGERS, passphrase_hash, passphrase)


def matches(hashed: str, passphrase: str, *, owner: Hashable) -> bool:
    """Whether ``passphrase`` is the one of ``hashed``, checked in ``owner``'s turn (the
    household whose PIN it is, or STRANGERS)."""
    return hashers().run(owner, check_password_hash, hashed, passphrase)
