"""Players: the list, each player's page with figures and a chart, renaming and merging."""

from __future__ import annotations

import math
from dataclasses import dataclass

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from wtforms import SelectField, StringField, SubmitField
from wtforms.validators import InputRequired, Length

from scorekeeper.advisor.review import rule_set_counted
from scorekeeper.rules import RuleError
from scorekeeper.rules.numbers import read_whole
from scorekeeper.rules.players import MAX_NAME_LENGTH
from scorekeeper.store.coach import CoachFigure, CoachSeries, player_coach_series
from scorekeeper.store.halloffame import ResultLine, RuleSet, finished_games, list_rule_sets
from scorekeeper.store.player_stats import (
    player_box_stats_of,
    player_open_games,
    player_recent_totals,
    player_rule_set_stats,
)
from scorekeeper.store.players import (
    NameTaken,
    PlayerNotFound,
    PlayerRecord,
    SharedGames,
    count_players,
    get_player,
    list_players,
    merge_players,
    other_players,
    rename_player,
)
from scorekeeper.store.schema import MAX_DATABASE_ID
from scorekeeper.web.formats import short_date
from scorekeeper.web.forms import Form, database_id
from scorekeeper.web.paging import not_found, page_from_request
from scorekeeper.web.rule_labels import rule_set_label
from scorekeeper.web.security import require_pin
from scorekeeper.web.store import household, store

bp = Blueprint("players", __name__, url_prefix="/players")

PLAYERS_PAGE_SIZE = 50
GAMES_PAGE_SIZE = 20
# The chart shows the latest games only: its cost and its readability do not grow with time.
CHART_GAMES = 100


class RenameForm(Form):
    name = StringField(
        _l("Nouveau nom"),
        validators=[InputRequired(), Length(max=MAX_NAME_LENGTH)],
        filters=[lambda value: value.strip() if isinstance(value, str) else value],
    )
    submit = SubmitField(_l("Renommer"))


class MergeForm(Form):
    other = SelectField(
        _l("Joueur à rattacher"),
        coerce=database_id,
        validate_choice=False,
        validators=[InputRequired()],
    )
    submit = SubmitField(_l("Oui, rattacher ce joueur"))


def _player_or_404(player_id: int) -> PlayerRecord:
    player = get_player(store(), player_id, household=household())
    if player is None:
        not_found(_("Aucun joueur n'a le numéro %(id)d.", id=player_id))
    return player


@dataclass(frozen=True)
class ChartPoint:
    x: float
    y: float
    line: ResultLine


@dataclass(frozen=True)
class Chart:
    """A line chart of totals, in SVG user units; drawn by players/_chart.html."""

    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    points: tuple[ChartPoint, ...]
    y_ticks: tuple[tuple[float, int], ...]
    # (x, date, text-anchor): the first date starts at its point, the last ends at it.
    x_labels: tuple[tuple[float, str, str], ...]
    average_y: float

    @property
    def polyline(self) -> str:
        return " ".join(f"{point.x:.1f},{point.y:.1f}" for point in self.points)


