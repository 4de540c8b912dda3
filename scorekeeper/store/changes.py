"""Who is told when a game changes: the open sheets of this process, woken by the write.

Every write that changes a game (an entry, an undo, abandoning, taking up, deleting) marks
the game changed on its transaction (`mark_changed`). Once the transaction commits, the
process's `GameChanges` reads the game's new version once and wakes whoever watches that
game here: the event streams of the open sheets (web/live.py). Nobody asks in between, so an
idle sheet costs nothing.

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
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from weakref import WeakSet

from sqlalchemy import Connection, func, select

from scorekeeper.store.records import GameVersion

log = logging.getLogger(__name__)

# PostgreSQL's channel for the changed games; a payload is "<household>:<game>".
CHANNEL = "scorekeeper_games"
# Where a transaction keeps the games it changed until it commits (the connection's info).
_CHANGED = "scorekeeper.changed_games"
# How long the listener waits before it opens a broken connection again.
RECONNECT_SECONDS = 1.0

GameKey = tuple[int, int]  # (household, game)
# The version of a game watched before its first watcher read it.
_UNREAD = object()


def mark_changed(connection: Connection, game_id: int, *, household: int) -> None:
    """Say, within a write's transaction, that this game changes with it."""
    connection.info.setdefault(_CHANGED, set()).add((household, game_id))
    if connection.dialect.name == "postgresql":
        connection.execute(select(func.pg_notify(CHANNEL, f"{household}:{game_id}")))


def take_changed(connection: Connection) -> set[GameKey]:
    """The games a transaction on this connection marked changed, forgotten from it."""
    return connection.info.pop(_CHANGED, set())


class TooManyWatchers(Exception):
    """This process already serves as many open sheets as it may (LIVE_STREAMS)."""


class Stopped(Exception):
    """The server is stopping: every watcher ends."""


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

    def __init__(self, hub: GameChanges, key: GameKey, watched: _Watched) -> None:
        self._hub = hub
        self.key = key
        self._watched = watched
        self._seen = watched.changes
        self.first: GameVersion | None = None
        # Forgotten when closed, or else when dropped: a response never sent (a client that
        # went before its first byte) must not keep its place among the LIVE_STREAMS.
        self.close = weakref.finalize(self, hub._forget, key)

    def wait(self, timeout: float) -> GameVersion | None | bool:
        """The game's version after the next change (None: the game is gone), or False when
        `timeout` seconds passed without one. Raises Stopped when the server stops."""
        watched = self._watched
        with watched.changed:
            watched.changed.wait_for(
                lambda: self._hub.stopped or watched.changes != self._seen, timeout
            )
            if self._hub.stopped:
                raise Stopped
            if watched.changes == self._seen:
                return False
            self._seen = watched.changes
            return watched.version


class GameChanges:
    """The games watched in one server process, woken when a write changes one.

    `read_version(game_id, household=...)` reads a game's version (the store's); `listen`,
    given for PostgreSQL, opens the listening connection (a DB-API connection in
    autocommit). At most `limit` watchers at once: a sheet beyond them polls instead.
    """

    def __init__(
        self,
        read_version: Callable[..., GameVersion | None],
        limit: int,
        listen: Callable[[], object] | None = None,
    ) -> None:
        self._read_version = read_version
        self.limit = limit
        self._listen = listen
        self._lock = threading.Lock()
        self._watched: dict[GameKey, _Watched] = {}
        self._count = 0
        self._listener: threading.Thread | None = None
        self.stopped = False
        _hubs.add(self)

    @property
    def watchers(self) -> int:
        return self._count

    def watch(self, game_id: int, *, household: int) -> Watcher:
        """Start watching a game of `household`; the watcher's `first` is its version read
        just after (None: no such game), so that no change falls between the two. Raises
        TooManyWatchers beyond the limit, Stopped once the server stops."""
        key = (household, game_id)
        with self._lock:
            if self.stopped:
                raise Stopped
            if self._count >= self.limit:
                raise TooManyWatchers
            watched = self._watched.setdefault(key, _Watched(_UNREAD))
            watched.watchers += 1
            self._count += 1
            if self._listen is not None and self._listener is None:
                self._listener = threading.Thread(
                    target=self._listen_forever, name="scorekeeper-listen", daemon=True
                )
                self._listener.start()
            watcher = Watcher(self, key, watched)
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

    def _forget(self, key: GameKey) -> None:
        with self._lock:
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
        connection = self._listen()
        try:
            connection.execute(f"LISTEN {CHANNEL}")
            # Changes made while no connection listened went unheard: read every game again.
            with self._lock:
                every = list(self._watched)
            self.changed(every)
            while not self.stopped:
                # A short timeout, so that a stopping server is not held by its listener.
                for notice in connection.notifies(timeout=1.0):
                    household, _sep, game_id = notice.payload.partition(":")
                    self.changed([(int(household), int(game_id))])
                    if self.stopped:
                        break
        finally:
            connection.close()


# Every hub of this process, so that a stopping server ends every watcher (stop_watchers).
_hubs: WeakSet[GameChanges] = WeakSet()


def stop_watchers() -> None:
    """End every open sheet's watch in this process: the server stops."""
    for hub in list(_hubs):
        hub.stop()
