"""The end of a game on the sheet itself: the winner (every winner of a tie) with each
total and rank, Revanche and the ranking one tap away; the same pushed to the tablets that
follow the game, and on the spectator's page, without the buttons."""

import re

from scorekeeper.play import play_turn, start_game
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.web.store import STORE_EXTENSION
from tests.support.apps import app_on
from tests.support.games import GAME
from tests.support.live import LASTING, SWAP, Stream, turn_from
from tests.support.table import Table

# Each line of the ranking: the rank shown, the name, the points.
RANKS = re.compile(
    r'<li class="rank-\d">\s*<span class="rank">(\d)</span>\s*<span class="name">([^<]*)</span>'
    r'\s*<span class="points">(\d+) points</span>'
)


def _finished(app, names, turns) -> int:
    store = app.extensions[STORE_EXTENSION]
    game_id = start_game(
        store, Rules.from_dict({}), names, household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
    )
    for seq, (dice, box) in enumerate(turns):
        play_turn(store, game_id, seq, "free", box, dice, household=HOME_HOUSEHOLD)
    return game_id


def _panel(page: str) -> str:
    return page[page.index('class="turn-panel end-panel"') : page.index("</section>")]


def test_the_finished_sheet_names_the_winner_with_every_total_and_rank(app, client):
    game_id = _finished(app, ["Mag", "Alix"], [turn for pair in GAME for turn in pair])
    panel = _panel(client.get(f"/games/{game_id}").text)
    assert "Alix gagne avec 413 points !" in panel
    assert RANKS.findall(panel) == [("1", "Alix", "413"), ("2", "Mag", "332")]
    assert f'action="/games/{game_id}/rematch"' in panel and "Revanche" in panel
    assert f'href="/games/{game_id}/ranking"' in panel
    client.set_cookie("lang", "en")
    panel = _panel(client.get(f"/games/{game_id}").text)
    assert "Alix wins with 413 points!" in panel and "Rematch" in panel


def test_a_tie_names_every_winner_each_with_its_rank(app, client):
    # Mag and Alix play Alix's turns, Léo Mag's: Mag and Alix tie first.
    turns = [turn for mag, alix in GAME for turn in (alix, alix, mag)]
    game_id = _finished(app, ["Mag", "Alix", "Léo"], turns)
    panel = _panel(client.get(f"/games/{game_id}").text)
    assert "Égalité : Mag, Alix gagnent avec 413 points !" in panel
    assert RANKS.findall(panel) == [("1", "Mag", "413"), ("1", "Alix", "413"), ("3", "Léo", "332")]


def test_the_spectator_sees_the_end_without_the_buttons(app, client):
    game_id = _finished(app, ["Mag", "Alix"], [turn for pair in GAME for turn in pair])
    page = client.get(f"/games/{game_id}/watch").text
    panel = _panel(page)
    assert "Alix gagne avec 413 points !" in panel
    assert RANKS.findall(panel) == [("1", "Alix", "413"), ("2", "Mag", "332")]
    assert "rematch" not in panel and page.count("<h1") == 1


def test_the_last_turn_pushes_the_finished_sheet_to_the_other_tablets(instance_path, database_url):
    with app_on(instance_path, database_url, **LASTING) as app:
        player = Table(app.test_client())
        turns = [turn for pair in GAME for turn in pair]
        game_id = _finished(app, ["Mag", "Alix"], turns[:-1])
        other = app.test_client()
        other.get(f"/games/{game_id}")
        stream = Stream(other, f"/games/{game_id}/events")
        stream.version()
        page = player.client.get(f"/games/{game_id}").text
        dice, box = turns[-1]
        answer = player.client.post(
            f"/games/{game_id}/entries", data=turn_from(page, 25, dice, f"free:{box}"), headers=SWAP
        )
        assert answer.status_code == 200 and "Alix gagne avec 413 points !" in answer.text
        event = stream.version()
        assert event["status"] == "finished"
        assert "Alix gagne avec 413 points !" in _panel(event["sheet"])
