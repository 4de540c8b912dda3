"""The hall of fame: best totals and records of each rule set, and the latest games."""

from __future__ import annotations

from urllib.parse import urlencode

from flask import Blueprint, render_template, request, url_for
from flask_babel import gettext as _

from scorekeeper.advisor.review import rule_set_counted
from scorekeeper.store.coach import most_precise
from scorekeeper.store.halloffame import (
    finished_count,
    finished_games,
    list_rule_sets,
    records,
    top_results,
    usual_length,
)
from scorekeeper.web.paging import not_found, page_from_request
from scorekeeper.web.rule_labels import rule_set_label
from scorekeeper.web.store import household, store

bp = Blueprint("halloffame", __name__)

TOP_PAGE_SIZE = 10
RECENT_PAGE_SIZE = 10


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
    recent_page = page_from_request(
        finished_count(store(), household=household()), RECENT_PAGE_SIZE, "recent"
    )
    return render_template(
        "halloffame/index.html",
        rule_sets=sets,
        chosen=chosen,
        labels={rule_set.key: rule_set_label(rule_set.rules) for rule_set in sets},
        top=(
            top_results(
                store(),
                chosen.key,
                top_page.offset,
                top_page.size,
                household=household(),
                count=top_page.count,
            )
            if chosen
            else []
        ),
        top_page=top_page,
        records=records(store(), chosen.key, household=household()) if chosen else {},
        usual_length=usual_length(store(), chosen.key, household=household()) if chosen else None,
        coached=chosen is not None and rule_set_counted(chosen.rules),
        most_precise=(
            most_precise(store(), chosen.key, household=household())
            if chosen and rule_set_counted(chosen.rules)
            else None
        ),
        recent=finished_games(
            store(),
            recent_page.offset,
            recent_page.size,
            household=household(),
            count=recent_page.count,
        ),
        recent_page=recent_page,
    )
