"""Open sheets through the test client: a sheet's stream read event by event, the sheet
asked for as sheet.js asks for it, the sheets drawn meanwhile, and a turn posted from a
page as it was served."""

from __future__ import annotations

import contextlib
import json
import re

from flask import template_rendered

from tests.support.forms import CSRF_FIELD

# What sheet.js sends when it asks for the sheet to swap into the page.
SWAP = {"X-Sheet-Swap": "1"}
# Streams that last a minute, as a server's do (the tests' apps end them after their first
# event).
LASTING = {"LIVE_STREAM_SECONDS": 60}


class Stream:
    """An open sheet's stream of changes, read event by event through the test client. The
    stream waits in the same thread: a change must be written before the next event is read."""

    def __init__(self, client, path):
        self.response = client.get(path, buffered=False)
        self._chunks = iter(self.response.response)

    def next(self) -> str:
        return next(self._chunks).decode()

    def version(self) -> dict:
        chunk = self.next()
        data = [line for line in chunk.splitlines() if line.startswith("data: ")]
        assert data, chunk
        return json.loads(data[-1].removeprefix("data: "))

    def close(self):
        self.response.close()


@contextlib.contextmanager
def sheets_drawn(app):
    """The sheet's template drawn meanwhile, one item each time."""
    drawn = []

    def count(sender, template, context, **extra):
        if template.name == "games/sheet.html":
            drawn.append(template)

    template_rendered.connect(count, app)
    try:
        yield drawn
    finally:
        template_rendered.disconnect(count, app)


def turn_from(page: str, seq: int, dice: str, target: str) -> dict:
    """The turn's form as the sheet ``page`` posts it: its version and its one CSRF token."""
    version = re.search(r'name="version" value="([^"]*)"', page).group(1)
    (token,) = set(CSRF_FIELD.findall(page))
    return {"seq": seq, "version": version, "dice": dice, "target": target, "csrf_token": token}
