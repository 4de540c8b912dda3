"""Attempts counted per key (store/limits.py), the one limiter of wrong PINs, passphrases and
sign-ups: a household's own attempts leave with it, and a right PIN forgets its address's."""

from datetime import timedelta

from scorekeeper.store.households import create_household, delete_household
from scorekeeper.store.limits import (
    count_attempt,
    forget,
    household_attempts_key,
    recent_attempts,
)

WINDOW = timedelta(minutes=1)


def _counts(store, keys):
    return [attempts.count for attempts in recent_attempts(store, keys, WINDOW).values()]


def test_a_households_attempts_leave_with_it_and_no_others(store):
    martin = create_household(store, "Les Martin", "hash")
    durand = create_household(store, "Les Durand", "hash")
    keys = [
        household_attempts_key("pin:10.0.0.1", household=martin),
        household_attempts_key("pin:10.0.0.1", household=durand),
        "passphrase:10.0.0.1",
    ]
    for key in keys:
        count_attempt(store, key, WINDOW)
    count_attempt(store, keys[0], WINDOW)
    assert _counts(store, keys) == [2, 1, 1]
    delete_household(store, martin)
    assert _counts(store, keys) == [0, 1, 1]
    forget(store, keys[1])
    assert _counts(store, keys) == [0, 0, 1]
