"""Security headers on every response, and the household PIN that guards destructive actions.

The PIN is optional: `HOUSEHOLD_PIN = "2580"` in the instance's config.py turns it on. A
destructive view wrapped in `require_pin` then asks for it once; a right PIN unlocks every
destructive action of that browser session for `UNLOCK_SECONDS`.
"""

from __future__ import annotations

import functools
import hmac
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

from flask import (
    Flask,
    Response,
    current_app,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from werkzeug.routing import BaseConverter, ValidationError
from wtforms import HiddenField, PasswordField, SubmitField
from wtforms.validators import InputRequired, Length

from scorekeeper.rules.numbers import read_whole
from scorekeeper.store import Store
from scorekeeper.store.households import get_household
from scorekeeper.store.limits import count_attempt, forget, household_attempts_key, recent_attempts
from scorekeeper.store.schema import MAX_DATABASE_ID
from scorekeeper.web.forms import Form
from scorekeeper.web.passphrases import matches
from scorekeeper.web.store import STORE_EXTENSION, household

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "frame-ancestors 'none'; base-uri 'self'; form-action 'self'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    # Same-origin pages still get the referrer: the PIN page uses it to send an upload back.
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
}

PIN_SETTING = "HOUSEHOLD_PIN"
HOSTED_SETTING = "HOUSEHOLDS"
UNLOCK_SECONDS = 300
# Wrong PINs allowed from one address within PIN_WINDOW (from the first of them); a 4-digit
# PIN then takes days to guess instead of minutes.
MAX_PIN_FAILURES = 5
PIN_WINDOW = timedelta(minutes=1)

UNLOCKED_UNTIL = "household_unlocked_until"
PIN_ATTEMPTS_EXTENSION = "scorekeeper.pin_attempts"
PIN_FIELD = "household_pin"
REPLAY_FIELD = "household_replay"
NEXT_FIELD = "household_next"
# Fields of the PIN form itself, never echoed back to the guarded view.
PIN_FORM_FIELDS = {"csrf_token", PIN_FIELD, REPLAY_FIELD, NEXT_FIELD, "household_submit"}


class DatabaseIdConverter(BaseConverter):
    """`<int:...>` in URLs: ASCII digits up to MAX_DATABASE_ID, read by `read_whole` like
    every number of the app. Anything else is a 404 at routing: `/games/١` is no game (the
    regex `\\d` would take Arabic-Indic digits), and a larger id would reach the database
    driver."""

    regex = r"[0-9]+"
    part_isolating = True
    weight = 50

    def to_python(self, value: str) -> int:
        number = read_whole(value, MAX_DATABASE_ID)
        if number is None:
            raise ValidationError()
        return number

    def to_url(self, value: int) -> str:
        return str(int(value))


class PinForm(Form):
    household_pin = PasswordField(
        _l("Code de la maison"), validators=[InputRequired(), Length(max=64)]
    )
    household_replay = HiddenField()
    household_next = HiddenField()
    household_submit = SubmitField(_l("Valider"))


class PinAttempts:
    """Recent wrong PINs per client address, counted in the database (store/limits.py):
    every thread and every server process sees the same tries. Wall-clock time, the one
    clock processes share."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def wait_seconds(self, address: str, *, household: int) -> int:
        """How long this address must wait before trying the household's PIN again; 0 when
        it may try now."""
        key = _pin_key(address, household)
        now = _moment(time.time())
        failures = recent_attempts(self.store, [key], PIN_WINDOW, now)[key]
        return failures.seconds_left(now) if failures.count >= MAX_PIN_FAILURES else 0

    def failed(self, address: str, *, household: int) -> None:
        count_attempt(self.store, _pin_key(address, household), PIN_WINDOW, _moment(time.time()))

    def succeeded(self, address: str, *, household: int) -> None:
        forget(self.store, _pin_key(address, household))


def _pin_key(address: str, household: int) -> str:
    # A proxy's header is believed as it comes: a longer value is cut, an address fits.
    return household_attempts_key(f"pin:{address[:64]}", household=household)


def _moment(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def register(app: Flask) -> None:
    """Bound the ids in URLs, add the security headers and the PIN's unlock endpoint.

    Call it before registering the other blueprints: a route takes its converters when it is
    added to the URL map.
    """
    app.url_map.converters["int"] = DatabaseIdConverter
    app.extensions[PIN_ATTEMPTS_EXTENSION] = PinAttempts(app.extensions[STORE_EXTENSION])
    app.after_request(_add_security_headers)


def _add_security_headers(response: Response) -> Response:
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def hosted() -> bool:
    """A hosted server of many households (HOUSEHOLDS), rather than one at home."""
    return bool(current_app.config[HOSTED_SETTING])


def pin_required() -> bool:
    """Hosted, every household has a PIN: its passphrase. At home, the config's, if any."""
    return hosted() or _household_pin() is not None


