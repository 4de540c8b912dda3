"""A game: start it, play its turns on the sheet, undo, and see the ranking at the end."""

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _

from scorekeeper.play import play_turn, start_game, undo_turn
from scorekeeper.rules import GameState, RuleError, Rules, Score
from scorekeeper.rules.labels import box_name
from scorekeeper.rules.numbers import read_whole
from scorekeeper.rules.options import OPTIONS, SEC
from scorekeeper.rules.results import rules_key
from scorekeeper.rules.rule_set import rules_from_choices
from scorekeeper.rules.throws import TURN_THROWS
from scorekeeper.store import (
    ABANDONED,
    GameRecord,
    NothingToUndo,
    StaleSheet,
)
from scorekeeper.store.games import player_key
from scorekeeper.store.players import recent_players
from scorekeeper.store.schema import MAX_DATABASE_ID
from scorekeeper.web.conseil import coach_game, prepare
from scorekeeper.web.forms import MAX_THROWS, EntryForm, NewGameForm, RematchForm, UndoForm
from scorekeeper.web.security import require_pin
from scorekeeper.web.sheet_pages import render_sheet, shared_sheet, turn_view, typed_faces
from scorekeeper.web.store import household, load_or_404, quotas, store

bp = Blueprint("games", __name__, url_prefix="/games")

# Sent by sheet.js with a turn it will swap in place (static/js/sheet.js says the same name).
SWAP_HEADER = "X-Sheet-Swap"


def _rules_from(form: NewGameForm) -> Rules:
    """The rules chosen: the options a preset has, as the form gives them (the form sends
    every option whatever the preset; a preset's own rules ignore the others)."""
    chosen = {
        option.name: form[option.name].data
        for option in OPTIONS
        if option.applies_to(form.preset.data)
    }
    return rules_from_choices({"preset": form.preset.data, SEC.name: form[SEC.name].data, **chosen})


# Chips of the household's players on the new-game screen, the most recent first.
KNOWN_PLAYERS_SHOWN = 12


def _seated(form: NewGameForm) -> list[str]:
    """The names typed, in their order, then the players ticked that were not typed."""
    names = [name for name in form.names.data if name]
    typed = {player_key(name) for name in names}
    for name in form.known.data:
        if name and player_key(name) not in typed:
            typed.add(player_key(name))
            names.append(name)
    return names


@bp.route("/new", methods=["GET", "POST"])
def new():
    form = NewGameForm()
    error = None
    if form.validate_on_submit():
        names = _seated(form)
        try:
            rules = _rules_from(form)
            game_id = start_game(store(), rules, names, household=household(), quotas=quotas())
        except RuleError as rule_error:
            error = rule_error.render(_)
        else:
            prepare(rules, len(names))  # the first Conseil asked answers at once
            return redirect(url_for("games.sheet", game_id=game_id), code=303)
    elif form.is_submitted():
        error = _("Vérifiez le formulaire : un nom fait au plus 40 caractères.")
    status = 422 if error else 200
    known = recent_players(store(), KNOWN_PLAYERS_SHOWN, household=household())
    ticked = {player_key(name) for name in form.known.data if name}
    return render_template(
        "games/new.html", form=form, error=error, known=known, ticked=ticked
    ), status


def edit_dice(
    text: str | None,
    count: int,
    add: str | None = None,
    drop: int | None = None,
    clear: bool = False,
) -> str:
    """The dice after a tap on the keypad: add a face (or a pair of one, as many as there is
    room for), take one die back, or start again."""
    faces = [] if clear else typed_faces(text)
    if drop is not None and 0 <= drop < len(faces):
        del faces[drop]
    if add:
        faces += typed_faces(add)[: max(0, count - len(faces))]
    return "".join(map(str, faces))


@bp.get("/<int:game_id>")
def sheet(game_id: int):
    record, state = load_or_404(game_id)
    dice = request.args.get("dice", "")[:40]
    if not dice:
        return shared_sheet(record, state)
    # Maxi Yatzy's throws chosen before a keypad tap without scripts (play, below).
    throws = read_whole(request.args.get("throws", "")[:10], MAX_THROWS)
    form = EntryForm(formdata=None, dice=dice, throws=throws)
    return render_sheet(record, state, form, quiet_while_typing=True)


