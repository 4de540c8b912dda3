"""The upper bonus row of a complete upper section: the result, on one line."""

import json
import re

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.documents import check_files
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.store.transfer import import_games
from scorekeeper.web.language import COOKIE
from tests.fixtures.finished_games import finished_game_document

# A result's long form, and its short form for narrow columns.
RESULT = (
    r'<span class="bonus-result[^"]*"><span class="long-form">([^<]*)</span>'
    r'<span class="short-form" aria-hidden="true">([^<]*)</span></span>'
)


def test_a_finished_game_shows_the_bonus_won_or_missed(app, client):
    document = finished_game_document(["bonus", "poor", "close", "bonus"] * 2)
    store = app.extensions[STORE_EXTENSION]
    [game_id] = import_games(
        store,
        check_files([("game.json", json.dumps(document))]),
        household=HOME_HOUSEHOLD,
        quotas=NO_QUOTAS,
    )
    html = client.get(f"/games/{game_id}").get_data(as_text=True)
    results = re.findall(RESULT, html)
    assert (
        results
        == [
            ("35 ✓", "35 ✓"),
            ("manqué de 42", "manqué"),
            ("manqué de 1", "manqué"),
            ("35 ✓", "35 ✓"),
        ]
        * 2
    )
    assert 'class="missing"' not in html
    client.set_cookie(COOKIE, "en")
    english = client.get(f"/games/{game_id}").get_data(as_text=True)
    assert re.findall(RESULT, english)[:3] == [
        ("35 ✓", "35 ✓"),
        ("missed by 42", "missed"),
        ("missed by 1", "missed"),
    ]
