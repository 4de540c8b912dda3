"""Export and import of games in the browser: the same documents as the command line.

An import is checked and written by an import worker (scorekeeper/workers.py), a process
at a lower priority: its replays hold neither a request thread nor the server's Python
lock. One household's imports run one at a time, the households in turn, within the
household's quotas (imports a day, games stored).

BG Stats: a finished game's link that opens BG Stats with its play, and every finished game
as one JSON array of such plays (store/bgstats.py).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from flask import (
    Blueprint,
    Flask,
    Response,
    abort,
    current_app,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import get_timezone, ngettext, to_user_timezone
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_wtf.file import FileField, FileRequired
from werkzeug.exceptions import RequestEntityTooLarge
from wtforms import SubmitField

from scorekeeper.store import GameNotFound
from scorekeeper.store.bgstats import bgstats_play, finished_plays, play_link
from scorekeeper.store.documents import ImportRefused
from scorekeeper.store.exports import export_documents, json_array
from scorekeeper.store.halloffame import finished_count, list_rule_sets
from scorekeeper.store.quotas import QuotaExceeded, check_room, check_room_for_games
from scorekeeper.store.transfer import import_file
from scorekeeper.web.conseil import coach_household
from scorekeeper.web.forms import Form
from scorekeeper.web.paging import game_not_over, no_game
from scorekeeper.web.quotas import quota_message, quota_response
from scorekeeper.web.rule_labels import rule_set_label
from scorekeeper.web.security import require_pin
from scorekeeper.web.store import household, load_or_404, quotas, store
from scorekeeper.workers import (
    Busy,
    WorkerFailed,
    Workers,
    WorkerSettings,
    preload,
    shared_workers,
)

bp = Blueprint("transfer", __name__)
# The import workers run import_file: the fork server has its module imported for them.
preload(import_file.__module__)

# A file full of bad games names the first ones; the rest are counted.
PROBLEMS_SHOWN = 20
# When every import worker is busy: about the time an import of a few thousand games takes.
RETRY_AFTER_SECONDS = 30


class ImportForm(Form):
    file = FileField(
        _l("Fichier à importer (.json)"),
        validators=[FileRequired(_l("Choisissez un fichier à importer."))],
    )
    submit = SubmitField(_l("Importer"))


def _import_limit() -> int:
    return current_app.config["IMPORT_MAX_BYTES"]


def import_workers() -> Workers:
    """The import workers of the app's settings, IMPORT_WORKERS and IMPORT_QUEUE: a fresh
    process for each import, its replays' memory leaving with it, and no time limit, since
    an import given up would still be written."""
    config = current_app.config
    return shared_workers(
        Workers,
        WorkerSettings(
            workers=config["IMPORT_WORKERS"],
            queue=config["IMPORT_QUEUE"],
            jobs_per_worker=1,
            timeout_seconds=None,
        ),
    )


def largest_body(app: Flask) -> int:
    """The largest request body any view accepts: the import's, or the app's own limit."""
    return max(app.config["MAX_CONTENT_LENGTH"], app.config["IMPORT_MAX_BYTES"])


@bp.url_value_preprocessor
def _allow_large_uploads(endpoint: str | None, values: dict | None) -> None:
    # URL preprocessors run before every before_request function, CSRF's included, which
    # is the first to read the form: the upload's own limit must be set by then.
    if endpoint == "transfer.upload":
        request.max_content_length = _import_limit()


def _page(
    form: ImportForm,
    errors: list[str] | None = None,
    status: int = 200,
    *,
    signed_in: bool = True,
):
    """The page; ``signed_in`` False for an upload refused before the request's household
    is known (too large), which says nothing of its finished games."""
    errors = errors or []
    hidden = max(0, len(errors) - PROBLEMS_SHOWN)
    return render_template(
        "halloffame/transfer.html",
        form=form,
        errors=errors[:PROBLEMS_SHOWN],
        hidden=hidden,
        limit_mb=_import_limit() // (1024 * 1024),
        finished=finished_count(store(), household=household()) if signed_in else None,
    ), status


@bp.errorhandler(RequestEntityTooLarge)
def _too_large(error: RequestEntityTooLarge):
    return _page(
        ImportForm(formdata=None),
        [
            _(
                "Ce fichier dépasse %(mb)d Mo : importez-le en plusieurs morceaux.",
                mb=_import_limit() // (1024 * 1024),
            )
        ],
        413,
        signed_in=False,
    )


@bp.get("/import-export")
def index():
    return _page(ImportForm(formdata=None))


def _download(documents, filename: str) -> Response:
    return Response(
        json_array(documents),
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@bp.get("/import-export/games.json")
def download():
    today = to_user_timezone(datetime.now(UTC)).date().isoformat()
    return _download(
        export_documents(store(), household=household()),
        _("yams-parties-%(date)s.json", date=today),
    )


@bp.get("/games/<int:game_id>/game.json")
def game_download(game_id: int):
    documents = export_documents(store(), game_id, household=household())
    try:
        # The first document is read now, so that an unknown game is a 404, not a broken file.
        first = next(documents)
    except GameNotFound:
        no_game(game_id)
    return _download([first], _("yams-partie-%(id)d.json", id=game_id))


@bp.get("/games/<int:game_id>/bgstats")
def bgstats(game_id: int):
    """A finished game logged in BG Stats: the link that opens it with the play filled in,
    for the player to confirm (store/bgstats.py)."""
    record, state = load_or_404(game_id)
    if not state.is_over:
        game_not_over(
            game_id, _("BG Stats note les parties terminées : finissez celle-ci d'abord.")
        )
    play = bgstats_play(
        game_id,
        state.ranking(),
        to_user_timezone(record.started_at or record.finished_at),
        record.length,
        state.rules,
        rule_set_label(state.rules),
    )
    return redirect(play_link(play), code=303)


def bgstats_plays(*, household: int) -> Iterator[dict[str, Any]]:
    """Every finished game of the household as its BG Stats play, the play its link gives:
    dated in the household's time, its rules in the words of the page's language. What needs
    the request (the time zone, the words) is read at the first play, so that the rest is
    written out after the view has returned; nothing when no game is finished."""
    finished = finished_plays(store(), household=household)
    first = next(finished, None)
    if first is None:
        return iter(())
    zone = get_timezone()
    # Read once the games are listed: each of them has its rule set by then.
    words = {
        rule_set.rules: rule_set_label(rule_set.rules)
        for rule_set in list_rule_sets(store(), household=household)
    }
    return (
        bgstats_play(
            play.game_id,
            play.standings,
            (play.started_at or play.finished_at).astimezone(zone),
            play.length,
            play.rules,
            words.get(play.rules, ""),
        )
        for play in itertools.chain([first], finished)
    )


@bp.get("/import-export/bgstats.json")
def bgstats_download():
    """Every finished game as BG Stats plays, in one JSON array; without any, a page that
    says so rather than an empty file."""
    plays = bgstats_plays(household=household())
    first = next(plays, None)
    if first is None:
        page = render_template(
            "errors/error.html",
            code=404,
            message=_(
                "Aucune partie terminée : il n'y a rien à noter dans BG Stats. Finissez une "
                "partie, puis revenez."
            ),
            action=(url_for("transfer.index"), _("Importer ou exporter des parties")),
        )
        abort(make_response(page, 404))
    today = to_user_timezone(datetime.now(UTC)).date().isoformat()
    return _download(itertools.chain([first], plays), _("yams-bgstats-%(date)s.json", date=today))


@bp.post("/import-export/import")
@require_pin
def upload():
    """Import games from an uploaded file: all of them or, at the first doubt, none."""
    form = ImportForm()
    if not form.validate_on_submit():
        errors = [str(error) for error in form.file.errors]
        return _page(form, errors or [_("Rechargez la page et recommencez.")], 400)
    upload = form.file.data
    name = upload.filename or _("le fichier")
    config, own = current_app.config, household()
    household_quotas = quotas()
    try:
        # Refused before the work when a quota is used up already; the import's own
        # transaction counts it for sure.
        check_room(
            store(), household=own, quota=household_quotas.imports, amount=1, now=datetime.now(UTC)
        )
        check_room_for_games(store(), household=own, quotas=household_quotas, adding=1)
        ids = import_workers().run(
            own,
            import_file,
            config["DATABASE_URL"],
            config["DATABASE_ENGINE_OPTIONS"],
            own,
            household_quotas,
            name,
            upload.read(),
        )
    except ImportRefused as refused:
        return _page(
            form,
            [_("Rien n'a été importé.")] + [problem.render(_) for problem in refused.problems],
            422,
        )
    except QuotaExceeded as exceeded:
        return quota_response(
            exceeded, _page(form, [_("Rien n'a été importé."), quota_message(exceeded)])[0]
        )
    except (Busy, WorkerFailed):
        response = current_app.make_response(
            _page(
                form,
                [
                    _(
                        "D'autres imports sont en cours en ce moment : rien n'a été importé, "
                        "réessayez dans une minute."
                    )
                ],
                503,
            )
        )
        response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
    coach_household()
    flash(ngettext("%(num)d partie importée.", "%(num)d parties importées.", len(ids)), "info")
    return redirect(url_for("halloffame.index"), code=303)
