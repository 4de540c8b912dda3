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

import functools
import hashlib
import ipaddress
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
from flask_babel import ngettext
from flask_login import LoginManager, UserMixin, current_user, login_user, logout_user
from wtforms import IntegerField, PasswordField, StringField, SubmitField
from wtforms.validators import InputRequired, Length

from scorekeeper.store import HOME_HOUSEHOLD, GameNotFound
from scorekeeper.store.household_names import (
    MAX_HOUSEHOLD_NAME_LENGTH,
    HouseholdNameRefused,
    HouseholdNameTaken,
    household_key,
    household_name,
)
from scorekeeper.store.households import (
    add_device,
    add_join_link,
    create_household,
    delete_household,
    device_seen,
    find_household,
    get_household,
    has_spectator_link,
    household_name_taken,
    join_link_household,
    list_devices,
    remove_device,
    set_spectator_token,
    signed_in_device,
    spectated_game,
    use_join_link,
)
from scorekeeper.store.limits import count_attempt, recent_attempts, take_back
from scorekeeper.store.play import load
from scorekeeper.web.forms import Form
from scorekeeper.web.live import event_stream, spectator_seat, version_response
from scorekeeper.web.main import qr_code_svg, shared_url
from scorekeeper.web.paging import no_game
from scorekeeper.web.passphrases import STRANGERS, matches, new_hash, passphrase_hash
from scorekeeper.web.security import MAX_DATABASE_ID, hosted, require_pin
from scorekeeper.web.store import household, load_or_404, store

SIGNUP_SETTING = "HOUSEHOLD_SIGNUP"
SIGNUPS_PER_ADDRESS_SETTING = "SIGNUPS_PER_ADDRESS"
SIGNUPS_PER_HOUR_SETTING = "SIGNUPS_PER_HOUR"
SIGNUP_WINDOW = timedelta(hours=1)
# The key of the households created this hour by all addresses together (store/limits.py).
SIGNUPS_OVERALL = "signup"
JOIN_LINK_MINUTES = 10
# The spectator link just made, kept in the session until its page shows it, once.
SPECTATOR_LINK_MADE = "spectator_link_made"
# Passphrases tried from one address within the window, whatever the names; and wrong ones
# for one household's name, past which the addresses that sent them wait, not the others:
# a stranger can slow a household's guessers, never lock its family's tablets out.
MAX_PASSPHRASE_FAILURES = 5
PASSPHRASE_WINDOW = timedelta(minutes=15)
MIN_PASSPHRASE_LENGTH = 8
# A device's last visit is written at most this often: not one write per request.
SEEN_EVERY = timedelta(minutes=1)

# What a device that has not joined may open.
OPEN_ENDPOINTS = {
    "static",
    "households.join",
    "households.signup",
    "households.join_link",
    "households.spectate",
    "households.spectate_version",
    "households.spectate_events",
    "language.choose",
    "pwa.manifest",
    "pwa.service_worker",
}

bp = Blueprint("households", __name__)
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


class JoinForm(Form):
    name = StringField(
        _l("Nom de la maison"), validators=[InputRequired(), Length(max=MAX_HOUSEHOLD_NAME_LENGTH)]
    )
    passphrase = PasswordField(_l("Phrase secrète"), validators=[InputRequired(), Length(max=200)])
    submit = SubmitField(_l("Rejoindre"))


class SignupForm(JoinForm):
    passphrase = PasswordField(
        _l("Phrase secrète"),
        validators=[InputRequired(), Length(min=MIN_PASSPHRASE_LENGTH, max=200)],
    )
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
        g.household_name = current_user.household_name
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
    login_user(Device(token, *signed_in_device(store(), token)), remember=True)


def _address() -> str:
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


