"""A network between a tablet and the server that can be cut at a chosen moment of a turn.

`NetworkCut` is a TCP proxy on a loopback port: the tablet (Chromium) opens the proxy's
address, and each of its connections is relayed to the server. `cut_next_turn` arms it: the
next turn posted (``POST /games/<id>/entries``) is cut at that moment of its request, and the
network then stays cut for a while before it comes back by itself:

- ``before``: the request never reaches the server;
- ``request cut``: half of its first bytes reach the server, which never reads a whole one;
- ``answer lost``: the server reads it whole, writes the turn, and its answer is lost;
- ``answer cut``: the answer's status and part of the page arrive, the rest is lost;
- ``at random``: the network goes at a random instant after the request leaves, whatever
  the request is doing then.

While it is cut, the network is one of three kinds of gone: ``reset`` (every connection cut
and refused, as a tablet off the Wi-Fi), ``502`` (a front whose server is away: nginx's
502 Bad Gateway), or ``silent`` (connections open but nothing crosses; they are closed when
the network comes back, as after a drop that lost the packets).

Used by bench/offline_turns.py (50 tries) and tests/browser/test_offline.py (a few).
"""

from __future__ import annotations

import random
import socket
import struct
import threading
import time
from dataclasses import dataclass

MOMENTS = ("before", "request cut", "answer lost", "answer cut", "at random")
STYLES = ("reset", "502", "silent")
# A turn's request line, as the tablet sends it.
TURN_POST = b"POST /games/"
TURN_PATH = b"/entries"
# How often a relay looks whether it was told to stop, between two reads.
POLL_SECONDS = 0.1
BAD_GATEWAY = (
    b"HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\nContent-Length: 24\r\n"
    b"Connection: close\r\n\r\n<h1>502 Bad Gateway</h1>"
)
# The longest delay of an ``at random`` cut: beyond it a turn on this machine is answered.
RANDOM_CUT_SECONDS = 0.08


@dataclass(frozen=True)
class Plan:
    """Where the next turn's request is cut, how the network is gone, and for how long."""

    moment: str
    style: str
    seconds: float
    delay: float = 0.0  # for ``at random``


