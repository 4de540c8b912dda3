"""The household PIN's own page, where a GET or an upload asked for it (web/security.py):
the PIN checked, then back where the player was."""

from flask import Blueprint, redirect, url_for

from scorekeeper.web.security import (
    PinForm,
    check_pin,
    local_path,
    pin_page,
    pin_required,
    unlocked,
)

bp = Blueprint("pin", __name__)


@bp.post("/household-pin")
def unlock():
    """The PIN page of a GET or an upload: unlock, then go back where the player was."""
    form = PinForm()
    next_url = local_path(form.household_next.data) or "/"
    if not pin_required() or unlocked():
        return redirect(next_url, code=303)
    refusal = check_pin(form)
    if refusal is not None:
        form.household_next.data = next_url
        return pin_page(form, url_for("pin.unlock"), [], refusal)
    return redirect(next_url, code=303)
