"""Dates, times and numbers from the table of scorekeeper/web/formats.py: the same text as
Babel's, without loading Babel's locale data on the everyday pages."""

from datetime import UTC, datetime, timedelta

import babel.localedata
import flask_babel
import pytest

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.web.formats import (
    FORMS,
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


@pytest.fixture
def paris_app(instance_path, database_url):
    # A time zone away from UTC, so that a moment near midnight falls on another day there;
    # German has no forms of ours.
    with app_on(
        instance_path,
        database_url,
        BABEL_DEFAULT_TIMEZONE="Europe/Paris",
        LANGUAGES=["fr", "en", "de"],
    ) as app:
        yield app


# Every day of a leap year, each at times that cross midnight in Paris and noon.
MOMENTS = [
    datetime(2024, 1, 1, tzinfo=UTC) + timedelta(days=day, hours=hour, minutes=minute)
    for day in range(366)
    for hour, minute in ((0, 0), (10, 59), (11, 5), (22, 30), (23, 59))
]
# The numbers the pages show: averages and differences of totals, then shares of games.
DECIMALS = [n / 100 for n in range(-1000, 40000, 5)] + [0.35, 2.675, 187.45, 1e-9]
SHARES = [n / 10000 for n in range(10001)] + [0.125, 0.135, 1 / 3, 2 / 3]


@pytest.mark.parametrize("language", sorted(FORMS))
def test_each_form_is_babels_for_every_day_time_and_number(paris_app, language):
    with paris_app.test_request_context(headers={"Cookie": f"lang={language}"}):
        assert str(flask_babel.get_locale()) == language
        for moment in MOMENTS:
            assert long_date(moment) == flask_babel.format_date(moment, "long")
            assert medium_date(moment) == flask_babel.format_date(moment, "medium")
            assert short_date(moment) == flask_babel.format_date(moment, "short")
            assert short_time(moment) == flask_babel.format_time(moment, "short")
        for value in DECIMALS:
            assert one_decimal(value) == flask_babel.format_decimal(value, "0.0")
        for share in SHARES:
            assert percent(share) == flask_babel.format_percent(share)


def test_the_day_is_the_households(paris_app):
    late = datetime(2026, 12, 31, 23, 30, tzinfo=UTC)  # already 2027 in Paris
    with paris_app.test_request_context(headers={"Cookie": "lang=fr"}):
        assert (long_date(late), short_time(late)) == ("1 janvier 2027", "00:30")
    with paris_app.test_request_context(headers={"Cookie": "lang=en"}):
        assert (medium_date(late), short_date(late)) == ("Jan 1, 2027", "1/1/27")
        assert short_time(late) == "12:30\N{NARROW NO-BREAK SPACE}AM"


def test_a_language_without_forms_of_ours_gets_babels(paris_app):
    moment = datetime(2026, 3, 1, 12, tzinfo=UTC)
    with paris_app.test_request_context(headers={"Cookie": "lang=de"}):
        assert medium_date(moment) == "01.03.2026"
        assert long_date(moment) == "1. März 2026"
        assert one_decimal(1234.56) == "1234,6"
        assert percent(0.5) == "50\N{NO-BREAK SPACE}%"


# What the pages below show, in each language: the day the two games ended, then Mag's
# average (319 and 171) and the share of Mag's columns with the bonus.
SHOWN = {
    "fr": ("1 févr. 2024", "1 mars 2024", "245,0", "50\N{NO-BREAK SPACE}%"),
    "en": ("Feb 1, 2024", "Mar 1, 2024", "245.0", "50%"),
}


@pytest.mark.parametrize("language", sorted(FORMS))
def test_the_everyday_pages_load_no_locale_data(app, table, monkeypatch, language):
    # Babel keeps the data of every language it has formatted for the life of the server:
    # 4 MiB for the two. The pages a household opens every evening, with days and figures
    # on them, must not need it.
    import_documents(
        app.extensions[STORE_EXTENSION],
        solo_document("Mag", finished_at="2024-02-01T12:00:00+00:00"),
        solo_document("Mag", bonus=False, yams=False, finished_at="2024-03-01T12:00:00+00:00"),
    )
    table.new_game(["Mag", "Alix"])  # under way: the home page shows when it was last played
    loaded = []
    load = babel.localedata.load
    monkeypatch.setattr(
        babel.localedata, "load", lambda name, *args: loaded.append(name) or load(name, *args)
    )
    table.client.set_cookie("lang", language)
    paths = ("/", "/games/3", "/hall-of-fame", "/players/1", "/games/1/review")
    text = " ".join(page(table.client, path) for path in paths)

    assert all(shown in text for shown in SHOWN[language])
    assert loaded == []
