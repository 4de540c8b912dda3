"""Passphrases hashed and checked in the request's thread, a few at a time, in turn.

Werkzeug's scrypt takes about 0.1 s of a core per passphrase, on purpose; hashlib lets the
other Python threads run meanwhile. Unbounded, eight strangers signing up at once took both
cores from every household's turns. So a server process hashes at most PASSPHRASE_HASHERS
passphrases at once (half its machine's cores by default), and PASSPHRASE_QUEUE more wait
in a fair queue (fairness.FairQueue: a semaphore whose places go to the owners in turn): a
household typing its passphrase (its PIN) takes its turn beside the strangers signing up or
joining, who share one turn (and one waiting seat) between them. Beyond that, Busy (a 503
that says to try again): each waiting request holds a request thread.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

from flask import current_app
from werkzeug.security import check_password_hash, generate_password_hash

from scorekeeper.fairness import FairQueue

# The owner, in the fair queue, of the passphrases of devices that belong to no household.
STRANGERS = "strangers"
# The longest a passphrase waits for its turn: a few hashes at most are ahead.
WAIT_SECONDS = 10.0
_EXTENSION = "scorekeeper.passphrase_hashing"

T = TypeVar("T")


def passphrase_hash(passphrase: str) -> str:
    """The passphrase's salted scrypt hash, made at once (commands, tests)."""
    return generate_password_hash(passphrase, method="scrypt")


def hashing() -> FairQueue:
    """The places of this app's server process for hashing passphrases."""
    config = current_app.config
    return current_app.extensions.setdefault(
        _EXTENSION,
        FairQueue(
            config["PASSPHRASE_HASHERS"],
            config["PASSPHRASE_HASHERS"] + config["PASSPHRASE_QUEUE"],
            waiting_per_owner=1,
        ),
    )


def in_turn(owner: Hashable, work: Callable[..., T], *args: object) -> T:
    """``work(*args)`` in this thread, once it is ``owner``'s turn for a place; Busy when
    there is no seat, or no place within WAIT_SECONDS."""
    with hashing().place(owner, WAIT_SECONDS):
        return work(*args)


def new_hash(passphrase: str) -> str:
    """The hash of a new household's passphrase, made in the strangers' turn."""
    return in_turn(STRANGERS, passphrase_hash, passphrase)


def matches(hashed: str, passphrase: str, *, owner: Hashable) -> bool:
    """Whether ``passphrase`` is the one of ``hashed``, checked in ``owner``'s turn (the
    household whose PIN it is, or STRANGERS)."""
    return in_turn(owner, check_password_hash, hashed, passphrase)
