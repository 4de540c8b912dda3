"""The home page: games in progress, where to go next, and how another tablet joins."""

from urllib.parse import urlsplit

import segno
from flask import Blueprint, render_template, request
from flask_babel import gettext as _
from markupsafe import Markup

from scorekeeper.net import lan_address
from scorekeeper.web.store import household, store

bp = Blueprint("main", __name__)

LOOPBACK = "127.0.0.1"


def join_url() -> str:
    """The address a tablet on the home network opens: this machine's LAN address, on the
    port this page was asked on (the one the server listens on, whatever it was given)."""
    port = urlsplit(request.host_url).port or (443 if request.scheme == "https" else 80)
    return f"http://{lan_address()}:{port}"


def qr_code_svg(url: str) -> Markup:
    """The URL as a QR code, inline SVG that scales with CSS (presentation attributes only,
    nothing the content security policy would block)."""
    code = segno.make(url, micro=False)
    return Markup(code.svg_inline(
        border=2, omitsize=True, dark="#1f1d1a", light="#ffffff", svgclass="qr-code",
        lineclass=None, title=_("Code QR de l'adresse %(url)s", url=url),
    ))


@bp.get("/")
def home():
    url = join_url()
    return render_template(
        "home.html", games=store().games_in_progress(household()), join_url=url,
        join_qr=qr_code_svg(url),
        offline=url.startswith(f"http://{LOOPBACK}:"),
    )
