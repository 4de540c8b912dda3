"""The hall of fame: best totals and records of each rule set, and the latest games."""

from __future__ import annotations

from urllib.parse import urlencode

from flask import Blueprint, render_template, request, url_for
from flask_babel import gettext as _

from scorekeeper.rules import COLUMN_LABELS, Rules
from scorekeeper.rules.options import TRIPLE_COLUMNS
from scorekeeper.store.halloffame import (
    finished_count,
    finished_games,
    list_rule_sets,
    records,
    top_results,
)
from scorekeeper.web.paging import not_found, page_from_request
from scorekeeper.web.store import household, store

bp = Blueprint("halloffame", __name__)

TOP_PAGE_SIZE = 10
RECENT_PAGE_SIZE = 10


@bp.app_template_global()
def rule_set_label(rules: Rules) -> str:
    """A short name for a set of rules: "Classique", "Triple", "Classique · vache · Carré 40"."""
    if rules.is_yatzy:
        name, usual = _("Yatzy"), ("free",)
    elif set(TRIPLE_COLUMNS) <= set(rules.columns):
        name, usual = _("Triple"), TRIPLE_COLUMNS
    else:
        name, usual = _("Classique"), ("free",)
    parts = [name]
    if rules.columns == (*usual, "sec"):
        parts.append(_("Sec"))
    elif rules.columns != usual:
        parts.append(_("colonnes %(columns)s", columns=", ".join(
            _(COLUMN_LABELS[kind]) for kind in rules.columns)))
    if rules.vache:
        parts.append(_("vache"))
    if not rules.is_yatzy:
        parts.extend(label for label in (
            {"fixed40": _("Carré 40"), "base": _("Carré 20 + dés"),
             "matching": _("Carré dés identiques")}.get(rules.four_kind),
            {"base": _("Brelan 10 + dés"),
             "matching": _("Brelan dés identiques")}.get(rules.three_kind),
            _("Full 10 + somme") if rules.full_house == "base" else None,
            _("joker libre") if rules.joker == "free" else None,
            None if rules.yams_bonus else _("sans prime Yams"),
            _("Plus et Moins") if rules.plus_minus else None,
            _("Yams 6") if rules.dice == 6 else None,
        ) if label)
    return " · ".join(parts)


@bp.app_template_global()
def page_url(arg: str, number: int) -> str:
    """This page's URL showing page ``number`` of the list paged by ``arg``."""
    args = request.args.to_dict()
    args.pop(arg, None)
    if number > 1:
        args[arg] = str(number)
    # The query is encoded here rather than given to url_for, which would read some names
    # (`_method`, `_external`, `endpoint`) as its own parameters.
    query = urlencode(args)
    return url_for(request.endpoint, **(request.view_args or {})) + (f"?{query}" if query else "")


@bp.get("/hall-of-fame")
def index():
    """One rule set at a time (the most played unless ``rules`` names another)."""
    sets = list_rule_sets(store(), household=household())
    chosen = None
    if sets:
        key = request.args.get("rules", sets[0].key)
        chosen = next((rule_set for rule_set in sets if rule_set.key == key), None)
        if chosen is None:
            not_found(_("Aucune partie terminée n'a été jouée avec ces règles."))
    elif "rules" in request.args:
        not_found(_("Aucune partie terminée n'a été jouée avec ces règles."))
    top_page = page_from_request(chosen.results if chosen else 0, TOP_PAGE_SIZE)
    recent_page = page_from_request(finished_count(store(), household=household()),
                                    RECENT_PAGE_SIZE, "recent")
    return render_template(
        "halloffame/index.html",
        rule_sets=sets,
        chosen=chosen,
        labels={rule_set.key: rule_set_label(rule_set.rules) for rule_set in sets},
        top=(top_results(store(), chosen.key, top_page.offset, top_page.size, household=household())
             if chosen else []),
        top_page=top_page,
        records=records(store(), chosen.key, household=household()) if chosen else {},
        recent=finished_games(store(), recent_page.offset, recent_page.size,
                              household=household()),
        recent_page=recent_page,
    )
