"""Dates, times and numbers in the page's language: the forms the pages show, from a table.

Babel would give the same text (a test compares them, day by day and number by number), but
the first date or number it formats loads that language's whole locale data, which the
server then keeps: 4 MiB for month names and a decimal comma. A language that is not in the
table (one added to LANGUAGES) is formatted by Babel.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from types import MappingProxyType
from typing import NamedTuple

import flask_babel
from flask_babel import get_locale, to_user_timezone


class Forms(NamedTuple):
    """One language's forms, as its CLDR data in Babel says them."""

    months: tuple[str, ...]  # abbreviated, January first (none holds a space)
    month_names: tuple[str, ...]  # in full
    long: str  # a day in words, filled by str.format(day=, month_name=, year=)
    medium: str  # a day in short words (month=)
    short: str  # a day in figures (month_number=, short_year=)
    time: str  # hours and minutes (hour=, hour12=, minute=, period=)
    decimal: str
    percent: str  # around the figures, "{}" standing for them


FORMS = MappingProxyType(
    {
        "fr": Forms(
            months=tuple("janv. févr. mars avr. mai juin juil. août sept. oct. nov. déc.".split()),
            month_names=tuple(
                "janvier février mars avril mai juin juillet août "
                "septembre octobre novembre décembre".split()
            ),
            long="{day} {month_name} {year}",
            medium="{day} {month} {year}",
            short="{day:02d}/{month_number:02d}/{year}",
            time="{hour:02d}:{minute:02d}",
            decimal=",",
            percent="{}\N{NO-BREAK SPACE}%",
        ),
        "en": Forms(
            months=tuple("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()),
            month_names=tuple(
                "January February March April May June July "
                "August September October November December".split()
            ),
            long="{month_name} {day}, {year}",
            medium="{month} {day}, {year}",
            short="{month_number}/{day}/{short_year:02d}",
            time="{hour12}:{minute:02d}\N{NARROW NO-BREAK SPACE}{period}",
            decimal=".",
            percent="{}%",
        ),
    }
)


def _forms() -> Forms | None:
    return FORMS.get(str(get_locale()))


def _day(moment: datetime | date) -> date:
    """The day a moment falls on where the household lives (as Flask-Babel sees it)."""
    if isinstance(moment, datetime):
        return to_user_timezone(moment).date()
    return moment


def _date(moment: datetime | date, form: str) -> str:
    forms = _forms()
    if forms is None:
        return flask_babel.format_date(moment, form)
    day = _day(moment)
    return getattr(forms, form).format(
        day=day.day,
        month=forms.months[day.month - 1],
        month_name=forms.month_names[day.month - 1],
        month_number=day.month,
        year=day.year,
        short_year=day.year % 100,
    )


def long_date(moment: datetime | date) -> str:
    """A day in full words: « 2 décembre 2026 », "December 2, 2026"."""
    return _date(moment, "long")


def medium_date(moment: datetime | date) -> str:
    """A day in words: « 2 déc. 2026 », "Dec 2, 2026"."""
    return _date(moment, "medium")


def short_date(moment: datetime | date) -> str:
    """A day in figures: « 02/12/2026 », "12/2/26"."""
    return _date(moment, "short")


def short_time(moment: datetime) -> str:
    """Hours and minutes where the household lives: « 07:05 », "7:05 AM"."""
    forms = _forms()
    if forms is None:
        return flask_babel.format_time(moment, "short")
    local = to_user_timezone(moment)
    return forms.time.format(
        hour=local.hour,
        hour12=(local.hour - 1) % 12 + 1,
        minute=local.minute,
        period="AM" if local.hour < 12 else "PM",
    )


# Up to this many hours a game's length is said in minutes (« 150 minutes »), past them in
# hours: two and a half hours said « 2 heures » would be half an hour out.
LENGTH_IN_MINUTES_UP_TO = timedelta(hours=3)


def game_length(length: timedelta) -> str:
    """How long a game took: « 72 minutes », "4 hours". The catalogue's plural forms
    rather than Babel's CLDR data, which the hall of fame's list would load for one word."""
    if length < LENGTH_IN_MINUTES_UP_TO:
        minutes = max(1, round(length.total_seconds() / 60))
        return flask_babel.ngettext("%(num)d minute", "%(num)d minutes", minutes)
    hours = round(length.total_seconds() / 3600)
    return flask_babel.ngettext("%(num)d heure", "%(num)d heures", hours)


def _rounded(value: float | Decimal, places: int) -> str:
    # As Babel rounds: the number as Python writes it, then half to even (0.35 gives 0.4,
    # where format(0.35, ".1f") gives 0.3 from the float just below it).
    exact = value if isinstance(value, Decimal) else Decimal(str(value))
    return str(exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN))


def one_decimal(value: float) -> str:
    """A number with one decimal: « 12,5 », "12.5"."""
    forms = _forms()
    if forms is None:
        return flask_babel.format_decimal(value, "0.0")
    return _rounded(value, 1).replace(".", forms.decimal)


def percent(share: float) -> str:
    """A share between 0 and 1 as a whole percentage: « 12 % », "12%"."""
    forms = _forms()
    if forms is None:
        return flask_babel.format_percent(share)
    return forms.percent.format(_rounded(Decimal(str(share)) * 100, 0))
