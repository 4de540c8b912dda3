"""What every request must be before anything reads it: for a host this server serves, and
free of the characters no stored text may hold.

Checked once, here, before every other check and every view: a NUL (PostgreSQL's text cannot
hold one) or half of a surrogate pair (no UTF-8 can encode one) in the path is a 404, and
anywhere else (query, headers, form fields, file names, an uploaded game file, a JSON body)
a 400 that says what to remove. The views then never meet them, on either database.

Werkzeug decodes the path, query and form as UTF-8, replacing what is not, so a surrogate
reaches Python only through a JSON escape ("\\ud800"); a NUL comes as %00 anywhere.
"""

from __future__ import annotations

import re

from flask import Flask, abort, render_template, request
from flask_babel import gettext as _
from werkzeug.exceptions import BadHost, SecurityError

FORBIDDEN_CHARACTER = re.compile("[\x00\ud800-\udfff]")
# A JSON string escape: a whole surrogate pair, another \uXXXX (its hex in group 1), or a
# one-character escape. Read left to right, "\\" is consumed whole, so "\\u0000" is no NUL.
_JSON_ESCAPE = re.compile(
    rb"\\(?:u(?:[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|([0-9a-fA-F]{4}))|.)",
    re.DOTALL,
)


def register(app: Flask) -> None:
    app.before_request(_check_request)


def has_forbidden_character(text: str) -> bool:
    return FORBIDDEN_CHARACTER.search(text) is not None


def json_has_forbidden_character(data: bytes) -> bool:
    """Whether JSON text (UTF-8) holds a NUL or a lone surrogate, raw or as an escape."""
    if b"\x00" in data:
        return True
    for escape in _JSON_ESCAPE.finditer(data):
        code = escape.group(1)
        if code is not None and (code == b"0000" or 0xD800 <= int(code, 16) <= 0xDFFF):
            return True
    return False


def _texts():
    """Every text of the request but its path: query, headers, form, file names."""
    yield from request.args.keys()
    yield from request.args.values()
    for name, value in request.headers.items():
        yield name
        yield value
    yield from request.form.keys()
    yield from request.form.values()
    for name, upload in request.files.items(multi=True):
        yield name
        yield upload.filename or ""


def _bodies():
    """The documents that come in as JSON: an uploaded file (the import's game files) or a
    JSON body."""
    for upload in request.files.values():
        yield upload.stream.read()
        upload.stream.seek(0)
    if request.is_json:
        yield request.get_data()


def _check_request():
    # A Host this server does not serve (TRUSTED_HOSTS), or no host name at all: there is
    # no URL adapter, so nothing else may run (errors.py answers it).
    if isinstance(request.routing_exception, (BadHost, SecurityError)):
        raise request.routing_exception
    if has_forbidden_character(request.path):
        abort(404)
    if any(has_forbidden_character(text) for text in _texts()) or any(
        json_has_forbidden_character(body) for body in _bodies()
    ):
        message = _(
            "La demande contient un caractère nul (U+0000) ou une moitié de caractère "
            "(U+D800 à U+DFFF), que le Yams ne garde pas : retirez-le et "
            "recommencez."
        )
        return render_template("errors/error.html", code=400, message=message), 400
    return None
