"""Joining a hosted household: by its name and passphrase, by a one-use link from one of its
devices, or by creating a new one (sign-up); each within limits per address that a
stranger cannot turn against a family (store/limits.py).
"""

from __future__ import annotations

import functools
import hashlib
import secrets
from datetime import UTC, datetime, timedelta

from flask import Blueprint, abort, current_app, flash, g, redirect, render_template, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext
from flask_login import current_user, logout_user
from wtforms import PasswordField, StringField, SubmitField
from wtforms.validators import InputRequired, Length

from scorekeeper.store.household_names import (
    MAX_HOUSEHOLD_NAME_LENGTH,
    HouseholdNameRefused,
    HouseholdNameTaken,
    household_key,
    household_name,
)
from scorekeeper.store.households import (
    create_household,
    find_household,
    get_household,
    household_name_taken,
    join_link_household,
    remove_device,
    use_join_link,
)
from scorekeeper.store.limits import count_attempt, recent_attempts, take_back
from scorekeeper.web.forms import ActionForm, Form
from scorekeeper.web.passphrases import STRANGERS, matches, new_hash, passphrase_hash
from scorekeeper.web.security import hosted
from scorekeeper.web.signin import client_address, sign_in
from scorekeeper.web.store import household, store

SIGNUP_SETTING = "HOUSEHOLD_SIGNUP"
SIGNUPS_PER_ADDRESS_SETTING = "SIGNUPS_PER_ADDRESS"
SIGNUPS_PER_HOUR_SETTING = "SIGNUPS_PER_HOUR"
SIGNUP_WINDOW = timedelta(hours=1)
# The key of the households created this hour by all addresses together (store/limits.py).
SIGNUPS_OVERALL = "signup"
# Passphrases tried from one address within the window, whatever the names; and wrong ones
# for one household's name, past which the addresses that sent them wait, not the others:
# a stranger can slow a household's guessers, never lock its family's tablets out.
MAX_PASSPHRASE_FAILURES = 5
PASSPHRASE_WINDOW = timedelta(minutes=15)
MIN_PASSPHRASE_LENGTH = 8

bp = Blueprint("joining", __name__)


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
        address = client_address()
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
            sign_in(found.id)
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
        tries = count_attempt(store(), f"signup:{client_address()}", SIGNUP_WINDOW, now)
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
            sign_in(household_id)
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
        sign_in(found)
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
        action=(url_for("joining.join"), _("Rejoindre une maison")),
    ), 404
