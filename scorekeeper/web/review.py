"""A game read-only, replayed entry by entry; and abandoning, taking up or deleting a game."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext
from wtforms import SubmitField

from scorekeeper.rules import COLUMN_LABELS, Entry, GameState, Score, replay
from scorekeeper.rules.labels import box_name
from scorekeeper.rules.numbers import read_whole
from scorekeeper.store import GameNotFound
from scorekeeper.store.lifecycle import WrongStatus, abandon_game, delete_game, resume_game
from scorekeeper.store.players import players_of_game
from scorekeeper.store.records import ABANDONED, FINISHED, IN_PROGRESS
from scorekeeper.web.conseil import game_review, wants_chances, win_review
from scorekeeper.web.forms import Form
from scorekeeper.web.paging import no_game, not_found
from scorekeeper.web.security import require_pin
from scorekeeper.web.store import household, load_or_404, store

bp = Blueprint("review", __name__, url_prefix="/games")

# Names the templates use to tell the statuses apart.
STATUS_NAMES = {"IN_PROGRESS": IN_PROGRESS, "FINISHED": FINISHED, "ABANDONED": ABANDONED}


@bp.context_processor
def statuses():
    return STATUS_NAMES


class AbandonForm(Form):
    submit = SubmitField(_l("Oui, abandonner la partie"))


class DeleteForm(Form):
    submit = SubmitField(_l("Oui, supprimer la partie"))


class ResumeForm(Form):
    submit = SubmitField(_l("Reprendre la partie"))


def _describe(state: GameState, entry: Entry, cell: Score) -> str:
    """One entry in a line: "Mag · 6 6 6 5 3 → Six : 18"."""
    box = box_name(state.rules.box_labels, entry.box, _)
    if len(state.rules.columns) > 1:
        box = _("%(box)s (%(column)s)", box=box, column=_(COLUMN_LABELS[entry.column]))
    points = _("barrée") if cell.barred else str(cell.points)
    if cell.yams_bonus:
        points += f" (+{cell.yams_bonus})"
    if cell.wins:
        points += " " + _("(Generala servida : la partie est gagnée)")
    elif cell.served:
        points += " " + _("(servida)")
    dice = " ".join(str(die) for die in entry.dice)
    # Translated as a whole: the space before the colon is French typography.
    return _(
        "%(name)s · %(dice)s → %(box)s : %(points)s",
        name=state.players[entry.player],
        dice=dice,
        box=box,
        points=points,
    )


@dataclass(frozen=True)
class ChanceChart:
    """One player's chance to win at the start and after each entry, as a small SVG line
    chart in user units (review/_chances.html draws it)."""

    name: str
    shares: tuple[float, ...]
    # Small enough that its labels read at 16 px on a tablet, two charts side by side.
    width: int = 360
    height: int = 132
    left: int = 64
    right: int = 350
    top: int = 12
    bottom: int = 104

    def x(self, index: int) -> float:
        return self.left + index * (self.right - self.left) / max(1, len(self.shares) - 1)

    def y(self, share: float) -> float:
        return self.bottom - share * (self.bottom - self.top)

    @property
    def polyline(self) -> str:
        return " ".join(
            f"{self.x(index):.1f},{self.y(share):.1f}" for index, share in enumerate(self.shares)
        )

    @property
    def highest(self) -> tuple[int, float]:
        """The entry after which the chance was highest (0: the start), and that chance."""
        index = max(range(len(self.shares)), key=lambda number: self.shares[number])
        return index, self.shares[index]

    @property
    def turning_point(self) -> tuple[int, float]:
        """Where the game turned for this player: the entry that changed their chance the
        most, and by how much (in share, negative when it fell)."""
        changes = [later - earlier for earlier, later in itertools.pairwise(self.shares)]
        index = max(range(len(changes)), key=lambda number: abs(changes[number]))
        return index + 1, changes[index]


def chance_charts(state: GameState, series: list) -> list[ChanceChart]:
    """One chart per player from ``WinChances.review``: their share of first place."""
    return [
        ChanceChart(name, tuple(position[player].share for position in series))
        for player, name in enumerate(state.players)
    ]


@bp.get("/<int:game_id>/review")
def show(game_id: int):
    """The sheet as it was after ``step`` entries (all of them unless asked otherwise)."""
    record, final = load_or_404(game_id)
    count = len(final.entries)
    raw = request.args.get("step", str(count))
    step = read_whole(raw, count)
    if step is None:
        not_found(
            ngettext(
                "Cette partie a %(num)d entrée : l'étape « %(step)s » n'existe pas.",
                "Cette partie a %(num)d entrées : l'étape « %(step)s » n'existe pas.",
                count,
                step=raw[:20],
            )
        )
    state = replay(final.rules, final.players, final.entries[:step])
    # Every entry with what it wrote: a filled box never changes, so the final sheet has it.
    log = [
        (
            number,
            _describe(
                final, entry, final.sheets[entry.player].columns[entry.column].cells[entry.box]
            ),
        )
        for number, entry in enumerate(final.entries, start=1)
    ]
    return render_template(
        "review/show.html",
        record=record,
        state=state,
        final=final,
        step=step,
        count=count,
        log=log,
        players=players_of_game(store(), game_id, household=household()),
        resume_form=ResumeForm(),
        analysis=game_review(final),
        chances=_chances(final),
        chances_awaited=final.is_over and wants_chances(final),
    )


def _chances(final: GameState) -> tuple[list, list[ChanceChart]] | None:
    """Each position's chances (start, then after each entry) and each player's chart."""
    series = win_review(final)
    return None if series is None else (series, chance_charts(final, series))


def _confirm_page(
    template: str, game_id: int, form: Form, error: str | None = None, status: int = 200
):
    record, state = load_or_404(game_id)
    return render_template(template, record=record, state=state, form=form, error=error), status


def _status_error(error: WrongStatus) -> str:
    if error.status == FINISHED:
        return _("Cette partie est terminée : elle ne s'abandonne pas.")
    if error.status == ABANDONED:
        return _("Cette partie est déjà abandonnée.")
    return _("Cette partie est en cours : il n'y a rien à reprendre.")


@bp.get("/<int:game_id>/abandon")
def abandon_confirm(game_id: int):
    return _confirm_page("review/abandon.html", game_id, AbandonForm(formdata=None))


@bp.post("/<int:game_id>/abandon")
def abandon(game_id: int):
    form = AbandonForm()
    if not form.validate_on_submit():
        return _confirm_page(
            "review/abandon.html", game_id, form, _("Rechargez la page et recommencez."), 400
        )
    try:
        abandon_game(store(), game_id, household=household())
    except GameNotFound:
        no_game(game_id)
    except WrongStatus as error:
        return _confirm_page("review/abandon.html", game_id, form, _status_error(error), 409)
    flash(
        _(
            "Partie abandonnée : elle n'entre pas au palmarès. Vous pouvez la revoir, "
            "la reprendre ou la supprimer."
        ),
        "info",
    )
    return redirect(url_for("main.home"), code=303)


@bp.post("/<int:game_id>/resume")
def resume(game_id: int):
    form = ResumeForm()
    if not form.validate_on_submit():
        flash(_("Rechargez la page et recommencez."), "error")
        return redirect(url_for("review.show", game_id=game_id), code=303)
    try:
        resume_game(store(), game_id, household=household())
    except GameNotFound:
        no_game(game_id)
    except WrongStatus as error:
        flash(_status_error(error), "error")
        return redirect(url_for("review.show", game_id=game_id), code=303)
    flash(_("La partie reprend là où elle s'était arrêtée."), "info")
    return redirect(url_for("games.sheet", game_id=game_id), code=303)


@bp.get("/<int:game_id>/delete")
def delete_confirm(game_id: int):
    return _confirm_page("review/delete.html", game_id, DeleteForm(formdata=None))


@bp.post("/<int:game_id>/delete")
@require_pin
def delete(game_id: int):
    """Delete a game for good: destructive, so a view of its own behind the household PIN."""
    form = DeleteForm()
    if not form.validate_on_submit():
        return _confirm_page(
            "review/delete.html", game_id, form, _("Rechargez la page et recommencez."), 400
        )
    try:
        delete_game(store(), game_id, household=household())
    except GameNotFound:
        no_game(game_id)
    flash(_("Partie n° %(id)d supprimée.", id=game_id), "info")
    return redirect(url_for("main.home"), code=303)
