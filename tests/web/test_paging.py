"""Every paged list, through its page: the last page shows the end of the list, and page
numbers that do not exist (0, -1, one past the last, huge, words) are a 404 that names the
pages there are, in the reader's language, as before pages were read from either end."""

from __future__ import annotations

import re

import pytest

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store import halloffame as hof
from tests.support.forms import page
from tests.support.games import import_documents, solo_document

HUGE = "9" * 40
MAG_GAMES = 25
OTHERS = 55
OPEN_GAMES = 51
# Each paged list: its URL without the number, and how many pages the data below gives it.
PAGED_LISTS = {
    "best totals": ("/hall-of-fame?page=", 8),
    "latest games": ("/hall-of-fame?recent=", 8),
    "players": ("/players?page=", 2),
    "a player's games": ("/players/1?page=", 2),
    "games in progress": ("/games/in-progress?page=", 2),
}
MESSAGES = {
    "fr": "La page « {raw} » n'existe pas : choisissez entre 1 et {pages}.",
    "en": "There is no page “{raw}”: choose from 1 to {pages}.",
}


@pytest.fixture
def lists(app):
    """Enough games for two pages or more of every list: Mag's 25 games (player 1), 55
    other players' one each, at four totals and on a few dates, and 51 games in progress."""
    documents = [
        solo_document(
            "Mag" if number < MAG_GAMES else f"Joueur {number:02d}",
            bonus=number % 2 == 0,
            yams=number % 3 == 0,
            finished_at=f"2024-01-{1 + number % 4:02d}",
        )
        for number in range(MAG_GAMES + OTHERS)
    ]
    unfinished = solo_document("Invité")
    unfinished["entries"] = unfinished["entries"][:3]
    import_documents(app.extensions[STORE_EXTENSION], *documents, *([unfinished] * OPEN_GAMES))
    return app


def test_the_last_page_of_best_totals_shows_the_lowest(lists, client):
    key = hof.list_rule_sets(lists.extensions[STORE_EXTENSION], household=HOME_HOUSEHOLD)[0].key
    every = hof.top_results(
        lists.extensions[STORE_EXTENSION], key, 0, MAG_GAMES + OTHERS, household=HOME_HOUSEHOLD
    )
    last = page(client, "/hall-of-fame?page=8")
    assert [int(total) for total in re.findall(r'data-total="(\d+)"', last)] == [
        line.total for line in every[70:]
    ]


@pytest.mark.parametrize("name", PAGED_LISTS)
def test_every_list_has_its_last_page_and_no_other(lists, client, name):
    url, pages = PAGED_LISTS[name]
    assert f"Page 1 sur {pages}" in page(client, url.split("?")[0])
    assert f"Page {pages} sur {pages}" in page(client, f"{url}{pages}")
    for lang, message in MESSAGES.items():
        client.set_cookie("lang", lang)
        for raw in ("0", "-1", str(pages + 1), HUGE, "deux"):
            html = page(client, f"{url}{raw}", 404)
            assert message.format(raw=raw[:20], pages=pages) in html