def _household_pin() -> str | None:
    pin = current_app.config.get(PIN_SETTING)
    return str(pin) if pin not in (None, "") else None


def _is_the_pin(typed: str) -> bool:
    if hosted():
        found = get_household(current_app.extensions[STORE_EXTENSION], household())
        return bool(
            found
            and found.passphrase_hash
            and matches(found.passphrase_hash, typed, owner=household())
        )
    return hmac.compare_digest(typed.strip().encode(), (_household_pin() or "").encode())


def unlocked() -> bool:
    return session.get(UNLOCKED_UNTIL, 0) > time.time()


def local_path(url: str | None) -> str | None:
    """`url` reduced to a path on this site, or None if it points anywhere else."""
    if not url:
        return None
    parts = urlsplit(url)
    if parts.netloc and parts.netloc != request.host:
        return None
    if parts.scheme not in ("", "http", "https") or not parts.path.startswith("/"):
        return None
    if parts.path.startswith("//") or "\\" in parts.path:
        return None
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _this_url() -> str:
    return request.full_path.rstrip("?")


def check_pin(form: PinForm) -> tuple[str, int] | None:
    """None when the form holds the right PIN (and unlocks the session), else why not."""
    attempts: PinAttempts = current_app.extensions[PIN_ATTEMPTS_EXTENSION]
    address = request.remote_addr or "?"
    wait = attempts.wait_seconds(address, household=household())
    if wait:
        return _("Trop de codes faux : réessayez dans %(seconds)d secondes.", seconds=wait), 429
    if not form.validate():
        return _("Tapez le code de la maison."), 403
    if not _is_the_pin(form.household_pin.data):
        attempts.failed(address, household=household())
        return _("Code faux : ce n'est pas le code de la maison."), 403
    attempts.succeeded(address, household=household())
    session[UNLOCKED_UNTIL] = time.time() + UNLOCK_SECONDS
    return None


def pin_page(
    form: PinForm,
    action: str,
    echoed: list[tuple[str, str]],
    refusal: tuple[str, int] | None = None,
    upload_lost: bool = False,
):
    error, status = refusal or (None, 403)
    return render_template(
        "security/pin.html",
        form=form,
        action=action,
        echoed=echoed,
        error=error,
        upload_lost=upload_lost,
    ), status


def _echoed_fields() -> list[tuple[str, str]]:
    """The fields of the refused POST, to send again with the PIN."""
    return [
        (name, value)
        for name, value in request.form.items(multi=True)
        if name not in PIN_FORM_FIELDS
    ]


def require_pin(view: Callable) -> Callable:
    """Ask for the household PIN before `view` runs, when the instance config sets one.

    A GET asks for the PIN, then comes back to the same page. A POST is held: the PIN page
    sends its fields again with the PIN, so the action runs as soon as the PIN is right. A
    file cannot be sent again: after the PIN, the player goes back to the form to choose it.
    """

    @functools.wraps(view)
    def guarded(*args, **kwargs):
        if not pin_required() or unlocked():
            return view(*args, **kwargs)
        form = PinForm()
        if request.method != "POST":
            form.household_next.data = _this_url()
            return pin_page(form, url_for("pin.unlock"), [])
        if request.files:
            form.household_next.data = local_path(request.referrer) or "/"
            return pin_page(form, url_for("pin.unlock"), [], upload_lost=True)
        form.household_replay.data = "1"
        if request.form.get(REPLAY_FIELD) != "1":
            return pin_page(form, _this_url(), _echoed_fields())
        refusal = check_pin(form)
        if refusal is not None:
            return pin_page(form, _this_url(), _echoed_fields(), refusal)
        return view(*args, **kwargs)

    return guarded