@bp.get("/<int:game_id>/turn")
def turn(game_id: int):
    """The parts of the sheet that follow the dice, for the keypad script to swap in.

    409 when the page shows an outdated sheet (a turn was played or undone on another
    device): the script then reloads the page rather than preview on the wrong sheet.
    """
    _record, state = load_or_404(game_id)
    seen = read_whole(request.args.get("seq"), MAX_DATABASE_ID)
    if state.is_over or seen != len(state.entries):
        abort(409)
    view = turn_view(
        state,
        request.args.get("dice", "")[:40],
        quiet_while_typing=True,
        target=request.args.get("target", "")[:40],
        served=request.args.get("served") == "1",
    )
    return render_template("games/_turn_live.html", state=state, view=view)


def _throws(form: EntryForm) -> int | None:
    """The throws the turn used, as the form says them: the turn's own three say nothing
    (docs/rules.md §15), as in a game document."""
    return None if form.throws.data == TURN_THROWS else form.throws.data


def _describe(state: GameState, cell: Score, player: int) -> str:
    name = state.players[player]
    box = box_name(state.rules.box_labels, cell.box, _)
    if cell.barred:
        text = _("%(name)s barre la case %(box)s.", name=name, box=box)
    else:
        text = _("%(name)s marque %(points)d en %(box)s.", name=name, points=cell.points, box=box)
    if cell.yams_bonus:
        yams = box_name(state.rules.box_labels, state.rules.five_alike_box, _)
        text += " " + _("Encore un %(yams)s : +%(bonus)d !", yams=yams, bonus=cell.yams_bonus)
    if cell.wins:
        text += " " + _("Generala servida : %(name)s gagne la partie !", name=name)
    return text


def _stale_message() -> str:
    return _(
        "La feuille a changé entre-temps (un autre appareil a joué ou annulé) : "
        "voici la feuille à jour, rien n'a été enregistré."
    )


def _abandoned(game_id: int):
    """The 409 of a write on an abandoned game, with the way to take it up again."""
    message = _(
        "Cette partie a été abandonnée : rien n'a été enregistré. Pour la "
        "reprendre, ouvrez-la et touchez « Reprendre la partie »."
    )
    return render_template(
        "errors/error.html",
        code=409,
        message=message,
        action=(url_for("review.show", game_id=game_id), _("Ouvrir la partie")),
    ), 409


@bp.post("/<int:game_id>/entries")
def play(game_id: int):
    record, state = load_or_404(game_id)
    form = EntryForm()
    if record.status == ABANDONED:
        return _abandoned(game_id)
    if not form.validate():
        if form.turn_key.errors:
            # Only a page not of this app sends such a key: nothing to write, nothing to find.
            message = _(
                "Ce tour porte une clé illisible : rien n'a été enregistré. "
                "Rechargez la feuille et recommencez."
            )
        else:
            message = _("Rechargez la feuille et recommencez.")
        return render_sheet(record, state, form, message, 400)
    if form.add.data or form.drop.data is not None or form.clear.data:
        # A keypad tap without scripts: on to the new dice, on a page safe to reload.
        dice = edit_dice(
            form.dice.data, state.rules.dice, form.add.data, form.drop.data, form.clear.data
        )
        return redirect(
            url_for("games.sheet", game_id=game_id, dice=dice or None, throws=_throws(form)),
            code=303,
        )
    if form.advice.data:
        return redirect(
            url_for(
                "advice.show", game_id=game_id, dice=form.dice.data, throw=form.throw.data or None
            ),
            code=303,
        )
    if form.preview.data or not form.target.data:
        return render_sheet(record, state, form)
    column, _sep, box = form.target.data.partition(":")
    player = state.active_player
    try:
        # The turn checks that this is the game the player saw, scores the cell and, unless
        # it would be barred unconfirmed, writes it.
        turn = play_turn(
            store(),
            game_id,
            form.seq.data,
            column,
            box,
            form.dice.data,
            household=household(),
            version=form.version.data,
            barred_confirmed=form.confirm.data == "1",
            loaded=(record, state),
            throw=1 if form.served.data else None,
            throws=_throws(form),
            turn_key=form.turn_key.data or None,
        )
    except StaleSheet:
        record, state = load_or_404(game_id)
        return render_sheet(record, state, form, _stale_message(), 409)
    except RuleError as rule_error:
        return render_sheet(record, state, form, rule_error.render(_), 422)
    if not turn.written:
        return render_template(
            "games/confirm_barred.html",
            game_id=game_id,
            state=state,
            form=form,
            cell=turn.cell,
            player=player,
            floor=state.vache_floor(player, column, box),
        )
    record, after, cell = turn.record, turn.state, turn.cell
    if turn.repeated is not None:
        # The same turn sent again (its first answer was lost on the way): the answer of
        # the first time, saying that it was written then, on the game as it is now.
        said = _("Déjà enregistré : %(turn)s", turn=_describe(after, cell, turn.repeated.seat))
    else:
        if after.is_over:
            coach_game(game_id)  # counted in the background, never in this request
        said = _describe(after, cell, player)
    if request.headers.get(SWAP_HEADER):
        # sheet.js swaps the new sheet into the page: one request instead of a redirect and
        # a page load. Without scripts the redirect keeps the page safe to reload. After the
        # last box too: the sheet then names the winner, where the whole table looks.
        return shared_sheet(record, after, said)
    flash(said, "info")
    return redirect(url_for("games.sheet", game_id=game_id), code=303)


