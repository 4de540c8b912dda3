"""Error pages in the player's language: never a bare 500, never a stack trace."""

from flask import Flask, render_template
from flask_babel import gettext as _
from flask_wtf.csrf import CSRFError
from sqlalchemy.exc import OperationalError
from werkzeug.exceptions import BadHost, HTTPException, SecurityError

from scorekeeper.fairness import Busy

# When SQLite's write lock stays taken beyond the store's busy timeout (a large import):
# the tablet tries again a moment later.
LOCKED_RETRY_AFTER_SECONDS = 2
# When a fair queue of heavy work has no seat left (passphrases being hashed, say).
BUSY_RETRY_AFTER_SECONDS = 5


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

    @app.errorhandler(OperationalError)
    def database_error(error: OperationalError):
        if "database is locked" not in str(error.orig):
            return unexpected_error(error)
        # The transaction was rolled back whole: nothing of the request was written.
        message = _(
            "La base de données est occupée en ce moment (un import, sans doute) : "
            "rien n'a été enregistré, réessayez dans un instant."
        )
        response = app.response_class(
            render_template("errors/error.html", code=503, message=message), 503
        )
        response.headers["Retry-After"] = str(LOCKED_RETRY_AFTER_SECONDS)
        return response

    @app.errorhandler(Busy)
    def busy(error: Busy):
        # Refused at once: waiting would hold a request thread that the turns need.
        message = _(
            "Le serveur est très occupé en ce moment : rien n'a été fait, réessayez "
            "dans quelques secondes."
        )
        response = app.response_class(
            render_template("errors/error.html", code=503, message=message), 503
        )
        response.headers["Retry-After"] = str(BUSY_RETRY_AFTER_SECONDS)
        return response

    @app.errorhandler(Exception)
    def unexpected_error(error: Exception):
        app.logger.exception("unexpected error", exc_info=error)
        message = _(
            "Une erreur inattendue s'est produite ; rien n'a été enregistré. Rechargez la page."
        )
        return render_template("errors/error.html", code=500, message=message), 500
