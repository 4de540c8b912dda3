"""Printing: the print page, blank grids as PDF, the PDF of any game's sheet, and a finished
game's result card to share (PNG)."""

from flask import Blueprint, current_app, render_template, request
from flask_babel import gettext as _

from scorekeeper.rules import RuleError
from scorekeeper.sheets import MAX_PAGES, blank_grid_from_query, paper_from_query
from scorekeeper.sheets.card import GameNotOver, game_card
from scorekeeper.sheets.pdf import blank_pdf, game_pdf
from scorekeeper.sheets.workers import PrintersBusy
from scorekeeper.web.errors import unavailable_page
from scorekeeper.web.paging import game_not_over
from scorekeeper.web.quotas import pdf_pages_paid
from scorekeeper.web.store import household, load_or_404

bp = Blueprint("prints", __name__)

# When every PDF worker is busy: about the time of one PDF, with room to spare.
RETRY_AFTER_SECONDS = 3


@bp.errorhandler(PrintersBusy)
def _printers_busy(_error: PrintersBusy):
    # Refused at once rather than queued: a print storm must not take the request threads
    # that the tablets' turns and polls need.
    message = _(
        "Trop de PDF sont en préparation en ce moment : rien n'est perdu, "
        "réessayez dans quelques secondes."
    )
    return unavailable_page(message, RETRY_AFTER_SECONDS)


def _bad_query(error: RuleError):
    message = error.render(_)
    return render_template("errors/error.html", code=400, message=message), 400


def _pdf_response(pdf: bytes, filename: str):
    # Inline: the tablet opens its PDF viewer, from which the family prints.
    response = current_app.response_class(pdf, mimetype="application/pdf")
    response.headers["Content-Disposition"] = f'inline; filename="{filename}"'
    return response


@bp.get("/print")
def print_page():
    return render_template("print.html", max_pages=MAX_PAGES)


@bp.get("/sheets/blank.pdf")
def blank():
    try:
        grid = blank_grid_from_query(request.args.items(multi=True))
    except RuleError as error:
        return _bad_query(error)
    key, pdf = blank_pdf(grid, household=household(), paying=pdf_pages_paid)
    response = _pdf_response(pdf, _("yams-grille-%(paper)s.pdf", paper=grid.paper.key))
    # The same query gives the same bytes until the app changes: let the tablet revalidate.
    response.set_etag(key)
    response.headers["Cache-Control"] = "no-cache"
    return response.make_conditional(request)


@bp.get("/games/<int:game_id>/sheet.pdf")
def game_sheet(game_id: int):
    try:
        paper = paper_from_query(request.args.items(multi=True))
    except RuleError as error:
        return _bad_query(error)
    record, state = load_or_404(game_id)
    _key, pdf = game_pdf(record, state, paper, household=household(), paying=pdf_pages_paid)
    response = _pdf_response(pdf, _("yams-partie-%(id)d.pdf", id=game_id))
    # A game in progress changes with every turn: never show an old copy.
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/games/<int:game_id>/card.png")
def game_card_png(game_id: int):
    """The result card of a finished game, to share: « Partager » on the ranking sends it
    through the tablet's share sheet where the browser has one, else downloads it."""
    record, state = load_or_404(game_id)
    try:
        key, png = game_card(record, state, household=household(), paying=pdf_pages_paid)
    except GameNotOver:
        message = _("La carte à partager se fait à la fin de la partie : finissez-la d'abord.")
        game_not_over(game_id, message)
    response = current_app.response_class(png, mimetype="image/png")
    filename = _("yams-partie-%(id)d.png", id=game_id)
    response.headers["Content-Disposition"] = f'inline; filename="{filename}"'
    response.set_etag(key)
    response.headers["Cache-Control"] = "no-cache"
    return response.make_conditional(request)
