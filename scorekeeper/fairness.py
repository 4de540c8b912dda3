"""Fair queues: the heavy work of many households shares a few places, each household in turn.

A PDF render, an import, an advisor build or a passphrase's hash takes a core for a while.
One household's burst (eight tablets printing, four devices importing) must take neither
every place nor every request thread waiting for one, or the other households' prints and
turns wait behind it. A FairQueue therefore runs at most ``places`` jobs at once and at most
one per owner (a household; the strangers signing up are one owner together), and lets an
owner hold ``waiting_per_owner`` more seats waiting; beyond that its jobs get Busy at once. A
place that frees up goes to the waiting owner whose turn it is: the one whose last job ended
longest ago, or that has waited longest for its first, so that households take turns.

At most ``capacity`` jobs run or wait in all: each waiting job holds a request thread. When
every seat is taken, a newcomer takes the seat of the newest waiter of the owner that holds
the most, if that owner would still hold more than the newcomer's; that waiter, or else the
newcomer, gets Busy at once. So one household's burst costs the others no seat.

A queue belongs to one process: each server process shares its own cores out. What must
hold across processes (the quotas) is counted in the database.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections import Counter, deque
from collections.abc import Hashable, Iterator


class Busy(Exception):
    """No place and no seat to wait for one: nothing was done, and the same request a
    little later will be served."""


class Ticket:
    """One job's place in a FairQueue: waiting, then granted (or refused)."""

    __slots__ = ("owner", "granted", "refused", "event")

    def __init__(self, owner: Hashable) -> None:
        self.owner = owner
        self.granted = False
        self.refused = False
        self.event = threading.Event()


class FairQueue:
    """Places for jobs of many owners, shared out in turn; safe to share between threads."""

    def __init__(
        self, places: int, capacity: int | None = None, waiting_per_owner: int | None = None
    ) -> None:
        if places < 1 or (capacity is not None and capacity < places):
            raise ValueError(
                f"a queue needs a place, and room for its places: {places}, {capacity}"
            )
        self.places = places
        self.capacity = capacity
        self.waiting_per_owner = waiting_per_owner
        self._lock = threading.Lock()
        self._running: Counter[Hashable] = Counter()
        self._waiting: dict[Hashable, deque[Ticket]] = {}
        # Each owner with jobs, stamped when its wait for a place began: at its arrival, or
        # when its last job ended. The smallest stamp goes first.
        self._turn: dict[Hashable, int] = {}
        self._clock = itertools.count()

    @property
    def running(self) -> int:
        with self._lock:
            return sum(self._running.values())

    @property
    def waiting(self) -> int:
        with self._lock:
            return sum(len(tickets) for tickets in self._waiting.values())

    def admit(self, owner: Hashable, timeout: float | None = None) -> Ticket:
        """Wait for a place for a job of ``owner``, at most ``timeout`` seconds; the ticket
        to give back to ``release`` when the job is done. Busy when there is no seat, when
        another owner's job took this one's seat, or after ``timeout``."""
        return self.wait(self.enter(owner), timeout)

    def enter(self, owner: Hashable) -> Ticket:
        """A seat for a job of ``owner``, taken now and behind the owner's jobs already in
        (so that an owner's jobs run in the order it asked), to ``wait`` on for its place;
        Busy when there is no seat."""
        ticket = Ticket(owner)
        with self._lock:
            if self.waiting_per_owner is not None and self._holds(owner) > self.waiting_per_owner:
                raise Busy
            if self.capacity is not None and self._held() >= self.capacity:
                self._give_up_a_seat_to(owner)
            self._waiting.setdefault(owner, deque()).append(ticket)
            self._turn.setdefault(owner, next(self._clock))
            self._dispatch()
        return ticket

    def wait(self, ticket: Ticket, timeout: float | None = None) -> Ticket:
        """``ticket`` once it holds a place, after at most ``timeout`` seconds; Busy when
        another owner's job took its seat, or after ``timeout`` (it is then out of the
        queue)."""
        ticket.event.wait(timeout)
        with self._lock:
            if not ticket.granted and not ticket.refused:
                self._forget_waiter(ticket)
                ticket.refused = True
        if ticket.refused:
            raise Busy
        return ticket

    def release(self, ticket: Ticket) -> None:
        """The job of ``ticket`` is done: its place goes to the owner whose turn it is."""
        with self._lock:
            owner = ticket.owner
            self._running[owner] -= 1
            if not self._running[owner]:
                del self._running[owner]
            if owner in self._waiting:
                self._turn[owner] = next(self._clock)
            elif owner not in self._running:
                del self._turn[owner]
            self._dispatch()

    @contextlib.contextmanager
    def place(self, owner: Hashable, timeout: float | None = None) -> Iterator[None]:
        """Run the block in a place of ``owner``'s (see ``admit``)."""
        ticket = self.admit(owner, timeout)
        try:
            yield
        finally:
            self.release(ticket)

    def _held(self) -> int:
        return sum(self._running.values()) + sum(map(len, self._waiting.values()))

    def _holds(self, owner: Hashable) -> int:
        return self._running[owner] + len(self._waiting.get(owner, ()))

    def _give_up_a_seat_to(self, newcomer: Hashable) -> None:
        """Make room for ``newcomer``: refuse the newest waiter of the owner that holds the
        most, if it would still hold more than the newcomer; else Busy for the newcomer."""
        greediest = max(self._waiting, key=self._holds, default=None)
        if greediest is None or self._holds(greediest) <= self._holds(newcomer) + 1:
            raise Busy
        refused = self._waiting[greediest][-1]
        self._forget_waiter(refused)
        refused.refused = True
        refused.event.set()

    def _forget_waiter(self, ticket: Ticket) -> None:
        tickets = self._waiting[ticket.owner]
        tickets.remove(ticket)
        if not tickets:
            del self._waiting[ticket.owner]
            if ticket.owner not in self._running:
                del self._turn[ticket.owner]

    def _dispatch(self) -> None:
        """Give the free places to waiting owners without a running job, in turn."""
        free = self.places - sum(self._running.values())
        while free > 0:
            ready = [owner for owner in self._waiting if owner not in self._running]
            if not ready:
                return
            owner = min(ready, key=self._turn.__getitem__)
            tickets = self._waiting[owner]
            ticket = tickets.popleft()
            if not tickets:
                del self._waiting[owner]
            self._running[owner] += 1
            ticket.granted = True
            ticket.event.set()
            free -= 1