def _too_many(template: str, form: Form, seconds: int, **context):
    """The form's page again, refusing a try beyond a limit (429) until the window ends."""
    minutes = -(-seconds // 60)
    error = ngettext(
        "Trop d'essais : réessayez dans %(num)d minute.",
        "Trop d'essais : réessayez dans %(num)d minutes.",
        minutes,
    )
    return (
        render_template(template, form=form, error=error, **context),
        429,
        {"Retry-After": str(seconds)},
    )


@bp.route("/household/join", methods=["GET", "POST"])
def join():
    if not hosted():
        abort(404)
    form = JoinForm()
    error = None
    signup = current_app.config[SIGNUP_SETTING]
    if form.validate_on_submit():
        now = datetime.now(UTC)
        address = _address()
        by_address = f"passphrase:{address}"
        by_name = (
            "passphrase-name:" + hashlib.sha256(household_key(form.name.data).encode()).hexdigest()
        )
        by_both = f"{by_name}:{address}"
        # Counted before the passphrase is checked: of many tries sent at once from one
        # address, no more than the limit are checked. The right one is given back.
        tries = count_attempt(store(), by_address, PASSPHRASE_WINDOW, now)
        failures = recent_attempts(store(), (by_name, by_both), PASSPHRASE_WINDOW, now)
        if tries.count > MAX_PASSPHRASE_FAILURES or (
            failures[by_name].count >= MAX_PASSPHRASE_FAILURES and failures[by_both].count
        ):
            return _too_many("households/join.html", form, tries.seconds_left(now), signup=signup)
        found = find_household(store(), form.name.data)
        if (
            found is not None
            and found.passphrase_hash is not None
            and matches(found.passphrase_hash, form.passphrase.data, owner=STRANGERS)
        ):
            take_back(store(), by_address)
            _sign_in(found.id)
            return redirect(url_for("main.home"), code=303)
        if found is None:
            # As slow as a wrong passphrase: the time taken tells no more than the words.
            matches(_dummy_hash(), form.passphrase.data, owner=STRANGERS)
        count_attempt(store(), by_name, PASSPHRASE_WINDOW, now)
        count_attempt(store(), by_both, PASSPHRASE_WINDOW, now)
        # The same words whether the name exists or not.
        error = _("Ce nom et cette phrase secrète ne vont pas ensemble.")
    elif form.is_submitted():
        error = _("Tapez le nom de la maison et sa phrase secrète.")
    return render_template(
        "households/join.html", form=form, error=error, signup=signup
    ), 422 if error else 200


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
        now = datetime.now(UTC)
        # Every try of a well-formed form counts against its address, before anything else
        # is done: a flood from one address costs a query a try, and can ask only so many
        # names whether they are taken. (A form refused as it stands asks nothing.)
        tries = count_attempt(store(), f"signup:{_address()}", SIGNUP_WINDOW, now)
        if tries.count > current_app.config[SIGNUPS_PER_ADDRESS_SETTING]:
            return _too_many("households/signup.html", form, tries.seconds_left(now))
        try:
            name = household_name(form.name.data)
            # Checked before the passphrase is hashed, a tenth of a second of work, and
            # before the overall count: a taken name holds up no other address.
            if household_name_taken(store(), name):
                raise HouseholdNameTaken(name)
            wait = _take_a_signup_seat(now)
            if wait is not None:
                return _too_many("households/signup.html", form, wait)
            try:
                household_id = create_household(store(), name, new_hash(form.passphrase.data))
            except Exception:
                # Nothing created (the name taken meanwhile, the hashing busy): the seat
                # goes back.
                take_back(store(), SIGNUPS_OVERALL)
                raise
        except HouseholdNameRefused as refused:
            error = refused.render(_)
        except HouseholdNameTaken:
            error = _(
                "Ce nom est déjà pris, ou ressemble trop à celui d'une autre maison : "
                "choisissez-en un autre."
            )
        else:
            _sign_in(household_id)
            flash(
                _(
                    "La maison « %(name)s » est créée. Ajoutez vos autres appareils depuis "
                    "la page Appareils.",
                    name=name,
                ),
                "info",
            )
            return redirect(url_for("main.home"), code=303)
    elif form.is_submitted():
        error = _(
            "Tapez un nom de 1 à %(most)d caractères et une phrase secrète d'au moins "
            "%(least)d caractères.",
            most=MAX_HOUSEHOLD_NAME_LENGTH,
            least=MIN_PASSPHRASE_LENGTH,
        )
    return render_template("households/signup.html", form=form, error=error), 422 if error else 200


def _take_a_signup_seat(now: datetime) -> int | None:
    """Take one of the households all addresses together may create this hour; None once
    taken, else the seconds until one is free. Taken before the passphrase is hashed, so
    that of many sign-ups at once no more than the limit are; kept only by a sign-up that
    goes on to create its household. The overall count is of households created: refused
    tries count against their own address alone, and a stranger's flood of taken names
    never closes sign-up to the families who come after it."""
    seat = count_attempt(store(), SIGNUPS_OVERALL, SIGNUP_WINDOW, now)
    if seat.count <= current_app.config[SIGNUPS_PER_HOUR_SETTING]:
        return None
    take_back(store(), SIGNUPS_OVERALL)
    return seat.seconds_left(now)


@bp.route("/join/<token>", methods=["GET", "POST"])
def join_link(token: str):
    """A join link scanned or opened on a device: the page says which household it joins
    (and, on a device already joined, which one it leaves), and only its form joins, once,
    within minutes. Opening the link changes nothing, so that neither a link previewer nor
    a page that makes a tablet open it can use it up or move the tablet."""
    if not hosted():
        abort(404)
    found = join_link_household(store(), token, datetime.now(UTC))
    joining = get_household(store(), found) if found is not None else None
    if joining is None:
        return _join_link_gone()
    form = ActionForm()
    current = household() if current_user.is_authenticated else None
    if current != found and form.validate_on_submit():
        # The delete decides: of two devices using the link at once, one joins.
        if use_join_link(store(), token, datetime.now(UTC)) != found:
            return _join_link_gone()
        if current is not None:
            # The device leaves its household: it is no longer one of its devices.
            remove_device(store(), current, current_user.record.id)
            logout_user()
        _sign_in(found)
        flash(
            _("Cet appareil est maintenant dans la maison « %(name)s ».", name=joining.name), "info"
        )
        return redirect(url_for("main.home"), code=303)
    return render_template(
        "households/join_by_link.html",
        form=form,
        token=token,
        joining=joining.name,
        current=g.get("household_name") if current is not None else None,
        already=current == found,
    )


def _join_link_gone():
    message = _("Ce lien pour rejoindre a déjà servi ou a expiré : demandez-en un nouveau.")
    return render_template(
        "errors/error.html",
        code=404,
        message=message,
        action=(url_for("households.join"), _("Rejoindre une maison")),
    ), 404


@bp.get("/household/devices")
def devices():
    if not hosted():
        abort(404)
    return render_template(
        "households/devices.html",
        devices=list_devices(store(), household()),
        this_device=current_user.record.id,
        form=ActionForm(),
    )


@bp.post("/household/join-link")
def new_join_link():
    """A fresh one-use link, with its QR code, for another device to join."""
    if not hosted():
        abort(404)
    if not ActionForm().validate_on_submit():
        abort(400)
    token = secrets.token_urlsafe(24)
    expires_at = datetime.now(UTC) + timedelta(minutes=JOIN_LINK_MINUTES)
    add_join_link(store(), household(), token, expires_at)
    url = shared_url("households.join_link", token=token)
    return render_template(
        "households/join_link.html", url=url, qr=qr_code_svg(url), minutes=JOIN_LINK_MINUTES
    )


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
    """The game's read-only link for a screen that has not joined; it can be revoked, or
    replaced by a new one. The database keeps only its hash, so the link is shown once: on
    the page the form that made it leads to (through the session, so that reloading that
    page makes no other link)."""
    load_or_404(game_id)
    form = ActionForm()
    if form.validate_on_submit():
        token = None if request.form.get("revoke") == "1" else secrets.token_urlsafe(24)
        try:
            set_spectator_token(store(), game_id, token, household=household())
        except GameNotFound:
            no_game(game_id)
        if token is not None:
            session[SPECTATOR_LINK_MADE] = {"game": game_id, "token": token}
        return redirect(url_for("households.spectator_link", game_id=game_id), code=303)
    made = session.pop(SPECTATOR_LINK_MADE, None)
    token = made["token"] if made is not None and made["game"] == game_id else None
    url = shared_url("households.spectate", token=token) if token else None
    return render_template(
        "households/spectator_link.html",
        game_id=game_id,
        url=url,
        qr=qr_code_svg(url) if url else None,
        linked=url is not None or has_spectator_link(store(), game_id, household=household()),
        form=form,
    )


def _spectated(token: str):
    found = spectated_game(store(), token)
    if found is None:
        abort(404)
    try:
        return load(store(), found[0], household=found[1])
    except GameNotFound:
        abort(404)


@bp.get("/watch/<token>")
def spectate(token: str):
    record, state = _spectated(token)
    return render_template(
        "games/watch.html",
        game_id=record.id,
        record=record,
        state=state,
        version_url=url_for("households.spectate_version", token=token),
        events_url=url_for("households.spectate_events", token=token),
    )


@bp.get("/watch/<token>/events")
def spectate_events(token: str):
    """The spectator page's stream of changes, as live.events sends a joined device's."""
    found = spectated_game(store(), token)
    if found is None:
        abort(404)
    seat, seats = spectator_seat(found[0])
    return event_stream(found[0], household=found[1], seat=seat, seats=seats)


@bp.get("/watch/<token>/version")
def spectate_version(token: str):
    """The spectator page's poll, as live.version answers a joined device's."""
    found = spectated_game(store(), token)
    return version_response(
        None if found is None else store().game_version(found[0], household=found[1])
    )
