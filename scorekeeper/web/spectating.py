"""Spectating: a game's read-only link for a screen that has not joined (a phone, a TV),
made, replaced or revoked by its household, and the page it opens, live like a sheet.
"""

from __future__ import annotations

import secrets

from flask import Blueprint, abort, redirect, render_template, request, session, url_for

from scorekeeper.play import load
from scorekeeper.store import GameNotFound
from scorekeeper.store.games import game_version
from scorekeeper.store.households import has_spectator_link, set_spectator_token, spectated_game
from scorekeeper.web.addresses import qr_code_svg, shared_url
from scorekeeper.web.forms import ActionForm
from scorekeeper.web.paging import no_game
from scorekeeper.web.store import household, load_or_404, store
from scorekeeper.web.streams import event_stream, spectator_seat, version_response

# The spectator link just made, kept in the session until its page shows it, once.
SPECTATOR_LINK_MADE = "spectator_link_made"

bp = Blueprint("spectating", __name__)


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
        return redirect(url_for("spectating.spectator_link", game_id=game_id), code=303)
    made = session.pop(SPECTATOR_LINK_MADE, None)
    token = made["token"] if made is not None and made["game"] == game_id else None
    url = shared_url("spectating.spectate", token=token) if token else None
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
        version_url=url_for("spectating.spectate_version", token=token),
        events_url=url_for("spectating.spectate_events", token=token),
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
        None if found is None else game_version(store(), found[0], household=found[1])
    )
