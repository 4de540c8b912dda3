"""Dates, times and numbers in the page's language, each moment in the household's time zone:
the forms the pages show, each by one name, through Flask-Babel (CLDR's forms of every
language, so that a language added to LANGUAGES has its dates and numbers with nothing to
type in)."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import flask_babel


def long_date(moment: datetime | date) -> str:
    """A day in full words: « 2 décembre 2026 », "December 2, 2026"."""
    return flask_babel.format_date(moment, "long")


def medium_date(moment: datetime | date) -> str:
    """A day in words: « 2 déc. 2026 », "Dec 2, 2026"."""
    return flask_babel.format_date(moment, "medium")


def short_date(moment: datetime | date) -> str:
    """A day in figures: « 02/12/2026 », "12/2/26"."""
    return flask_babel.format_date(moment, "short")


def short_time(moment: datetime) -> str:
    """Hours and minutes: « 07:05 », "7:05 AM"."""
    return flask_babel.format_time(moment, "short")


def one_decimal(value: float) -> str:
    """A number with one decimal, rounded half to even: « 12,5 », "12.5"."""
    return flask_babel.format_decimal(value, "0.0")


def percent(share: float) -> str:
    """A share between 0 and 1 as a whole percentage: « 12 % », "12%"."""
    return flask_babel.format_percent(share)


# Up to this many hours a game's length is said in minutes (« 150 minutes »), past them in
# hours: two and a half hours said « 2 heures » would be half an hour out.
LENGTH_IN_MINUTES_UP_TO = timedelta(hours=3)


def game_length(length: timedelta) -> str:
    """How long a game took: « 72 minutes », "4 hours", by the catalogue's plural forms:
    Babel's format_timedelta chooses every unit by one threshold, and at none of them says
    both « 150 minutes » and « 2 minutes »."""
    if length < LENGTH_IN_MINUTES_UP_TO:
        minutes = max(1, round(length.total_seconds() / 60))
        return flask_babel.ngettext("%(num)d minute", "%(num)d minutes", minutes)
    hours = round(length.total_seconds() / 3600)
    return flask_babel.ngettext("%(num)d heure", "%(num)d heures", hours)
