"""Whose games a request sees: the household of the device that asks.

At home (the default) there is one household and nobody signs in: every request is the
home household's. With ``HOUSEHOLDS = True`` in the instance config the score keeper is
hosted for many families: a device joins its household with the household's name and
passphrase, or by a one-use link shown on a device already joined, and stays joined through
Flask-Login's long-lived "remember me" cookie (signed, HttpOnly, SameSite=Lax; set
``REMEMBER_COOKIE_SECURE = True`` behind HTTPS). Each device has its own token, which its
cookie holds and the database only as a hash: removing it from the device list signs it out
at its next request. A device that has not joined sees only the join and sign-up pages, and
the spectator pages of their links.
"""

from __future__ import annotations

import ipaddress
import secrets
from datetime import UTC, datetime, timedelta

from flask import Flask, abort, g, redirect, request, session, url_for
from flask_login import LoginManager, UserMixin, current_user, login_user

from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.households import add_device, device_seen, signed_in_device
from scorekeeper.web.security import hosted
from scorekeeper.web.store import store

# A device's last visit is written at most this often: not one write per request.
SEEN_EVERY = timedelta(minutes=1)

# What a device that has not joined may open.
OPEN_ENDPOINTS = {
    "static",
    "joining.join",
    "joining.signup",
    "joining.join_link",
    "spectating.spectate",
    "spectating.spectate_version",
    "spectating.spectate_events",
    "language.choose",
    "pwa.manifest",
    "pwa.service_worker",
}

login_manager = LoginManager()


class Device(UserMixin):
    """A signed-in device, as Flask-Login sees it: its id is its token, which the device's
    cookie holds (the database keeps only its hash)."""

    def __init__(self, token: str, record, household_name: str) -> None:
        self.token = token
        self.record = record
        self.household_name = household_name

    def get_id(self) -> str:
        return self.token


@login_manager.user_loader
def _load_device(token: str) -> Device | None:
    found = signed_in_device(store(), token)
    return None if found is None else Device(token, *found)


@login_manager.user_loader
def _load_device(token: str) -> Device | None:
    found = signed_in_device(store(), token)
    return None if found is None else Device(token, *found)


def register(app: Flask) -> None:
    """Decide each request's household before its view runs."""
    login_manager.init_app(app)
    app.before_request(_choose_household)

    @app.context_processor
    def _household_name() -> dict:
        return {"household_name": g.get("household_name"), "hosted": hosted()}


def _choose_household():
    if not hosted():
        g.household_id = HOME_HOUSEHOLD
        return None
    if current_user.is_authenticated:
        device = current_user.record
        g.household_id = device.household_id
        g.household_name = current_user.household_name
        now = datetime.now(UTC)
        if now - device.last_seen_at > SEEN_EVERY:
            device_seen(store(), device.id, now)
        return None
    if request.endpoint in OPEN_ENDPOINTS:
        return None
    if request.method == "GET":
        return redirect(url_for("joining.join"))
    abort(401)


def sign_in(household_id: int) -> None:
    """This device joins the household: a new token, its cookie set, a fresh session."""
    token = secrets.token_urlsafe(32)
    add_device(store(), household_id, token, request.user_agent.string or "?")
    session.clear()
    login_user(Device(token, *signed_in_device(store(), token)), remember=True)


def client_address() -> str:
    """The client's address as the limits count it: an IPv6 address by its /64, the block
    that one home is given whole."""
    address = request.remote_addr or "?"
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address[:64]
    if parsed.version == 4:
        return str(parsed)
    if parsed.ipv4_mapped is not None:
        return str(parsed.ipv4_mapped)
    return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
