"""Games started and never played: the lists name their players and the turn, and once a
day has passed without an entry they are left out of the lists (kept, not abandoned)."""

from datetime import timedelta

from sqlalchemy import update

from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.engine import utc_now
from scorekeeper.store.games import UNPLAYED_LISTED_FOR, count_games_in_progress
from scorekeeper.store.schema import games
from tests.support.forms import page


def left_since(app, game_id, age):
    """The game as if its last change were ``age`` ago."""
    store = app.extensions["scorekeeper.store"]
    with store.engine.begin() as connection:
        connection.execute(
            update(games).where(games.c.id == game_id).values(updated_at=utc_now() - age)
        )


def listed_ids(html):
    return {int(part.split('"')[0]) for part in html.split('class="game-link" href="/games/')[1:]}


def test_lists_show_the_players_and_whose_turn_it_is(table):
    game_id = table.new_game(["Mag", "Alix", "Zoé"])
    table.play(game_id, 0, "66653", "free:sixes")
    for url in ("/", "/games/in-progress", "/players/1"):
        html = page(table.client, url)
        assert "Mag, Alix, Zoé" in html
        assert "À Alix de jouer, tour 1 sur 13" in html, url


def test_a_game_never_played_leaves_the_lists_after_a_day(app, table):
    store = app.extensions["scorekeeper.store"]
    unplayed = table.new_game(["Mag", "Alix"])
    recent = table.new_game(["Mag", "Zoé"])
    played = table.new_game(["Mag", "Bob"])
    table.play(played, 0, "66653", "free:sixes")
    left_since(app, unplayed, UNPLAYED_LISTED_FOR + timedelta(minutes=1))
    left_since(app, recent, UNPLAYED_LISTED_FOR - timedelta(minutes=5))
    left_since(app, played, timedelta(days=30))  # played once, then left a month: kept

    for url in ("/", "/games/in-progress", "/players/1"):
        assert listed_ids(page(table.client, url)) == {recent, played}, url
    assert count_games_in_progress(store, household=HOME_HOUSEHOLD) == 2
    # Kept whole: it opens at its address, and its first entry lists it again.
    sheet = page(table.client, f"/games/{unplayed}")
    assert "À Mag de jouer" in sheet
    assert table.play(unplayed, 0, "11123", "free:ones").status_code == 303
    assert unplayed in listed_ids(page(table.client, "/"))