def totals_chart(lines: list[ResultLine], average: float) -> Chart:
    """Totals in the order they were played, on a scale with round ticks."""
    width, height, left, right, top, bottom = 640, 260, 48, 624, 16, 220
    totals = [line.total for line in lines]
    low, high = min(totals + [round(average)]), max(totals + [round(average)])
    step = 50 if high - low <= 300 else 100
    low, high = low // step * step, -(-high // step) * step
    if high == low:
        high += step

    def y_of(value: float) -> float:
        return bottom - (value - low) / (high - low) * (bottom - top)

    def x_of(index: int) -> float:
        if len(lines) == 1:
            return (left + right) / 2
        return left + index * (right - left) / (len(lines) - 1)

    def anchor(index: int) -> str:
        if len(lines) == 1 or 0 < index < len(lines) - 1:
            return "middle"
        return "start" if index == 0 else "end"

    labelled = sorted({0, len(lines) // 2, len(lines) - 1})
    return Chart(
        width,
        height,
        left,
        right,
        top,
        bottom,
        points=tuple(ChartPoint(x_of(i), y_of(line.total), line) for i, line in enumerate(lines)),
        y_ticks=tuple((y_of(value), value) for value in range(low, high + 1, step)),
        x_labels=tuple((x_of(i), short_date(lines[i].finished_at), anchor(i)) for i in labelled),
        average_y=y_of(average),
    )


@dataclass(frozen=True)
class CoachPoint:
    x: float
    y: float
    figure: CoachFigure


@dataclass(frozen=True)
class CoachChart:
    """The points a player left to the Conseil, game by game, with the least-squares line
    through them (the trend), in SVG user units; drawn by players/_chart.html."""

    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    points: tuple[CoachPoint, ...]
    y_ticks: tuple[tuple[float, int], ...]
    x_labels: tuple[tuple[float, str, str], ...]
    average: float
    # The trend's value at the first and the last game, and its line; None for one game.
    trend: tuple[float, float] | None
    trend_line: tuple[float, float, float, float] | None

    @property
    def polyline(self) -> str:
        return " ".join(f"{point.x:.1f},{point.y:.1f}" for point in self.points)


# Round steps for the scale of points left, the smallest that needs at most 5 of them.
COACH_STEPS = (1, 2, 5, 10, 20, 50, 100, 200, 500)
COACH_TICKS = 5


def trend(values: list[float]) -> tuple[float, float] | None:
    """The least-squares line through ``values`` (one a game, in order): its value at the
    first and the last game, never below 0 (no one leaves fewer than no points); None for
    fewer than two."""
    count = len(values)
    if count < 2:
        return None
    mean_x, mean_y = (count - 1) / 2, sum(values) / count
    slope = sum((x - mean_x) * (y - mean_y) for x, y in enumerate(values)) / sum(
        (x - mean_x) ** 2 for x in range(count)
    )
    start = mean_y - slope * mean_x
    return max(0.0, start), max(0.0, start + slope * (count - 1))


def coach_chart(figures: tuple[CoachFigure, ...]) -> CoachChart:
    """A player's points left to the Conseil in the order the games were played."""
    width, height, left, right, top, bottom = 640, 260, 48, 624, 16, 220
    values = [figure.given_away for figure in figures]
    step = next(
        (step for step in COACH_STEPS if max(values) <= step * COACH_TICKS), COACH_STEPS[-1]
    )
    high = max(step, math.ceil(max(values) / step) * step)

    def y_of(value: float) -> float:
        return bottom - min(value, high) / high * (bottom - top)

    def x_of(index: int) -> float:
        if len(figures) == 1:
            return (left + right) / 2
        return left + index * (right - left) / (len(figures) - 1)

    def anchor(index: int) -> str:
        if len(figures) == 1 or 0 < index < len(figures) - 1:
            return "middle"
        return "start" if index == 0 else "end"

    labelled = sorted({0, len(figures) // 2, len(figures) - 1})
    line = trend(values)
    return CoachChart(
        width,
        height,
        left,
        right,
        top,
        bottom,
        points=tuple(
            CoachPoint(x_of(i), y_of(figure.given_away), figure) for i, figure in enumerate(figures)
        ),
        y_ticks=tuple((y_of(value), value) for value in range(0, high + 1, step)),
        x_labels=tuple((x_of(i), short_date(figures[i].finished_at), anchor(i)) for i in labelled),
        average=sum(values) / len(values),
        trend=line,
        trend_line=(
            None
            if line is None
            else (x_of(0), y_of(line[0]), x_of(len(figures) - 1), y_of(line[1]))
        ),
    )


@dataclass(frozen=True)
class CoachView:
    """What a player's page says of the coach under one rule set: whether it counts these
    rules, and the player's latest figures with their chart."""

    counted: bool
    series: CoachSeries | None = None
    chart: CoachChart | None = None


def coach_view(player_id: int, rule_set: RuleSet) -> CoachView:
    """The coach's part of a player's page under one of their rule sets."""
    if not rule_set_counted(rule_set.rules):
        return CoachView(counted=False)
    series = player_coach_series(
        store(), player_id, rule_set.key, CHART_GAMES, household=household()
    )
    return CoachView(True, series, coach_chart(series.figures) if series.figures else None)


@bp.get("")
def index():
    page = page_from_request(count_players(store(), household=household()), PLAYERS_PAGE_SIZE)
    return render_template(
        "players/index.html",
        players=list_players(
            store(), page.offset, page.size, household=household(), count=page.count
        ),
        page=page,
    )


@bp.get("/<int:player_id>")
def show(player_id: int):
    player = _player_or_404(player_id)
    stats = player_rule_set_stats(store(), player_id, household=household())
    chosen = None
    if stats:
        key = request.args.get("rules", stats[0].rule_set.key)
        chosen = next((found for found in stats if found.rule_set.key == key), None)
        if chosen is None:
            not_found(_("%(name)s n'a fini aucune partie avec ces règles.", name=player.name))
    elif "rules" in request.args:
        not_found(_("%(name)s n'a fini aucune partie avec ces règles.", name=player.name))
    page = page_from_request(sum(found.games for found in stats), GAMES_PAGE_SIZE)
    chart = coach = None
    if chosen is not None:
        chart = totals_chart(
            player_recent_totals(
                store(), player_id, chosen.rule_set.key, CHART_GAMES, household=household()
            ),
            chosen.average,
        )
        coach = coach_view(player_id, chosen.rule_set)
    return render_template(
        "players/show.html",
        player=player,
        stats=stats,
        chosen=chosen,
        chart=chart,
        coach=coach,
        boxes=(
            player_box_stats_of(store(), player_id, chosen.rule_set.key, household=household())
            if chosen
            else []
        ),
        labels={
            rule_set.key: rule_set_label(rule_set.rules)
            for rule_set in list_rule_sets(store(), household=household())
        },
        games=finished_games(
            store(),
            page.offset,
            page.size,
            household=household(),
            player_id=player_id,
            count=page.count,
        ),
        page=page,
        open_games=player_open_games(store(), player_id, household=household()),
    )


@bp.route("/<int:player_id>/rename", methods=["GET", "POST"])
def rename(player_id: int):
    player = _player_or_404(player_id)
    form = RenameForm()
    error, taken_by = None, None
    if form.validate_on_submit():
        try:
            renamed = rename_player(store(), player_id, form.name.data, household=household())
        except RuleError as rule_error:
            error = rule_error.render(_)
        except NameTaken as taken:
            taken_by = taken.other
            error = _(
                "« %(name)s » est déjà le nom d'un autre joueur. Si c'est la même "
                "personne, rattachez plutôt l'un à l'autre.",
                name=taken.other.name,
            )
        except PlayerNotFound:
            not_found(_("Aucun joueur n'a le numéro %(id)d.", id=player_id))
        else:
            flash(
                _("%(old)s s'appelle désormais %(new)s.", old=player.name, new=renamed.name), "info"
            )
            return redirect(url_for("players.show", player_id=player_id), code=303)
    elif form.is_submitted():
        error = _("Tapez un nom de 1 à %(most)d caractères.", most=MAX_NAME_LENGTH)
    else:
        form.name.data = player.name
    return render_template(
        "players/rename.html", player=player, form=form, error=error, taken_by=taken_by
    ), 422 if error else 200


def _merge_page(player: PlayerRecord, form: MergeForm, error: str | None = None, status: int = 200):
    candidates = other_players(store(), player.id, household=household())
    form.other.choices = [(other.id, other.name) for other in candidates]
    return render_template(
        "players/merge.html", player=player, form=form, candidates=candidates, error=error
    ), status


@bp.get("/<int:player_id>/merge")
def merge_form(player_id: int):
    player = _player_or_404(player_id)
    form = MergeForm(formdata=None)
    form.other.data = read_whole(request.args.get("other"), MAX_DATABASE_ID)
    return _merge_page(player, form)


@bp.post("/<int:player_id>/merge")
@require_pin
def merge(player_id: int):
    """Merge another player into this one: destructive, so a view of its own."""
    player = _player_or_404(player_id)
    form = MergeForm()
    if not form.validate_on_submit():
        return _merge_page(player, form, _("Choisissez dans la liste le joueur à rattacher."), 422)
    other = get_player(store(), form.other.data, household=household())
    if other is None or other.id == player_id:
        return _merge_page(player, form, _("Choisissez dans la liste le joueur à rattacher."), 422)
    try:
        merge_players(store(), player_id, other.id, household=household())
    except SharedGames as shared:
        return _merge_page(
            player,
            form,
            _(
                "%(other)s et %(name)s ont joué ensemble (partie n° %(game)d) : ce sont deux "
                "personnes, pas une. Rien n'a été changé.",
                other=other.name,
                name=player.name,
                game=shared.game_ids[0],
            ),
            409,
        )
    except PlayerNotFound:
        return _merge_page(player, form, _("Ce joueur n'existe plus : rechargez la page."), 409)
    flash(
        _(
            "%(other)s est rattaché à %(name)s : ses parties sont désormais les siennes.",
            other=other.name,
            name=player.name,
        ),
        "info",
    )
    return redirect(url_for("players.show", player_id=player_id), code=303)
