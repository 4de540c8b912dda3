"""Whose games a request sees: the household of the device that asks.

At home (the default) there is one household and nobody signs in: every request is the
home household's. With ``HOUSEHOLDS = True`` in the instance config the score keeper is
hosted for many families: a device joins its household with the household's name and
passphrase, or by a one-use link shown on a device already joined, and stays joined through
Flask-Login's long-lived "remember me" cookie (signed, HttpOnly, SameSite=Lax; set
``REMEMBER_COOKIE_SECURE = True`` behind HTTPS). Each device has its own token: removing
it from the device list signs it out at its next request. A device that has not joined
sees only the join and sign-up pages, and the spectator pages of their links.
"""

from __future__ import annotations

import functools
import hashlib
import secrets
from datetime import UTC, datetime, timedelta

from flask import (
    Blueprint,
    Flask,
    abort,
    current_app,
    flash,
    g,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_login import LoginManager, UserMixin, current_user, login_user, logout_user
from wtforms import IntegerField, PasswordField, StringField, SubmitField
from wtforms.validators import InputRequired, Length

from scorekeeper.store import HOME_HOUSEHOLD, GameNotFound
from scorekeeper.store.households import (
    MAX_HOUSEHOLD_NAME_LENGTH,
    HouseholdNameTaken,
    add_device,
    add_join_link,
    add_passphrase_failure,
    create_household,
    delete_household,
    device_by_token,
    device_seen,
    find_household,
    get_household,
    list_devices,
    recent_passphrase_failures,
    remove_device,
    set_spectator_token,
    spectated_game,
    spectator_token,
    use_join_link,
)
from scorekeeper.store.play import load
from scorekeeper.web.forms import Form
from scorekeeper.web.live import version_response
from scorekeeper.web.main import qr_code_svg
from scorekeeper.web.passphrases import STRANGERS, matches, new_hash, passphrase_hash
from scorekeeper.web.security import HOSTED_SETTING, MAX_DATABASE_ID, require_pin
from scorekeeper.web.store import household, load_or_404, store

SIGNUP_SETTING = "HOUSEHOLD_SIGNUP"
JOIN_LINK_MINUTES = 10
# Wrong passphrases allowed per household name, and per address, within the window.
MAX_PASSPHRASE_FAILURES = 5
PASSPHRASE_WINDOW = timedelta(minutes=15)
MIN_PASSPHRASE_LENGTH = 8
# A device's last visit is written at most this often: not one write per request.
SEEN_EVERY = timedelta(minutes=1)

# What a device that has not joined may open.
OPEN_ENDPOINTS = {"static", "households.join", "households.signup", "households.join_link",
                  "households.spectate", "households.spectate_version", "language.choose",
                  "pwa.manifest", "pwa.service_worker"}

bp = Blueprint("households", __name__)
login_manager = LoginManager()


def hosted() -> bool:
    return bool(current_app.config[HOSTED_SETTING])


class Device(UserMixin):
    """A signed-in device, as Flask-Login sees it: its id is its token."""

    def __init__(self, record) -> None:
        self.record = record

    def get_id(self) -> str:
        return self.record.token


@login_manager.user_loader
def _load_device(token: str) -> Device | None:
    record = device_by_token(store(), token)
    return None if record is None else Device(record)


class JoinForm(Form):
    name = StringField(_l("Nom de la maison"),
                       validators=[InputRequired(), Length(max=MAX_HOUSEHOLD_NAME_LENGTH)])
    passphrase = PasswordField(_l("Phrase secrète"), validators=[InputRequired(),
                                                                 Length(max=200)])
    submit = SubmitField(_l("Rejoindre"))


class SignupForm(JoinForm):
    passphrase = PasswordField(_l("Phrase secrète"), validators=[
        InputRequired(), Length(min=MIN_PASSPHRASE_LENGTH, max=200)])
    submit = SubmitField(_l("Créer la maison"))


class ActionForm(Form):
    submit = SubmitField(_l("Valider"))


class RemoveDeviceForm(Form):
    device = IntegerField(validators=[InputRequired()])


def register(app: Flask) -> None:
    """Decide each request's household before its view runs."""
    login_manager.init_app(app)
    app.register_blueprint(bp)
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
        found = get_household(store(), device.household_id)
        g.household_name = found.name if found else ""
        now = datetime.now(UTC)
        if now - device.last_seen_at > SEEN_EVERY:
            device_seen(store(), device.id, now)
        return None
    if request.endpoint in OPEN_ENDPOINTS:
        return None
    if request.method == "GET":
        return redirect(url_for("households.join"))
    abort(401)


def _sign_in(household_id: int) -> None:
    token = secrets.token_urlsafe(32)
    add_device(store(), household_id, token, request.user_agent.string or "?")
    session.clear()
    login_user(Device(device_by_token(store(), token)), remember=True)


def _address() -> str:
    return request.remote_addr or "?"


@bp.route("/household/join", methods=["GET", "POST"])
def join():
    if not hosted():
        abort(404)
    form = JoinForm()
    error = None
    if form.validate_on_submit():
        now = datetime.now(UTC)
        by_name, by_address = recent_passphrase_failures(
            store(), form.name.data, _address(), now - PASSPHRASE_WINDOW)
        found = find_household(store(), form.name.data)
        if max(by_name, by_address) >= MAX_PASSPHRASE_FAILURES:
            error = _("Trop d'essais manqués : réessayez dans un quart d'heure.")
        elif (found is not None and found.passphrase_hash is not None
              and matches(found.passphrase_hash, form.passphrase.data, owner=STRANGERS)):
            _sign_in(found.id)
            return redirect(url_for("main.home"), code=303)
        else:
            if found is None:
                # As slow as a wrong passphrase: the time taken tells no more than the words.
                matches(_dummy_hash(), form.passphrase.data, owner=STRANGERS)
            add_passphrase_failure(store(), form.name.data, _address(), now,
                                   now - PASSPHRASE_WINDOW)
            # The same words whether the name exists or not.
            error = _("Ce nom et cette phrase secrète ne vont pas ensemble.")
    elif form.is_submitted():
        error = _("Tapez le nom de la maison et sa phrase secrète.")
    return render_template("households/join.html", form=form, error=error,
                           signup=current_app.config[SIGNUP_SETTING]), 422 if error else 200


@functools.cache
def _dummy_hash() -> str:
    """A hash to check an unknown name's passphrase against, as slow as a household's."""
    return passphrase_hash(secrets.token_hex(16))


@bp.route("/household/new", methods=["GET", "POST"])
def signup():
    if not hosted() or not current_app.config[SIGNUP_SETTING]:
        abort(404)
    form = SignupForm()
    error = None
    if form.validate_on_submit():
        try:
            household_id = create_household(store(), form.name.data,
                                            new_hash(form.passphrase.data))
        except HouseholdNameTaken:
            error = _("Ce nom est déjà pris : choisissez-en un autre.")
        else:
            _sign_in(household_id)
            flash(_("La maison « %(name)s » est créée. Ajoutez vos autres appareils depuis "
                    "la page Appareils.", name=form.name.data.strip()), "info")
            return redirect(url_for("main.home"), code=303)
    elif form.is_submitted():
        error = _("Tapez un nom de 1 à %(most)d caractères et une phrase secrète d'au moins "
                  "%(least)d caractères.", most=MAX_HOUSEHOLD_NAME_LENGTH,
                  least=MIN_PASSPHRASE_LENGTH)
    return render_template("households/signup.html", form=form, error=error), \
        422 if error else 200


def _link_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@bp.get("/join/<token>")
def join_link(token: str):
    """A join link scanned or opened on a new device: it joins, once, within minutes."""
    if not hosted():
        abort(404)
    found = use_join_link(store(), _link_hash(token), datetime.now(UTC))
    if found is None:
        flash(_("Ce lien pour rejoindre a déjà servi ou a expiré : demandez-en un nouveau."),
              "error")
        return redirect(url_for("households.join"))
    _sign_in(found)
    return redirect(url_for("main.home"))


@bp.get("/household/devices")
def devices():
    if not hosted():
        abort(404)
    return render_template("households/devices.html", devices=list_devices(store(), household()),
                           this_device=current_user.record.id, form=ActionForm())


@bp.post("/household/join-link")
def new_join_link():
    """A fresh one-use link, with its QR code, for another device to join."""
    if not hosted():
        abort(404)
    if not ActionForm().validate_on_submit():
        abort(400)
    token = secrets.token_urlsafe(24)
    expires_at = datetime.now(UTC) + timedelta(minutes=JOIN_LINK_MINUTES)
    add_join_link(store(), household(), _link_hash(token), expires_at)
    url = url_for("households.join_link", token=token, _external=True)
    return render_template("households/join_link.html", url=url, qr=qr_code_svg(url),
                           minutes=JOIN_LINK_MINUTES)


@bp.post("/household/devices/remove")
def remove():
    """Remove a device of the household: its next request finds itself signed out."""
    if not hosted():
        abort(404)
    form = RemoveDeviceForm()
    if not form.validate_on_submit():
        abort(400)
    device_id = form.device.data
    if not (0 < device_id <= MAX_DATABASE_ID and remove_device(store(), household(), device_id)):
        abort(404)
    if device_id == current_user.record.id:
        logout_user()
        return redirect(url_for("households.join"), code=303)
    flash(_("L'appareil est retiré : il devra rejoindre la maison de nouveau."), "info")
    return redirect(url_for("households.devices"), code=303)


@bp.route("/household/delete", methods=["GET", "POST"])
@require_pin
def delete():
    """Delete the household and everything it owns, after its PIN and a confirmation."""
    if not hosted():
        abort(404)
    form = ActionForm()
    if form.validate_on_submit():
        delete_household(store(), household())
        logout_user()
        session.clear()
        return redirect(url_for("households.join"), code=303)
    return render_template("households/delete.html", form=form)


@bp.route("/games/<int:game_id>/spectator-link", methods=["GET", "POST"])
def spectator_link(game_id: int):
    """The game's read-only link for a screen that has not joined; it can be revoked."""
    load_or_404(game_id)
    form = ActionForm()
    if form.validate_on_submit():
        revoke = request.form.get("revoke") == "1"
        set_spectator_token(store(), game_id, None if revoke else secrets.token_urlsafe(24))
        return redirect(url_for("households.spectator_link", game_id=game_id), code=303)
    token = spectator_token(store(), game_id)
    url = url_for("households.spectate", token=token, _external=True) if token else None
    return render_template("households/spectator_link.html", game_id=game_id, url=url,
                           qr=qr_code_svg(url) if url else None, form=form)


def _spectated(token: str):
    found = spectated_game(store(), token)
    if found is None:
        abort(404)
    try:
        return load(store(), found[0], found[1])
    except GameNotFound:
        abort(404)


@bp.get("/watch/<token>")
def spectate(token: str):
    record, state = _spectated(token)
    return render_template("games/watch.html", game_id=record.id, record=record, state=state,
                           version_url=url_for("households.spectate_version", token=token))


@bp.get("/watch/<token>/version")
def spectate_version(token: str):
    """The spectator page's poll, as live.version answers a joined device's."""
    found = spectated_game(store(), token)
    return version_response(None if found is None else store().game_version(*found))
