"""Pages read and forms posted as a device does: a form with the CSRF token its page
carries."""

from __future__ import annotations

import html
import io
import re

CSRF_FIELD = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')


def csrf_token_in(html: str) -> str:
    """The CSRF token of the first form of a page."""
    match = CSRF_FIELD.search(html)
    if match is None:  # raised, not asserted: the benches may run with -O
        raise AssertionError("no CSRF token on the page")
    return match.group(1)


def csrf_token(client, path: str = "/games/new", **request) -> str:
    """The CSRF token of the page at ``path`` (``request``: more arguments of the GET, such
    as ``base_url``)."""
    return csrf_token_in(client.get(path, **request).get_data(as_text=True))


def page_text(response) -> str:
    """A response's page, unescaped: assertions then read like the French on screen."""
    return html.unescape(response.get_data(as_text=True))


def page(client, url: str, status: int = 200) -> str:
    """The page at ``url``, unescaped, once its status is checked."""
    response = client.get(url)
    assert response.status_code == status, response.get_data(as_text=True)[:2000]
    return page_text(response)


def totals_shown(html: str) -> list[int]:
    """The totals a ranking or a hall of fame shows, in the order it shows them."""
    return [int(total) for total in re.findall(r'data-total="(\d+)"', html)]


def post(client, url: str, data: dict):
    """``data`` posted to ``url`` with a CSRF token, as the form of a page would."""
    return client.post(url, data={**data, "csrf_token": csrf_token(client)})


def upload(client, content, name="games.json", token=True):
    data = {"file": (io.BytesIO(content), name)}
    if token:
        data["csrf_token"] = csrf_token(client)
    return client.post("/import-export/import", data=data, content_type="multipart/form-data")
