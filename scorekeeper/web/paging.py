"""Pages of long lists, the French 404 for a page, a rule set or a player that is not there,
and the 409 of what only a finished game has."""

from __future__ import annotations

from dataclasses import dataclass

from flask import abort, make_response, render_template, request, url_for
from flask_babel import gettext as _

from scorekeeper.rules.numbers import read_whole


def not_found(message: str) -> None:
    """Stop the request with a 404 page that says what was not found."""
    abort(make_response(render_template("errors/error.html", code=404, message=message), 404))


def game_not_over(game_id: int, message: str) -> None:
    """Stop the request with the 409 of what only a finished game has (its card, its BG
    Stats play): ``message`` says so, one tap leads back to the sheet."""
    action = (url_for("games.sheet", game_id=game_id), _("Reprendre la feuille"))
    page = render_template("errors/error.html", code=409, message=message, action=action)
    abort(make_response(page, 409))


@dataclass(frozen=True)
class Page:
    """Page ``number`` (from 1) of ``count`` items shown ``size`` at a time."""

    number: int
    size: int
    count: int
    # The query argument that carries the number, for the links to the other pages.
    arg: str = "page"

    @property
    def pages(self) -> int:
        return max(1, -(-self.count // self.size))

    @property
    def offset(self) -> int:
        return (self.number - 1) * self.size

    @property
    def previous(self) -> int | None:
        return self.number - 1 if self.number > 1 else None

    @property
    def next(self) -> int | None:
        return self.number + 1 if self.number < self.pages else None


def page_from_request(count: int, size: int, arg: str = "page") -> Page:
    """The page the request asks for; a 404 that says which pages exist for any other."""
    raw = request.args.get(arg, "1")
    pages = Page(1, size, count, arg).pages
    number = read_whole(raw, pages)
    if not number:
        not_found(
            _(
                "La page « %(page)s » n'existe pas : choisissez entre 1 et %(pages)d.",
                page=raw[:20],
                pages=pages,
            )
        )
    return Page(number, size, count, arg)


def no_game(game_id: int) -> None:
    """Stop the request with a 404 page naming the game that is not there."""
    not_found(_("Aucune partie n'a le numéro %(id)d.", id=game_id))
