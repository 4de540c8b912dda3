"""A household past one of its quotas (scorekeeper/store/quotas.py): a 429 page that says
what the quota is and when it frees up, in the reader's language; nothing was done."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from flask import Flask, current_app, render_template
from flask_babel import format_timedelta, ngettext
from flask_babel import gettext as _

from scorekeeper.sheets.workers import PrintersBusy
from scorekeeper.store.quotas import (
    ADVISOR_BUILDS,
    GAMES,
    IMPORTS,
    PDF_PAGES,
    QuotaExceeded,
    Quotas,
    give_back,
    take,
)
from scorekeeper.web.formats import short_time
from scorekeeper.web.store import household, quotas, store

# Quotas that free up later than this are told with the time of day they do.
TIME_OF_DAY_AFTER = timedelta(hours=1)


def register(app: Flask) -> None:
    @app.errorhandler(QuotaExceeded)
    def quota_exceeded(error: QuotaExceeded):
        return quota_response(error)


@contextlib.contextmanager
def pdf_pages_paid(pages: int) -> Iterator[None]:
    """The request's household pays the pages of a PDF drawn meanwhile from its quota
    (QuotaExceeded past it), and has them back when no worker drew them."""
    use = take(store(), household=household(), quota=quotas().pdf_pages, amount=pages)
    try:
        yield
    except PrintersBusy:
        give_back(store(), use)
        raise


def quotas_of(config) -> Quotas:
    """What a household may store and ask for, from the QUOTA_* settings; none at home,
    where the family owns the machine."""
    if not config["HOUSEHOLDS"]:
        return Quotas()
    return Quotas.of(
        config["QUOTA_GAMES_STORED"],
        config["QUOTA_IMPORTS_PER_DAY"],
        config["QUOTA_PDF_PAGES_PER_MINUTE"],
        config["QUOTA_ADVISOR_BUILDS_PER_DAY"],
    )


def quota_message(error: QuotaExceeded) -> str:
    """What the quota is, then when it frees up (or what frees it)."""
    limit = error.limit
    if error.kind == GAMES:
        rule = ngettext(
            "Une maison garde au plus %(num)d partie.",
            "Une maison garde au plus %(num)d parties.",
            limit,
        )
        if error.asked > 1:
            return (
                rule
                + " "
                + _(
                    "La vôtre en a %(stored)d, et ces %(asked)d de plus la "
                    "dépasseraient : rien n'a été ajouté.",
                    stored=error.used,
                    asked=error.asked,
                )
            )
        return (
            rule
            + " "
            + _(
                "La vôtre en a %(stored)d : effacez-en (après un export) pour "
                "en commencer d'autres.",
                stored=error.used,
            )
        )
    rule = {
        IMPORTS: lambda: ngettext(
            "Une maison fait au plus %(num)d import par jour.",
            "Une maison fait au plus %(num)d imports par jour.",
            limit,
        ),
        PDF_PAGES: lambda: ngettext(
            "Une maison fait dessiner au plus %(num)d page de PDF par minute.",
            "Une maison fait dessiner au plus %(num)d pages de PDF par minute.",
            limit,
        ),
        ADVISOR_BUILDS: lambda: ngettext(
            "Le conseil prépare au plus %(num)d table par jour pour une maison.",
            "Le conseil prépare au plus %(num)d tables par jour pour une maison.",
            limit,
        ),
    }[error.kind]()
    if error.frees_at is None:
        return (
            rule
            + " "
            + _(
                "Cette demande en prend %(asked)d à elle seule : demandez-en moins.",
                asked=error.asked,
            )
        )
    wait = max(error.frees_at - datetime.now(UTC), timedelta(seconds=1))
    delay = format_timedelta(wait, add_direction=True, threshold=1)
    if wait < TIME_OF_DAY_AFTER:
        return rule + " " + _("Ce sera de nouveau possible %(delay)s.", delay=delay)
    return (
        rule
        + " "
        + _(
            "Ce sera de nouveau possible à %(time)s (%(delay)s).",
            time=short_time(error.frees_at),
            delay=delay,
        )
    )


def quota_response(error: QuotaExceeded, page: str | None = None):
    """A refused request's 429: ``page``, else the error page with the quota's message;
    Retry-After when time frees the quota."""
    if page is None:
        page = render_template("errors/error.html", code=429, message=quota_message(error))
    response = current_app.response_class(page, 429)
    wait = retry_after(error)
    if wait is not None:
        response.headers["Retry-After"] = str(wait)
    response.headers["Cache-Control"] = "no-store"
    return response


def retry_after(error: QuotaExceeded) -> int | None:
    """The seconds until the quota frees up, for Retry-After; None when time frees nothing."""
    if error.frees_at is None:
        return None
    return max(1, int((error.frees_at - datetime.now(UTC)).total_seconds() + 0.999))
