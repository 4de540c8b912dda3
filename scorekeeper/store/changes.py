"""Who is told when a game changes: the open sheets of this process, woken by the write.

Every write that changes a game (an entry, an undo, abandoning, taking up, deleting) marks
the game changed on its transaction (`mark_changed`, store/engine.py). Once the transaction
commits, the store hands what it changed to its listener, the process's `GameChanges`
(``store.listen(changes)``), which reads the game's new version once and wakes whoever
watches that game here: the event streams of the open sheets (web/live.py). Nobody asks in
between, so an idle sheet costs nothing.

- SQLite (one server process): the write reads the new version of each watched game it
  changed within its own transaction (its connection has the pages at hand; a read after
  the commit would take another connection and read them again), and the store hands the
  versions over after the commit.
- PostgreSQL (several processes): the transaction sends a ``NOTIFY``, which the server
  delivers at commit (never for a rollback) to every process listening on the database; each
  process listens on one connection of its own, opened with the first watcher, whatever the
  number of sheets it serves. A listening connection that breaks is opened again, and every
  watched game is read again then, since notifications may have been missed meanwhile.

A watcher is woken at most once per change and never misses one: it counts the changes it
has seen, so a change between its start and its first wait wakes it at once.

Fair seats: a watcher may hold a seat of a group (its household's, or its spectator link's)
that has at most `seats` of them in this process; a new one past that ends the group's own
oldest, never another group's. A device removed or a spectator link revoked ends the
watchers it holds in every process (`revoked`, heard through the same channel).
"""

from __future__ import annotations

import logging
import signal
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from weakref import WeakSet

from sqlalchemy import Connection

from scorekeeper.store.engine import CHANNEL, DEVICE, LINK, GameKey, Store
from scorekeeper.store.games import game_version, version_on
from scorekeeper.store.records import GameVersion

log = logging.getLogger(__name__)

# How long the listener waits before it opens a broken connection again.
RECONNECT_SECONDS = 1.0

# The version of a game watched before its first watcher read it.
_UNREAD = object()


class TooManyWatchers(Exception):
    """This process already serves as many open sheets as it may (LIVE_STREAMS)."""


class Stopped(Exception):
    """The server is stopping: every watcher ends."""


class Ended(Exception):
    """This watcher ends: its seat went to a newer one of its group (`revoked` False), or
    its device was removed or its spectator link revoked (`revoked` True)."""

    def __init__(self, revoked: bool) -> None:
        super().__init__("revoked" if revoked else "seat taken")
        self.revoked = revoked


@dataclass(eq=False)
class Seat:
    """Who holds a watcher: its group (the household's streams, or a spectator link's),
    the device or link it came through, and why it ended (None while it runs)."""

    group: tuple[str, int]
    holders: frozenset[tuple[str, int]]
    watched: _Watched | None = None
    ended: Ended | None = None


@dataclass
class _Watched:
    """One game watched in this process: its latest version (None once it is gone) and
    how many changes it has had since it was first watched."""

    version: GameVersion | None | object
    changes: int = 0
    watchers: int = 0
    changed: threading.Condition = field(default_factory=threading.Condition)


class Watcher:
    """One open sheet's view of its game; `GameChanges.watch` makes it, `close()` ends it."""

    def __init__(
        self, hub: GameChanges, key: GameKey, watched: _Watched, seat: Seat | None
    ) -> None:
        self._hub = hub
        self.key = key
        self._watched = watched
        self._seen = watched.changes
        self._seat = seat
        self.first: GameVersion | None = None
        # Forgotten when closed, or else when dropped: a response never sent (a client that
        # went before its first byte) must not keep its place among the LIVE_STREAMS.
        self.close = weakref.finalize(self, hub._forget, key, seat)

    def wait(self, timeout: float) -> GameVersion | None | bool:
        """The game's version after the next change (None: the game is gone), or False when
        `timeout` seconds passed without one. Raises Stopped when the server stops, Ended
        when the watcher's seat was taken back."""
        watched, seat = self._watched, self._seat
        with watched.changed:
            watched.changed.wait_for(
                lambda: (
                    self._hub.stopped
                    or watched.changes != self._seen
                    or (seat is not None and seat.ended is not None)
                ),
                timeout,
            )
            if self._hub.stopped:
                raise Stopped
            if seat is not None and seat.ended is not None:
                raise seat.ended
            if watched.changes == self._seen:
                return False
            self._seen = watched.changes
            return watched.version