def _reset(sock: socket.socket) -> None:
    """Close with a TCP reset rather than a polite end, as a network gone does."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    sock.close()


class _Relay:
    """One connection of the tablet, relayed to the server by two threads."""

    def __init__(self, cut: NetworkCut, tablet: socket.socket, server: socket.socket) -> None:
        self.cut, self.tablet, self.server = cut, tablet, server
        self.stopped = threading.Event()
        self.frozen = False  # a silent cut: nothing crosses until it is closed
        self.answer_plan: Plan | None = None  # the turn's answer is cut on its way back
        self.answer_seen = 0
        for sock in (tablet, server):
            sock.settimeout(POLL_SECONDS)

    def start(self) -> None:
        for source, to_tablet in ((self.tablet, False), (self.server, True)):
            threading.Thread(target=self._pump, args=(source, to_tablet), daemon=True).start()

    def stop(self) -> None:
        self.stopped.set()

    def _pump(self, source: socket.socket, to_tablet: bool) -> None:
        target = self.tablet if to_tablet else self.server
        try:
            while not self.stopped.is_set():
                try:
                    data = source.recv(65536)
                except TimeoutError:
                    continue
                if not data:
                    target.shutdown(socket.SHUT_WR)
                    return
                # Cut meanwhile: nothing more crosses, not even what was on its way (a
                # browser sends a request again on another of its open connections at once).
                if self.frozen or self.stopped.is_set():
                    continue
                data = self._answer(data) if to_tablet else self._request(data)
                if data:
                    target.sendall(data)
        except OSError:
            pass  # closed by the other side, or by a cut
        finally:
            self.stop()
            self.cut.forget(self)
            _reset(self.tablet)
            self.server.close()

    def _request(self, data: bytes) -> bytes:
        """What of the tablet's bytes goes on to the server."""
        plan = self.cut.take_plan(data)
        if plan is None:
            return data
        if plan.moment == "before":
            self.cut.go(plan)
            return b""
        if plan.moment == "request cut":
            self.server.sendall(data[: len(data) // 2])
            self.cut.go(plan)
            return b""
        if plan.moment == "at random":
            threading.Timer(plan.delay, self.cut.go, args=(plan,)).start()
        else:
            self.answer_plan = plan
        return data

    def _answer(self, data: bytes) -> bytes:
        """What of the server's bytes goes on to the tablet."""
        plan = self.answer_plan
        if plan is None:
            return data
        if plan.moment == "answer lost":
            self.cut.go(plan)
            return b""
        # ``answer cut``: the status and headers, then half of the first bytes of the page.
        seen = self.answer_seen
        self.answer_seen += len(data)
        end = data.find(b"\r\n\r\n")
        if seen == 0 and (end < 0 or end + 4 == len(data)):
            return data  # the headers alone: the page follows in the next bytes
        keep = end + 4 + (len(data) - end - 4) // 2 if seen == 0 else len(data) // 2
        self.tablet.sendall(data[:keep])
        self.cut.go(plan)
        return b""


class NetworkCut:
    """The proxy: a context manager, listening on 127.0.0.1:`port` once entered."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(POLL_SECONDS)
        self.port = self.listener.getsockname()[1]
        self._lock = threading.Lock()
        self._relays: set[_Relay] = set()
        self._held: list[socket.socket] = []
        self._style: str | None = None  # None: the network is there
        self._plan: Plan | None = None
        self._closed = threading.Event()
        self._accepting = threading.Thread(target=self._accept, daemon=True)
        self.went_at: float | None = None  # time.monotonic() of the last cut
        self.back_at: float | None = None  # and of the network's return after it
        self.back = threading.Event()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> NetworkCut:
        self._accepting.start()
        return self

    def __exit__(self, *_exc) -> None:
        self._closed.set()
        self._accepting.join(timeout=5)
        self.listener.close()
        self.come_back()
        with self._lock:
            relays = list(self._relays)
        for relay in relays:
            relay.stop()

    def cut_next_turn(self, plan: Plan) -> None:
        """Cut the next turn's request at ``plan.moment``; the network is back by itself
        ``plan.seconds`` after the cut (``back`` is set then)."""
        self.back.clear()
        with self._lock:
            self._plan = plan

    @property
    def armed(self) -> bool:
        """A plan waits for its turn's request."""
        with self._lock:
            return self._plan is not None

    def take_plan(self, data: bytes) -> Plan | None:
        """The plan armed, once, for the bytes that start a turn's request."""
        if not (data.startswith(TURN_POST) and TURN_PATH in data.split(b"\r\n", 1)[0]):
            return None
        with self._lock:
            plan, self._plan = self._plan, None
        return plan

    def go(self, plan: Plan) -> None:
        """The network goes now, in ``plan.style``, for ``plan.seconds``."""
        with self._lock:
            if self._style is not None:
                return
            self._style = plan.style
            relays = list(self._relays)
        self.went_at = time.monotonic()
        for relay in relays:
            if plan.style == "silent":
                relay.frozen = True
            else:
                relay.stop()
        threading.Timer(plan.seconds, self.come_back).start()

    def come_back(self) -> None:
        """The network is back: what a silent cut held is closed, new connections pass."""
        with self._lock:
            was_cut, self._style = self._style is not None, None
            held, self._held = self._held, []
            frozen = [relay for relay in self._relays if relay.frozen]
        for relay in frozen:
            relay.stop()
        for sock in held:
            _reset(sock)
        if was_cut:
            self.back_at = time.monotonic()
        self.back.set()

    def forget(self, relay: _Relay) -> None:
        with self._lock:
            self._relays.discard(relay)

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                tablet, _address = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                style = self._style
                if style == "silent":
                    self._held.append(tablet)
                    continue
            if style == "reset":
                _reset(tablet)
            elif style == "502":
                threading.Thread(target=_bad_gateway, args=(tablet,), daemon=True).start()
            else:
                self._relay(tablet)

    def _relay(self, tablet: socket.socket) -> None:
        try:
            server = socket.create_connection(self.upstream, timeout=5)
        except OSError:
            _reset(tablet)
            return
        relay = _Relay(self, tablet, server)
        with self._lock:
            self._relays.add(relay)
        relay.start()


def _bad_gateway(tablet: socket.socket) -> None:
    """A front's answer with its server away: the request read, 502, the connection closed."""
    tablet.settimeout(2)
    try:
        tablet.recv(65536)
        tablet.sendall(BAD_GATEWAY)
    except OSError:
        pass
    finally:
        tablet.close()


def random_plan(rng: random.Random, number: int, seconds: float) -> Plan:
    """The plan of try `number`: every moment in turn, the style and the delay at random."""
    return Plan(
        moment=MOMENTS[number % len(MOMENTS)],
        style=rng.choice(STYLES),
        seconds=seconds,
        delay=rng.uniform(0, RANDOM_CUT_SECONDS),
    )


# No turn left waiting in the tablet's storage (static/js/sheet.js); the browser's error page
# has no storage, and no turn either.
NOTHING_WAITING = """() => {
  try {
    return !Object.keys(localStorage).some((key) => key.startsWith('waiting-turn:'));
  } catch {
    return true;
  }
}"""


@dataclass(frozen=True)
class Outcome:
    """What became of one turn tapped through a cut: how many entries it made (1, or 0 when
    lost, 2 when doubled), what the tablet said, and when."""

    plan: Plan
    written: int
    repeated: bool  # answered « Déjà enregistré »: written before its answer was lost
    refused: bool  # said not written, the sheet having changed
    error_page: bool  # the browser's own page instead of the sheet
    in_step: bool  # the sheet shown is the game as stored, with this turn's answer
    answered_after: float | None  # seconds from the network's return to the sheet shown


def tap_through_cut(page, cut: NetworkCut, plan: Plan, target, log, wait_seconds: float):
    """Tap ``target`` (the box that writes the turn) with ``plan`` armed; wait until the
    tablet has its answer and the network is back; ``log()`` is the game's entries. Only the
    turn's own entries count: ``log`` after must be ``log`` before and this turn, once."""
    before = log()
    cut.cut_next_turn(plan)
    target.click()
    page.wait_for_function(NOTHING_WAITING, timeout=wait_seconds * 1000)
    answered = time.monotonic()
    if cut.armed:
        raise AssertionError("the turn's request never crossed the network")
    came_back = cut.back.wait(timeout=wait_seconds)
    after = log()
    said = _page_text(page) if page.url.startswith(cut.base) else None
    shown = page.locator(f'[data-live-seq="{len(after)}"]').count() if said else 0
    return Outcome(
        plan=plan,
        written=len(after) - len(before) if after[: len(before)] == before else -1,
        repeated="Déjà enregistré" in (said or ""),
        refused="rien n'a été enregistré" in (said or ""),
        error_page=said is None,
        in_step=shown == 1,
        answered_after=answered - cut.back_at if came_back and cut.back_at else None,
    )


def _page_text(page) -> str | None:
    """The text of the app's page shown, None when no page of the app is there (the
    browser's error page, or a page still loading after a plain form post)."""
    try:
        return page.evaluate("() => document.querySelector('main')?.innerText ?? null")
    except Exception:  # the page navigating meanwhile (a form posted without scripts)
        return None
