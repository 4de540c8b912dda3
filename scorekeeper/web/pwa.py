"""Add to home screen: the web app manifest, in the player's language.

No service worker: browsers only allow one over HTTPS or on localhost, and the tablets open
the app by its LAN address (DESIGN.md, practical notes).
"""

from flask import Blueprint, jsonify, url_for
from flask_babel import get_locale
from flask_babel import gettext as _

bp = Blueprint("pwa", __name__)

# The sheet's felt green: the bar of an installed app matches the page header.
THEME_COLOR = "#1d5c46"
BACKGROUND_COLOR = "#f7f3ea"


@bp.get("/manifest.webmanifest")
def manifest():
    icons = [
        {
            "src": url_for("static", filename=f"icons/icon-{size}.png"),
            "sizes": f"{size}x{size}",
            "type": "image/png",
            "purpose": "any",
        }
        for size in (192, 512)
    ]
    icons.append(
        {
            "src": url_for("static", filename="icons/icon-maskable-512.png"),
            "sizes": "512x512",
            "type": "image/png",
            "purpose": "maskable",
        }
    )
    icons.append(
        {
            "src": url_for("static", filename="icons/icon.svg"),
            "sizes": "any",
            "type": "image/svg+xml",
            "purpose": "any",
        }
    )
    response = jsonify(
        {
            "name": _("Yams : la feuille de marque"),
            "short_name": _("Yams"),
            "description": _(
                "Lancez les vrais dés, tapez-les, touchez la case : l'application compte tout."
            ),
            "lang": str(get_locale()),
            "start_url": url_for("main.home"),
            "scope": url_for("main.home"),
            "display": "standalone",
            "orientation": "any",
            "theme_color": THEME_COLOR,
            "background_color": BACKGROUND_COLOR,
            "icons": icons,
        }
    )
    response.mimetype = "application/manifest+json"
    return response
