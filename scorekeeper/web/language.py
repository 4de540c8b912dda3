"""The language of the pages: the one chosen on this device, else the browser's, else French.

The choice lives in a cookie, not in the session: it belongs to the tablet and outlasts the
session, and a family's phones may each read another language at the same table.
"""

from __future__ import annotations

import functools
from types import MappingProxyType

from babel import Locale
from babel.support import Translations
from flask import Blueprint, Flask, abort, current_app, g, redirect, request, url_for
from flask_babel import get_locale, get_translations
from wtforms import HiddenField, SelectField
from wtforms.validators import InputRequired

from scorekeeper.rules import BOX_LABELS, COLUMN_LABELS, Rules
from scorekeeper.rules.labels import OwnWord
from scorekeeper.web.forms import Form
from scorekeeper.web.security import local_path

bp = Blueprint("language", __name__)

COOKIE = "lang"
COOKIE_MAX_AGE = 365 * 24 * 60 * 60
# Each language's name in itself, for the switch on every page. Babel's names are the same
# (a test compares them), but asking Babel for one loads that language's whole locale data,
# which the server then keeps: 4 MiB for two words, on a page that formats nothing.
LANGUAGE_NAMES = MappingProxyType(
    {"fr": "Français", "en": "English", "de": "Deutsch", "es": "Español", "sv": "Svenska"}
)


class LanguageForm(Form):
    lang = SelectField(validators=[InputRequired()])
    next = HiddenField()


def _languages() -> list[str]:
    return current_app.config["LANGUAGES"]


def select_locale() -> str:
    """Flask-Babel's locale selector."""
    chosen = request.cookies.get(COOKIE)
    if chosen in _languages():
        return chosen
    # By preference, each language by its primary tag: Werkzeug's best_match prefers any
    # exact match, so "fr-CA, en;q=0.5" would give English to a French-speaking browser.
    for value, quality in request.accept_languages:
        primary = value.replace("_", "-").split("-")[0].lower()
        if quality > 0 and primary in _languages():
            return primary
    return current_app.config["BABEL_DEFAULT_LOCALE"]


def _catalogue() -> Translations:
    """This request's catalogue, found once: Flask-Babel finds it again (context, domain,
    locale) for each string, and a score sheet holds about seventy."""
    try:
        return g.scorekeeper_catalogue
    except AttributeError:
        g.scorekeeper_catalogue = get_translations()
        return g.scorekeeper_catalogue


def install_template_gettext(app: Flask) -> None:
    """Let templates translate through `_catalogue`, with Flask-Babel's semantics otherwise
    (new-style: `_("%(name)s", name=...)`, escaped, and `ngettext` with `num`)."""
    app.jinja_env.install_gettext_callables(
        gettext=lambda string: _catalogue().ugettext(string),
        ngettext=lambda singular, plural, n: _catalogue().ungettext(singular, plural, n),
        pgettext=lambda context, string: _catalogue().upgettext(context, string),
        npgettext=lambda context, singular, plural, n: _catalogue().unpgettext(
            context, singular, plural, n
        ),
        newstyle=True,
    )


@functools.cache
def _names(locale: str, box_labels: tuple[tuple[str, str, bool], ...]) -> MappingProxyType:
    # Each label comes with whether it is the game's own word: "Chance" is Kniffel's own
    # word and the classique sheet's French alike, and must not share a cache entry.
    catalogue = _catalogue()
    boxes = {key: label if own else catalogue.ugettext(label) for key, label, own in box_labels}
    columns = {key: catalogue.ugettext(label) for key, label in COLUMN_LABELS.items()}
    return MappingProxyType(boxes | columns)


@bp.app_template_global()
def names(rules: Rules | None = None) -> MappingProxyType:
    """Every box's and column's name in the page's language, by key ("sixes", "down"), in
    the words of the game's rules (a Yatzy sheet's last box is "Yatzy", a Kniffel sheet's
    boxes are German and Generala's Spanish in every language): translated once per language,
    for the sheet that shows them in every row."""
    box_labels = BOX_LABELS if rules is None else rules.box_labels
    labels = tuple((key, label, isinstance(label, OwnWord)) for key, label in box_labels.items())
    return _names(str(get_locale()), labels)


@bp.app_template_global()
def current_language() -> str:
    return str(get_locale())


@bp.app_template_global()
def other_languages() -> list[tuple[str, str]]:
    """The languages the page could switch to, each as (code, its name in itself)."""
    return [(code, language_name(code)) for code in _languages() if code != current_language()]


def language_name(code: str) -> str:
    """The language's name in itself: ours, else Babel's (a language added to LANGUAGES)."""
    return LANGUAGE_NAMES.get(code) or Locale.parse(code).get_display_name(code).capitalize()


@bp.app_template_global()
def language_return_path() -> str:
    """Where the switch comes back to: this page; for a page that answers a POST (a refused
    form), the page that form was on, since the POST's URL may not answer a GET."""
    if request.method == "GET":
        return request.full_path.rstrip("?")
    return local_path(request.referrer) or ""


@bp.post("/language")
def choose():
    form = LanguageForm()
    form.lang.choices = _languages()
    if not form.validate():
        abort(400)
    response = redirect(local_path(form.next.data) or url_for("main.home"), code=303)
    # Lax: the cookie still comes with a link followed from elsewhere (a QR code, a bookmark).
    response.set_cookie(
        COOKIE,
        form.lang.data,
        max_age=COOKIE_MAX_AGE,
        samesite="Lax",
        httponly=True,
        secure=request.is_secure,
    )
    return response