class GameChanges:
    """The games watched in one server process, woken when a write of `store` changes one
    (it listens to the store: ``store.listen(changes)``).

    At most `limit` watchers at once: a sheet beyond them polls instead. On PostgreSQL the
    changes of every process are heard on one connection of its own, opened with the first
    watcher.
    """

    def __init__(self, store: Store, limit: int) -> None:
        self._store = store
        self.limit = limit
        self._lock = threading.Lock()
        self._watched: dict[GameKey, _Watched] = {}
        self._count = 0
        # Each group's seats in this process, the oldest first.
        self._seats: dict[tuple[str, int], list[Seat]] = {}
        self._listener: threading.Thread | None = None
        self.stopped = False
        _hubs.add(self)

    def _read_version(self, game_id: int, *, household: int) -> GameVersion | None:
        return game_version(self._store, game_id, household=household)

    @property
    def watchers(self) -> int:
        return self._count

    def watch(
        self,
        game_id: int,
        *,
        household: int,
        seat: Seat | None = None,
        seats: int | None = None,
    ) -> Watcher:
        """Start watching a game of `household`; the watcher's `first` is its version read
        just after (None: no such game), so that no change falls between the two. Raises
        TooManyWatchers beyond the limit, Stopped once the server stops. With a `seat`, its
        group holds at most `seats` watchers here: its own oldest ends to make room."""
        key = (household, game_id)
        ending: list[Seat] = []
        with self._lock:
            if self.stopped:
                raise Stopped
            held = self._seats.setdefault(seat.group, []) if seat is not None else []
            if seat is not None and seats is not None:
                # The group's own oldest make room, so that it never needs another's seat.
                while len(held) >= max(seats, 1):
                    ending.append(held.pop(0))
            if self._count - len(ending) >= self.limit:
                held[:0] = ending  # nothing ended after all
                raise TooManyWatchers
            watched = self._watched.setdefault(key, _Watched(_UNREAD))
            watched.watchers += 1
            self._count += 1
            if self._store.dialect == "postgresql" and self._listener is None:
                self._listener = threading.Thread(
                    target=self._listen_forever, name="scorekeeper-listen", daemon=True
                )
                self._listener.start()
            if seat is not None:
                seat.watched = watched
                held.append(seat)
            watcher = Watcher(self, key, watched, seat)
        for old in ending:
            self._end(old, Ended(revoked=False))
        try:
            first = self._read_version(game_id, household=household)
        except BaseException:
            watcher.close()
            raise
        with watched.changed:
            if watched.version is _UNREAD:
                watched.version = first
        watcher.first = first
        return watcher

    def _end(self, seat: Seat, why: Ended) -> None:
        if seat.watched is None:
            return
        with seat.watched.changed:
            if seat.ended is None:
                seat.ended = why
            seat.watched.changed.notify_all()

    def revoked(self, holders: Iterable[tuple[str, int]]) -> None:
        """These devices or spectator links hold no stream any more: end theirs here."""
        gone = set(holders)
        with self._lock:
            ending = [seat for held in self._seats.values() for seat in held if seat.holders & gone]
        for seat in ending:
            self._end(seat, Ended(revoked=True))

    def _forget(self, key: GameKey, seat: Seat | None = None) -> None:
        with self._lock:
            if seat is not None:
                held = self._seats.get(seat.group, [])
                if seat in held:
                    held.remove(seat)
                if not held:
                    self._seats.pop(seat.group, None)
            watched = self._watched.get(key)
            if watched is None:
                return
            watched.watchers -= 1
            self._count -= 1
            if watched.watchers == 0:
                del self._watched[key]

    def watches(self, key: GameKey) -> bool:
        """Whether an open sheet of this process watches this game."""
        with self._lock:
            return key in self._watched

    def changed(self, keys: Iterable[GameKey]) -> None:
        """These games changed (their writes committed): read each watched one's version
        once, then wake its watchers if it moved."""
        self.moved(
            {key: self._read_version(key[1], household=key[0]) for key in keys if self.watches(key)}
        )

    def moved(self, versions: Mapping[GameKey, GameVersion | None]) -> None:
        """These games are now at these versions (read after their writes, or within them):
        wake the watchers of each one that moved."""
        for key, version in versions.items():
            with self._lock:
                watched = self._watched.get(key)
            if watched is None:
                continue  # nobody watches it in this process any more
            with watched.changed:
                if version == watched.version:
                    continue  # heard twice, or read again after a reconnection
                watched.version = version
                watched.changes += 1
                watched.changed.notify_all()

    def versions_within(
        self, connection: Connection, changed: set[GameKey]
    ) -> dict[GameKey, GameVersion | None]:
        """The versions the games a write changed will have once it commits, for those an
        open sheet of this process watches, read within the write (SQLite: its connection
        has the pages at hand). On PostgreSQL the transaction's NOTIFY reaches every
        process, this one included, through its listener."""
        if connection.dialect.name != "sqlite":
            return {}
        return {
            key: version_on(connection, key[1], household=key[0])
            for key in changed
            if self.watches(key)
        }

    def committed(
        self, moved: dict[GameKey, GameVersion | None], revoked: set[tuple[str, int]]
    ) -> None:
        """A write committed: wake the watchers of the games it moved, end those of the
        holders it revoked (in this process; the others hear PostgreSQL's NOTIFY)."""
        if moved:
            self.moved(moved)
        if revoked:
            self.revoked(revoked)

    def stop(self) -> None:
        """End every watcher now, and refuse new ones: the server is stopping."""
        with self._lock:
            self.stopped = True
            every = list(self._watched.values())
        for watched in every:
            with watched.changed:
                watched.changed.notify_all()

    def _listen_forever(self) -> None:
        while not self.stopped:
            try:
                self._listen_once()
            except Exception as error:  # the database went away: listen again once it is back
                if self.stopped:
                    return
                log.warning(
                    "listening for game changes: %s; again in %.0f s", error, RECONNECT_SECONDS
                )
                time.sleep(RECONNECT_SECONDS)

    def _listen_once(self) -> None:
        connection = self._store.listening_connection()
        try:
            connection.execute(f"LISTEN {CHANNEL}")
            # Changes made while no connection listened went unheard: read every game again.
            with self._lock:
                every = list(self._watched)
            self.changed(every)
            while not self.stopped:
                # A short timeout, so that a stopping server is not held by its listener.
                for notice in connection.notifies(timeout=1.0):
                    first, _sep, second = notice.payload.partition(":")
                    if first in (DEVICE, LINK):
                        self.revoked([(first, int(second))])
                    else:
                        self.changed([(int(first), int(second))])
                    if self.stopped:
                        break
        finally:
            connection.close()


def listen_to(store: Store, limit: int) -> GameChanges:
    """A hub of at most `limit` open sheets, hearing what the writes of `store` change."""
    changes = GameChanges(store, limit)
    store.listen(changes)
    return changes


# Every hub of this process, so that a stopping server ends every watcher (stop_watchers).
_hubs: WeakSet[GameChanges] = WeakSet()


def stop_watchers() -> None:
    """End every open sheet's watch in this process: the server stops."""
    for hub in list(_hubs):
        hub.stop()


def end_streams_on_sigterm(apart: Callable[[Callable[[], None]], object]) -> None:
    """On SIGTERM a server process waits for its requests to end (gunicorn's
    graceful_timeout), and a stream would never end by itself: end them all first, then
    stop as the handler in place does. `apart` runs the ending outside the signal handler,
    which must not wait for a lock a request holds: in a thread, or in a greenlet under
    gevent (whose signal handlers may not wait at all)."""
    graceful_exit = signal.getsignal(signal.SIGTERM)

    def stop(signum, frame):
        apart(stop_watchers)
        graceful_exit(signum, frame)

    signal.signal(signal.SIGTERM, stop)
