"""A game: start it, play its turns on the sheet, undo, and see the ranking at the end."""

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from scorekeeper.rules import BOX_LABELS, Entry, GameState, RuleError, Rules, Score, parse_dice
from scorekeeper.rules.options import TRIPLE_COLUMNS
from scorekeeper.store import GameNotFound, NothingToUndo, StaleSheet
from scorekeeper.store.play import load, play_turn, start_game
from scorekeeper.web.forms import EntryForm, NewGameForm, UndoForm
from scorekeeper.web.store import store

bp = Blueprint("games", __name__, url_prefix="/games")


def _load_or_404(game_id: int):
    try:
        return load(store(), game_id)
    except GameNotFound:
        abort(404)


def _rules_from(form: NewGameForm) -> Rules:
    preset = form.preset.data
    columns = list(TRIPLE_COLUMNS) if preset == "triple" else ["free"]
    if form.sec.data:
        columns.append("sec")
    options = {"preset": preset, "vache": form.vache.data, "columns": columns}
    if preset != "yatzy":
        options.update(
            four_kind=form.four_kind.data, three_kind=form.three_kind.data,
            full_house=form.full_house.data, joker=form.joker.data,
            yams_bonus=form.yams_bonus.data, plus_minus=form.plus_minus.data,
            dice=int(form.dice.data),
        )
    return Rules.from_dict(options)


@bp.route("/new", methods=["GET", "POST"])
def new():
    form = NewGameForm()
    error = None
    if form.validate_on_submit():
        names = [name for name in form.names.data if name]
        try:
            game_id = start_game(store(), _rules_from(form), names)
        except RuleError as rule_error:
            error = rule_error.render(_)
        else:
            return redirect(url_for("games.sheet", game_id=game_id), code=303)
    elif form.is_submitted():
        error = _("Vérifiez le formulaire : un nom fait au plus 40 caractères.")
    status = 422 if error else 200
    return render_template("games/new.html", form=form, error=error), status


def _render_sheet(game_id: int, state: GameState, form: EntryForm | None = None,
                  error: str | None = None, status: int = 200):
    """The sheet, with what each open box would score when dice were typed."""
    form = form or EntryForm(formdata=None)
    form.seq.data = len(state.entries)
    preview, forced = {}, []
    dice_text = form.dice.data
    if dice_text and state.active_player is not None:
        try:
            dice = parse_dice(dice_text, state.rules.dice)
            preview = state.preview(dice)
            for kind in state.rules.columns:
                reason = state.placement(state.active_player, kind, dice).forced
                if reason is not None:
                    forced.append(reason.render(_))
        except RuleError as rule_error:
            error = error or rule_error.render(_)
            status = max(status, 422)
    return render_template(
        "games/sheet.html", game_id=game_id, state=state, form=form, preview=preview,
        forced=forced, error=error,
    ), status


@bp.get("/<int:game_id>")
def sheet(game_id: int):
    _record, state = _load_or_404(game_id)
    form = EntryForm(formdata=None, dice=request.args.get("dice", "")[:40])
    return _render_sheet(game_id, state, form)


def _describe(state: GameState, cell: Score, player: int) -> str:
    name = state.players[player]
    box = _(BOX_LABELS[cell.box])
    if cell.barred:
        text = _("%(name)s barre la case %(box)s.", name=name, box=box)
    else:
        text = _("%(name)s marque %(points)d en %(box)s.", name=name, points=cell.points, box=box)
    if cell.yams_bonus:
        text += " " + _("Encore un Yams : +%(bonus)d !", bonus=cell.yams_bonus)
    return text


def _stale_message() -> str:
    return _("La feuille a changé entre-temps (un autre appareil a joué ou annulé) : "
             "voici la feuille à jour, rien n'a été enregistré.")


@bp.post("/<int:game_id>/entries")
def play(game_id: int):
    _record, state = _load_or_404(game_id)
    form = EntryForm()
    if not form.validate():
        return _render_sheet(game_id, state, form, _("Rechargez la feuille et recommencez."),
                             400)
    if form.seq.data != len(state.entries):
        return _render_sheet(game_id, state, form, _stale_message(), 409)
    if form.preview.data or not form.target.data:
        return _render_sheet(game_id, state, form)
    column, _sep, box = form.target.data.partition(":")
    player = state.active_player
    try:
        cell = state.score(Entry(player, column, box, form.dice.data))
    except RuleError as rule_error:
        return _render_sheet(game_id, state, form, rule_error.render(_), 422)
    if cell.barred and form.confirm.data != "1":
        return render_template("games/confirm_barred.html", game_id=game_id, state=state,
                               form=form, cell=cell, player=player,
                               floor=state.vache_floor(player, column, box))
    try:
        cell, after = play_turn(store(), game_id, form.seq.data, column, box, form.dice.data)
    except StaleSheet:
        _record, state = _load_or_404(game_id)
        return _render_sheet(game_id, state, form, _stale_message(), 409)
    flash(_describe(after, cell, player), "info")
    if after.is_over:
        return redirect(url_for("games.ranking", game_id=game_id), code=303)
    return redirect(url_for("games.sheet", game_id=game_id), code=303)


@bp.route("/<int:game_id>/undo", methods=["GET", "POST"])
def undo(game_id: int):
    _record, state = _load_or_404(game_id)
    form = UndoForm()
    if not state.entries:
        flash(_("Il n'y a rien à annuler : la partie n'a pas commencé."), "error")
        return redirect(url_for("games.sheet", game_id=game_id), code=303)
    if form.validate_on_submit():
        try:
            store().undo_entry(game_id, form.seq.data)
        except (StaleSheet, NothingToUndo):
            flash(_stale_message(), "error")
        else:
            last = state.entries[-1]
            flash(_("Entrée annulée : %(name)s, %(box)s. À %(name)s de rejouer.",
                    name=state.players[last.player], box=_(BOX_LABELS[last.box])), "info")
        return redirect(url_for("games.sheet", game_id=game_id), code=303)
    form.seq.data = len(state.entries)
    last = state.entries[-1]
    cell = state.sheets[last.player].columns[last.column].cells[last.box]
    return render_template("games/undo.html", game_id=game_id, state=state, form=form,
                           last=last, cell=cell)


@bp.get("/<int:game_id>/ranking")
def ranking(game_id: int):
    record, state = _load_or_404(game_id)
    if not state.is_over:
        return redirect(url_for("games.sheet", game_id=game_id), code=303)
    return render_template("games/ranking.html", game_id=game_id, state=state, record=record)
