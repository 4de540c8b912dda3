"""Dates, times and numbers in each language's forms (scorekeeper/web/formats.py), each
moment on the household's day, as the pages show them."""

from datetime import UTC, datetime

import pytest

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.web.formats import (
    long_date,
    medium_date,
    one_decimal,
    percent,
    short_date,
    short_time,
)
from tests.support.apps import app_on
from tests.support.forms import page
from tests.support.games import import_documents, solo_document

# French and English as the pages have always shown them; then languages with no catalogue
# of ours yet, formatted with nothing typed in for them.
LANGUAGES = ["fr", "en", "de", "es", "sv"]


@pytest.fixture
def paris_app(instance_path, database_url):
    # A time zone away from UTC, so that a moment near midnight falls on another day there.
    with app_on(
        instance_path, database_url, BABEL_DEFAULT_TIMEZONE="Europe/Paris", LANGUAGES=LANGUAGES
    ) as app:
        yield app


MOMENT = datetime(2026, 12, 2, 6, 5, tzinfo=UTC)  # 07:05 in Paris
# The long, medium and short date, and the time, of MOMENT.
DAYS = {
    "fr": ("2 décembre 2026", "2 déc. 2026", "02/12/2026", "07:05"),
    "en": ("December 2, 2026", "Dec 2, 2026", "12/2/26", "7:05\N{NARROW NO-BREAK SPACE}AM"),
    "de": ("2. Dezember 2026", "02.12.2026", "02.12.26", "07:05"),
    "es": ("2 de diciembre de 2026", "2 dic 2026", "2/12/26", "7:05"),
    "sv": ("2 december 2026", "2 dec. 2026", "2026-12-02", "07:05"),
}
# One decimal of 0.35 and -187.45, rounded half to even (0.4 where format(0.35, ".1f") gives
# 0.3), then 0.125 and 0.135 as percentages.
COMMA = ("0,4", "-187,4", "12\N{NO-BREAK SPACE}%", "14\N{NO-BREAK SPACE}%")
FIGURES = {
    "fr": COMMA,
    "en": ("0.4", "-187.4", "12%", "14%"),
    "de": COMMA,
    "es": COMMA,
    "sv": COMMA,
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_language_has_its_forms(paris_app, language):
    with paris_app.test_request_context(headers={"Cookie": f"lang={language}"}):
        days = (long_date(MOMENT), medium_date(MOMENT), short_date(MOMENT), short_time(MOMENT))
        figures = (one_decimal(0.35), one_decimal(-187.45), percent(0.125), percent(0.135))
    assert (days, figures) == (DAYS[language], FIGURES[language])


def test_the_day_is_the_households(paris_app):
    late = datetime(2026, 12, 31, 23, 30, tzinfo=UTC)  # already 2027 in Paris
    with paris_app.test_request_context(headers={"Cookie": "lang=fr"}):
        assert (long_date(late), short_time(late)) == ("1 janvier 2027", "00:30")
    with paris_app.test_request_context(headers={"Cookie": "lang=en"}):
        assert (medium_date(late), short_date(late)) == ("Jan 1, 2027", "1/1/27")
        assert short_time(late) == "12:30\N{NARROW NO-BREAK SPACE}AM"


# What the pages below show, in each language: the day the two games ended, then Mag's
# average (319 and 171) and the share of Mag's columns with the bonus.
SHOWN = {
    "fr": ("1 févr. 2024", "1 mars 2024", "245,0", "50\N{NO-BREAK SPACE}%"),
    "en": ("Feb 1, 2024", "Mar 1, 2024", "245.0", "50%"),
}


@pytest.mark.parametrize("language", sorted(SHOWN))
def test_the_pages_show_days_and_figures_in_their_language(app, table, language):
    import_documents(
        app.extensions[STORE_EXTENSION],
        solo_document("Mag", finished_at="2024-02-01T12:00:00+00:00"),
        solo_document("Mag", bonus=False, yams=False, finished_at="2024-03-01T12:00:00+00:00"),
    )
    table.client.set_cookie("lang", language)
    paths = ("/hall-of-fame", "/players/1", "/games/1/review")
    text = " ".join(page(table.client, path) for path in paths)

    assert all(shown in text for shown in SHOWN[language])
