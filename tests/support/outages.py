"""A database that goes away and comes back, on either engine, without touching the server.

- PostgreSQL: the app reaches the test database through a relay on a loopback port. Cutting
  it closes every relayed connection and the listening socket, so the app sees what a
  restarting server does to it: its connections closed under it, then "connection refused";
  putting it back listens again on the same port.
- SQLite: the database file lives in a folder of its own; away, the folder is renamed
  ("unable to open database file"), and renamed back to return.

tests/robustness/test_database_away.py uses it; tests/robustness/test_faults.py restarts a
real PostgreSQL server for the same checks end to end.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import threading
from pathlib import Path

from sqlalchemy import make_url


class Relay:
    """Forwards TCP connections from a loopback port to `target`, until cut."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = 0
        self._listener: socket.socket | None = None
        self._sockets: set[socket.socket] = set()
        self._lock = threading.Lock()
        self.listen()

    def listen(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # cut
            try:
                server = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets.update((client, server))
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        """Refuse new connections and close the open ones, as a stopped server does."""
        # shutdown first: a close alone leaves the socket listening while the accepting
        # thread still waits in accept().
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        with self._lock:
            ends, self._sockets = self._sockets, set()
        for end in ends:
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()


class Outage:
    """The database of `url` seen through something the test can take away: `url` is what
    the app is given, `away()` and `back()` the fault."""

    def __init__(self, database_url: str, folder: Path) -> None:
        parsed = make_url(database_url)
        self.relay: Relay | None = None
        if parsed.get_backend_name() == "sqlite":
            self._folder = Path(folder) / "database"
            self._folder.mkdir(parents=True)
            path = self._folder / Path(parsed.database).name
            shutil.copyfile(parsed.database, path)
            self.url = f"sqlite:///{path}"
        else:
            self.relay = Relay((parsed.host or "127.0.0.1", parsed.port or 5432))
            self.url = parsed.set(host="127.0.0.1", port=self.relay.port).render_as_string(
                hide_password=False
            )

    def away(self, store=None) -> None:
        """Take the database away; `store`, an app's store on SQLite, then closes its pooled
        connections, which would go on reading the file through the renamed folder."""
        if self.relay is not None:
            self.relay.cut()
        else:
            self._folder.rename(self._folder.with_name("database-away"))
            if store is not None:
                store.dispose()

    def back(self) -> None:
        if self.relay is not None:
            self.relay.listen()
        else:
            self._folder.with_name("database-away").rename(self._folder)

    def close(self) -> None:
        if self.relay is not None:
            self.relay.cut()
