"""A real `scorekeeper serve` on a loopback port, and plain HTTP clients that play on it.

Shared by the race and crash tests, the robustness script and the server benches. Clients
use http.client over one keep-alive connection each, keep the session cookie, and read the
CSRF token, the sequence number and the boxes that may be tapped from the sheet's own form.
"""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from html.parser import HTMLParser
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

REPO_ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT_SECONDS = 30.0
REQUEST_TIMEOUT_SECONDS = 30.0
# The server runs the checkout under test, whatever copy of scorekeeper is installed.
SERVE_CODE = "from scorekeeper.__main__ import main; main()"


def serve_arguments(instance: Path) -> list[str]:
    """`scorekeeper serve`'s arguments on loopback; "{port}" is filled in by the server."""
    return ["serve", "--host", "127.0.0.1", "--port", "{port}", "--instance", str(instance)]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LiveServer:
    """`scorekeeper serve --host 127.0.0.1` in a child process; a context manager that
    always kills it on exit. `command` replaces the serve command line, "{port}" in it
    standing for the free port found (see bench/load.py). The server uses the database
    `database_url`, else the instance folder's own, whatever the environment says. It
    builds no Conseil table ahead unless `tables_ahead`: seconds of a core at each start."""

    def __init__(
        self,
        instance: Path,
        log: Path,
        command: list[str] | None = None,
        database_url: str | None = None,
        tables_ahead: bool = False,
    ) -> None:
        self.log = log
        self.database_url = database_url
        if not tables_ahead:
            no_tables_ahead(instance)
        self.port = free_port()
        command = command or [sys.executable, "-c", SERVE_CODE, *serve_arguments(instance)]
        self.command = [part.replace("{port}", str(self.port)) for part in command]
        self.process: subprocess.Popen | None = None

    @property
    def base(self) -> tuple[str, int]:
        return "127.0.0.1", self.port

    def start(self) -> LiveServer:
        env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
        env.pop("SCOREKEEPER_DATABASE_URL", None)
        if self.database_url:
            env["SCOREKEEPER_DATABASE_URL"] = self.database_url
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                self.command, cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(
                    f"the server exited with {self.process.returncode}: "
                    f"{self.log.read_text(errors='replace')[-2000:]}"
                )
            try:
                socket.create_connection(self.base, timeout=0.5).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"the server did not listen within {START_TIMEOUT_SECONDS} s")

    def kill(self) -> None:
        """SIGKILL: the server gets no chance to finish anything, as in a power cut."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
        if self.process is not None:
            self.process.wait(timeout=10)

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(self, *exc_info) -> None:
        self.kill()


def no_tables_ahead(instance: Path) -> None:
    """The instance's config.py, with the Conseil's tables built only when asked for."""
    config = instance / "config.py"
    instance.mkdir(parents=True, exist_ok=True)
    said = config.read_text(encoding="utf-8") if config.exists() else ""
    if "ADVISOR_TABLES_AHEAD" not in said:
        config.write_text(f"{said}\nADVISOR_TABLES_AHEAD = False\n", encoding="utf-8")


class HeldConnections:
    """`idle` connections to a server that send nothing and `slow` ones that send their
    request's headers one byte every `drip_seconds`, as a stranger on the network would: a
    context manager that opens them all, then closes them."""

    def __init__(
        self, address: tuple[str, int], idle: int, slow: int, drip_seconds: float = 2.0
    ) -> None:
        self.address, self.idle, self.slow = address, idle, slow
        self.drip_seconds = drip_seconds
        self.sockets: list[socket.socket] = []
        self.stop = threading.Event()
        self.dripping = threading.Thread(target=self._drip, daemon=True)

    def __enter__(self) -> HeldConnections:
        try:
            for number in range(self.idle + self.slow):
                held = socket.create_connection(self.address, timeout=REQUEST_TIMEOUT_SECONDS)
                self.sockets.append(held)
                if number >= self.idle:
                    held.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        except BaseException:
            self.__exit__()
            raise
        self.dripping.start()
        return self

    def _drip(self) -> None:
        while not self.stop.wait(self.drip_seconds):
            for held in self.sockets[self.idle :]:
                try:
                    held.send(b"X")
                except OSError:
                    pass  # closed by the server: it holds nothing any more

    def __exit__(self, *_exc) -> None:
        self.stop.set()
        if self.dripping.is_alive():
            self.dripping.join(timeout=REQUEST_TIMEOUT_SECONDS)
        for held in self.sockets:
            held.close()


def open_sockets(pid: int) -> int:
    """How many sockets the process `pid` has open (Linux: read from /proc)."""
    count = 0
    for entry in os.scandir(f"/proc/{pid}/fd"):
        try:
            count += os.readlink(entry.path).startswith("socket:")
        except OSError:
            continue  # closed meanwhile
    return count


@dataclass
class Page:
    status: int
    headers: dict[str, str]
    text: str

    @property
    def location(self) -> str | None:
        return self.headers.get("location")


class _FormReader(HTMLParser):
    """The inputs and the `target` buttons of a page, whatever order attributes come in."""

    def __init__(self) -> None:
        super().__init__()
        self.inputs: dict[str, str] = {}
        self.targets: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        name, value = attributes.get("name"), attributes.get("value") or ""
        if tag == "input" and name:
            self.inputs.setdefault(name, value)
        elif tag == "button" and name == "target":
            self.targets.append(value)


@dataclass
class Sheet:
    """What a client needs from a sheet page to play the next turn."""

    csrf_token: str | None
    seq: int | None
    version: str | None
    targets: list[str] = field(default_factory=list)

    @classmethod
    def read(cls, html: str) -> Sheet:
        reader = _FormReader()
        reader.feed(html)
        seq = reader.inputs.get("seq")
        return cls(
            reader.inputs.get("csrf_token"),
            int(seq) if seq is not None else None,
            reader.inputs.get("version"),
            reader.targets,
        )

    @property
    def playable(self) -> bool:
        return self.seq is not None and bool(self.targets)


class Client:
    """One device at the table: one keep-alive connection and its session cookie."""

    def __init__(self, address: tuple[str, int], cookies: SimpleCookie | None = None) -> None:
        self.address = address
        self.cookies = cookies if cookies is not None else SimpleCookie()
        self.connection = http.client.HTTPConnection(*address, timeout=REQUEST_TIMEOUT_SECONDS)

    def twin(self) -> Client:
        """A second connection with the same cookies: the same tablet, tapped twice."""
        return Client(self.address, self.cookies)

    def close(self) -> None:
        self.connection.close()

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> Page:
        headers = dict(headers or {})
        cookie = "; ".join(f"{name}={morsel.value}" for name, morsel in self.cookies.items())
        if cookie:
            headers["Cookie"] = cookie
        try:
            self.connection.request(method, path, body=body, headers=headers)
            response = self.connection.getresponse()
            text = response.read().decode("utf-8", errors="replace")
        except (OSError, http.client.HTTPException):
            self.connection.close()
            raise
        for value in response.headers.get_all("Set-Cookie") or ():
            self.cookies.load(value)
        return Page(response.status, {k.lower(): v for k, v in response.getheaders()}, text)

    def get(self, path: str) -> Page:
        return self.request("GET", path)

    def post(self, path: str, fields: dict[str, str | int]) -> Page:
        return self.request(
            "POST",
            path,
            urlencode(fields).encode(),
            {"Content-Type": "application/x-www-form-urlencoded"},
        )

    def sheet(self, game_id: int) -> tuple[Page, Sheet]:
        page = self.get(f"/games/{game_id}")
        if page.status != 200:
            raise AssertionError(f"GET /games/{game_id} answered {page.status}")
        return page, Sheet.read(page.text)

    @staticmethod
    def entry_form(sheet: Sheet, dice: str, target: str) -> dict[str, str | int]:
        # confirm=1: a box these dice do not fill is barred at once instead of asking first.
        return {
            "csrf_token": sheet.csrf_token or "",
            "seq": sheet.seq,
            "version": sheet.version or "",
            "dice": dice,
            "target": target,
            "confirm": "1",
        }

    def submit(self, game_id: int, sheet: Sheet, dice: str, target: str) -> Page:
        return self.post(f"/games/{game_id}/entries", self.entry_form(sheet, dice, target))


# Distinct dice for each client, none of them a Yams (so no joker decides the box), so that
# the entry a client wrote can be told from all others.
CLIENT_DICE = (
    "12346",
    "11235",
    "22456",
    "13356",
    "12445",
    "23566",
    "11456",
    "33456",
    "12256",
    "14456",
)


def sorted_dice(dice: str) -> str:
    return "".join(sorted(dice))
