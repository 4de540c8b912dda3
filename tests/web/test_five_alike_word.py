"""The player's figures of a game won at once (a Generala servida), boxes left empty."""

import re

from scorekeeper.app import STORE_EXTENSION
from tests.support.forms import page
from tests.support.games import import_documents

FINISHED = {
    "created_at": "2026-11-30T19:55:00+00:00",
    "started_at": "2026-11-30T20:00:00+00:00",
    "finished_at": "2026-11-30T21:12:00+00:00",
}
FIGURES = re.compile(r'<section class="card" aria-labelledby="figures-title">.*?</section>', re.S)
HEADERS = re.compile(r'<th scope="col">\s*([^<]*?)\s*</th>')


def player_id(client, name):
    html = page(client, "/players")
    return int(re.search(rf'href="/players/(\d+)"[^>]*>\s*{name}\s*<', html).group(1))


def test_the_pages_of_players_of_a_game_won_at_once_show_their_figures(app, client):
    """A servida at the first turn leaves every box of the other seat empty, and most of
    the winner's: nothing filled is nothing barred, 0 %, not an error."""
    won_at_once = {
        "rules": {"preset": "generala"},
        "players": ["Lou", "Bob"],
        "entries": [{"player": "Lou", "box": "generala", "dice": [3] * 5, "throw": 1}],
        **FINISHED,
    }
    import_documents(app.extensions[STORE_EXTENSION], won_at_once)
    for name in ("Lou", "Bob"):
        figures = FIGURES.search(page(client, f"/players/{player_id(client, name)}")).group()
        assert "Generala" in HEADERS.findall(figures)
