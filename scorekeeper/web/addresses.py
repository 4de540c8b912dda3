"""Addresses for another device to open (a join or spectator link, the home page's), and
their QR codes.
"""

import functools

import segno
from flask import current_app, url_for
from flask_babel import gettext as _
from markupsafe import Markup


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
