"""Passphrases hashed and checked a few at a time, in worker processes of low priority.

Werkzeug's scrypt takes about 0.1 s of a core per passphrase, on purpose, and lets the other
Python threads run meanwhile: eight strangers signing up at once took both cores from every
household's turns. So passphrases are hashed and checked by worker processes
(scorekeeper/workers.py: niced, in a niced session of their own), PASSPHRASE_HASHERS at once
and PASSPHRASE_QUEUE more waiting in a fair queue: a household typing its passphrase (its
PIN) takes its turn beside the strangers signing up or joining, who share one turn (and one
waiting seat) between them. Beyond that, Busy (a 503 that says to try again): each waiting
request holds a request thread. The server processes of a machine share its cores: a worker
holds one of PASSPHRASE_HASHERS lock files of the instance folder while it hashes, so that
they hash that many passphrases at once, all together.
"""

from __future__ import annotations

import contextlib
import fcntl
import random
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import TypeVar

from flask import current_app
from werkzeug.security import check_password_hash, generate_password_hash

from scorekeeper.fairness import Busy
from scorekeeper.workers import WorkerFailed, Workers, WorkerSettings, preload, shared_workers

# The owner, in the fair queue, of the passphrases of devices that belong to no household.
STRANGERS = "strangers"
# The longest a passphrase waits for its turn and its hash: a few hashes at most are ahead.
WAIT_SECONDS = 10.0
# A hashing worker keeps nothing from one hash to the next: it lives long.
HASHES_PER_WORKER = 1000
LOCK_FILE = "passphrase-hashing-{number}.lock"
# The workers run this module's in_a_slot: the fork server has it imported for them.
preload(__name__)

T = TypeVar("T")


def passphrase_hash(passphrase: str) -> str:
    """The passphrase's salted scrypt hash, made in the calling process (commands, tests)."""
    return generate_password_hash(passphrase, method="scrypt")


class PassphraseWorkers(Workers):
    """The worker processes that hash and check passphrases."""

    def hash_in_turn(
        self, owner: Hashable, folder: str, work: Callable[..., T], *args: object
    ) -> T:
        """``work(*args)`` by a worker, in ``owner``'s turn, holding one of the machine's
        lock files of ``folder``; Busy when there is no seat, or no answer in time."""
        try:
            return self.run(owner, in_a_slot, folder, self.settings.workers, work, *args)
        except WorkerFailed:
            raise Busy from None


def in_a_slot(folder: str, slots: int, work: Callable[..., T], *args: object) -> T:
    """``work(*args)`` while holding one of ``slots`` lock files of ``folder``: a free one,
    else the first to come free of one taken at random."""
    paths = [Path(folder) / LOCK_FILE.format(number=number) for number in range(slots)]
    for path in paths:
        with path.open("a") as slot:
            try:
                fcntl.flock(slot, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue
            with _held(slot):
                return work(*args)
    with random.choice(paths).open("a") as slot:
        fcntl.flock(slot, fcntl.LOCK_EX)
        with _held(slot):
            return work(*args)


@contextlib.contextmanager
def _held(slot):
    try:
        yield
    finally:
        fcntl.flock(slot, fcntl.LOCK_UN)


def hashers() -> PassphraseWorkers:
    """The process's passphrase workers for the app's PASSPHRASE_HASHERS and
    PASSPHRASE_QUEUE: every app of a process with the same settings shares them."""
    config = current_app.config
    return shared_workers(
        PassphraseWorkers,
        WorkerSettings(
            workers=config["PASSPHRASE_HASHERS"],
            queue=config["PASSPHRASE_QUEUE"],
            jobs_per_worker=HASHES_PER_WORKER,
            timeout_seconds=WAIT_SECONDS,
        ),
    )


def new_hash(passphrase: str) -> str:
    """The hash of a new household's passphrase, made in the strangers' turn."""
    return hashers().hash_in_turn(STRANGERS, current_app.instance_path, passphrase_hash, passphrase)


def matches(hashed: str, passphrase: str, *, owner: Hashable) -> bool:
    """Whether ``passphrase`` is the one of ``hashed``, checked in ``owner``'s turn (the
    household whose PIN it is, or STRANGERS)."""
    return hashers().hash_in_turn(
        owner, current_app.instance_path, check_password_hash, hashed, passphrase
    )
