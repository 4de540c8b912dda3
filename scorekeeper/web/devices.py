"""A hosted household's devices: the list, a one-use link for another device to join, a
device removed (signed out at its next request, its open sheets ended), and the household
deleted with everything it owns.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

from flask import Blueprint, abort, flash, redirect, render_template, session, url_for
from flask_babel import gettext as _
from flask_login import current_user, logout_user
from wtforms import IntegerField
from wtforms.validators import InputRequired

from scorekeeper.store.households import (
    add_join_link,
    delete_household,
    list_devices,
    remove_device,
)
from scorekeeper.web.addresses import qr_code_svg, shared_url
from scorekeeper.web.forms import ActionForm, Form
from scorekeeper.web.security import MAX_DATABASE_ID, hosted, require_pin
from scorekeeper.web.store import household, store

JOIN_LINK_MINUTES = 10

bp = Blueprint("devices", __name__)


class RemoveDeviceForm(Form):
    device = IntegerField(validators=[InputRequired()])


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
    url = shared_url("joining.join_link", token=token)
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
        return redirect(url_for("joining.join"), code=303)
    flash(_("L'appareil est retiré : il devra rejoindre la maison de nouveau."), "info")
    return redirect(url_for("devices.devices"), code=303)


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
        return redirect(url_for("joining.join"), code=303)
    return render_template("households/delete.html", form=form)