@bp.route("/<int:game_id>/undo", methods=["GET", "POST"])
def undo(game_id: int):
    record, state = load_or_404(game_id)
    if record.status == ABANDONED:
        return _abandoned(game_id)
    if not state.entries:
        flash(_("Il n'y a rien à annuler : la partie n'a pas commencé."), "error")
        return redirect(url_for("games.sheet", game_id=game_id), code=303)
    if request.method == "POST" and state.is_over:
        # Undoing the last box reopens a finished game and takes it out of the hall of
        # fame; entry by entry, it could wipe the whole game: the household PIN guards it.
        return require_pin(_undo)(record, state)
    return _undo(record, state)


def _undo(record: GameRecord, state: GameState):
    """Ask to confirm the undo of the last entry, or undo it once confirmed."""
    game_id = record.id
    form = UndoForm()
    if form.validate_on_submit():
        try:
            undo_turn(
                store(),
                game_id,
                form.seq.data,
                household=household(),
                version=form.version.data,
                loaded=(record, state),
            )
        except StaleSheet:
            flash(
                _(
                    "L'entrée à annuler n'est plus la dernière (la feuille a changé "
                    "entre-temps) : rien n'a été annulé."
                ),
                "error",
            )
        except NothingToUndo:
            flash(_stale_message(), "error")
        else:
            last = state.entries[-1]
            flash(
                _(
                    "Entrée annulée : %(name)s, %(box)s. À %(name)s de rejouer.",
                    name=state.players[last.player],
                    box=box_name(state.rules.box_labels, last.box, _),
                ),
                "info",
            )
        return redirect(url_for("games.sheet", game_id=game_id), code=303)
    form.seq.data = len(state.entries)
    form.version.data = record.version.token
    last = state.entries[-1]
    cell = state.sheets[last.player].columns[last.column].cells[last.box]
    return render_template(
        "games/undo.html", game_id=game_id, state=state, form=form, last=last, cell=cell
    )


@bp.get("/<int:game_id>/ranking")
def ranking(game_id: int):
    record, state = load_or_404(game_id)
    if not state.is_over:
        return redirect(url_for("games.sheet", game_id=game_id), code=303)
    return render_template(
        "games/ranking.html",
        game_id=game_id,
        state=state,
        record=record,
        rematch=RematchForm(formdata=None),
        rules_key=rules_key(state.rules.to_dict()),
    )


@bp.post("/<int:game_id>/rematch")
def rematch(game_id: int):
    """A new game with the same players and rules; the next seat throws first this time.
    Made once: Revanche tapped again (after Back, or on another tablet) opens that game."""
    _record, state = load_or_404(game_id)  # the app's CSRF check has passed already
    if not state.is_over:
        flash(_("La revanche se joue une fois la partie terminée."), "error")
        return redirect(url_for("games.sheet", game_id=game_id), code=303)
    names = [*state.players[1:], state.players[0]]
    rematch_id = start_game(
        store(), state.rules, names, household=household(), quotas=quotas(), rematch_of=game_id
    )
    prepare(state.rules, len(names))  # the tables gone from the disk since, if any
    return redirect(url_for("games.sheet", game_id=rematch_id), code=303)
