"""What every request must be before anything reads it: for a host this server serves.

Checked once, here, before every other check and every view.
"""

from __future__ import annotations

from flask import Flask, request
from werkzeug.exceptions import BadHost, SecurityError


def register(app: Flask) -> None:
    app.before_request(_check_request)


def _check_request():
    # A Host this server does not serve (TRUSTED_HOSTS), or no host name at all: there is
    # no URL adapter, so nothing else may run (errors.py answers it).
    if isinstance(request.routing_exception, (BadHost, SecurityError)):
        raise request.routing_exception
