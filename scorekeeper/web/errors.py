"""Error pages in the player's language: never a bare 500, never a stack trace."""

from flask import Flask, Response, current_app, g, render_template, request
from flask_babel import gettext as _
from flask_wtf.csrf import CSRFError
from sqlalchemy.exc import SQLAlchemyError
from werkzeug.exceptions import BadHost, HTTPException, SecurityError

from scorekeeper.fairness import Busy
from scorekeeper.store.availability import Unavailable, unavailable

# When the database cannot serve (scorekeeper/store/availability.py): a lock or a full pool
# frees in a moment, a restarting server takes a few seconds, a full disk needs someone.
RETRY_AFTER_SECONDS = {Unavailable.BUSY: 2, Unavailable.AWAY: 5, Unavailable.FULL: 60}
# When a fair queue of heavy work has no seat left (passphrases being hashed, say).
BUSY_RETRY_AFTER_SECONDS = 5


def unavailable_page(message: str, retry_after: int) -> Response:
    """A 503 that says what to do, and when to try again: never kept by a cache."""
    response = current_app.response_class(
        render_template("errors/error.html", code=503, message=message), 503
    )
    response.headers["Retry-After"] = str(retry_after)
    response.headers["Cache-Control"] = "no-store"
    return response


def register(app: Flask) -> None:
    @app.errorhandler(CSRFError)
    def csrf_error(error: CSRFError):
        message = _(
            "La page a expiré ou ne vient pas de cette application : rechargez-la et recommencez."
        )
        return render_template("errors/error.html", code=400, message=message), 400

    @app.errorhandler(BadHost)
    @app.errorhandler(SecurityError)
    def bad_host(error: BadHost | SecurityError):
        # No page: without a valid host there is no URL adapter, so no url_for for the links.
        # SecurityError: hosted, a host name that is not the server's (TRUSTED_HOSTS).
        message = _("L'adresse du serveur demandée (en-tête Host) n'est pas valide.")
        return message, 400, {"Content-Type": "text/plain; charset=utf-8"}

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException):
        messages = {
            404: _("Cette page n'existe pas (ou plus)."),
            405: _("Cette adresse ne s'utilise pas ainsi."),
            413: _("La demande est trop grosse."),
        }
        message = messages.get(error.code, _("La demande n'a pas pu être traitée."))
        return render_template("errors/error.html", code=error.code, message=message), error.code

    @app.errorhandler(SQLAlchemyError)
    def database_error(error: SQLAlchemyError):
        why = unavailable(error)
        if why is None:
            return unexpected_error(error)
        # One line for the operator: the condition is expected, its traceback says nothing.
        detail = str(getattr(error, "orig", None) or error).strip().splitlines()
        app.logger.warning(
            "database %s: %s %s: %s",
            why.value,
            request.method,
            request.path,
            detail[0] if detail else type(error).__name__,
        )
        reasons = {
            Unavailable.AWAY: _("La base de données ne répond pas en ce moment."),
            Unavailable.BUSY: _("La base de données est occupée en ce moment."),
            Unavailable.FULL: _(
                "Le disque du serveur est plein : libérez de la place (anciennes "
                "sauvegardes, exports, journaux) pour que les parties s'enregistrent."
            ),
        }
        # The page must not ask the database again: Flask-Login would load the device once
        # more to put it in the page's context. Seen as no device, where Flask-Login keeps it.
        g._login_user = app.login_manager.anonymous_user()
        # The transaction was rolled back whole, or never began: nothing of the request
        # was written, and what was stored before is still there.
        if request.method in ("GET", "HEAD"):
            nothing = _("Rien n'est perdu : réessayez dans un instant.")
        else:
            nothing = _("Rien n'a été enregistré : réessayez dans un instant.")
        return unavailable_page(f"{reasons[why]} {nothing}", RETRY_AFTER_SECONDS[why])

    @app.errorhandler(Busy)
    def busy(error: Busy):
        # Refused at once: waiting would hold a request thread that the turns need.
        message = _(
            "Le serveur est très occupé en ce moment : rien n'a été fait, réessayez "
            "dans quelques secondes."
        )
        return unavailable_page(message, BUSY_RETRY_AFTER_SECONDS)

    @app.errorhandler(Exception)
    def unexpected_error(error: Exception):
        app.logger.exception("unexpected error", exc_info=error)
        message = _(
            "Une erreur inattendue s'est produite ; rien n'a été enregistré. Rechargez la page."
        )
        return render_template("errors/error.html", code=500, message=message), 500
