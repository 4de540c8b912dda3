"""The home page: games in progress, where to go next, and how another tablet joins."""

import functools
from urllib.parse import urlsplit

import segno
from flask import Blueprint, current_app, render_template, request, url_for
from flask_babel import gettext as _
from markupsafe import Markup

from scorekeeper.net import lan_address
from scorekeeper.store.games import count_games_in_progress, games_in_progress
from scorekeeper.web.paging import page_from_request
from scorekeeper.web.store import household, store

bp = Blueprint("main", __name__)

LOOPBACK = "127.0.0.1"
# The home page lists this many games in progress, the most recent first, and links to the
# rest: however many games a household leaves open, the page stays small and quick.
HOME_GAMES = 8
IN_PROGRESS_PAGE_SIZE = 50


def join_url() -> str:
    """The address a tablet on the home network opens: this machine's LAN address, on the
    port this page was asked on (the one the server listens on, whatever it was given)."""
    port = urlsplit(request.host_url).port or (443 if request.scheme == "https" else 80)
    return f"http://{lan_address()}:{port}"


def shared_url(endpoint: str, **values) -> str:
    """A link for another device to open (a join or spectator link, for its QR code): on
    EXTERNAL_URL when set, which hosted it always is, so that no request's Host header ever
    chooses where a household's links lead; else on the address this page was asked on."""
    external = current_app.config["EXTERNAL_URL"]
    if external is None:
        return url_for(endpoint, _external=True, **values)
    return external.rstrip("/") + url_for(endpoint, **values)


def qr_code_svg(url: str, *, keep: bool = False) -> Markup:
    """The URL as a QR code, inline SVG that scales with CSS (presentation attributes only,
    nothing the content security policy would block). ``keep``: an address shown again and
    again, whose code is kept once drawn."""
    draw = _kept_qr_code if keep else _qr_code
    return Markup(draw(url, _("Code QR de l'adresse %(url)s", url=url)))


def _qr_code(url: str, title: str) -> str:
    return segno.make(url, micro=False).svg_inline(
        border=2,
        omitsize=True,
        dark="#1f1d1a",
        light="#ffffff",
        svgclass="qr-code",
        lineclass=None,
        title=title,
    )


# Drawing the home page's code took half the page's CPU, for an address that changes only
# with the machine's network or port: the last few are kept, by address and title (which is
# in the page's language). Join and spectator links are secrets: drawn, never kept.
_kept_qr_code = functools.lru_cache(maxsize=8)(_qr_code)


@bp.get("/")
def home():
    url = join_url()
    return render_template(
        "home.html",
        games=games_in_progress(store(), household=household(), limit=HOME_GAMES),
        games_count=count_games_in_progress(store(), household=household()),
        join_url=url,
        join_qr=qr_code_svg(url, keep=True),
        offline=url.startswith(f"http://{LOOPBACK}:"),
    )


@bp.get("/games/in-progress")
def in_progress():
    """Every game in progress, a page at a time: the rest of the home page's list."""
    page = page_from_request(
        count_games_in_progress(store(), household=household()), IN_PROGRESS_PAGE_SIZE
    )
    games = games_in_progress(
        store(), household=household(), offset=page.offset, limit=page.size, count=page.count
    )
    return render_template("in_progress.html", games=games, page=page)
