"""A finished game logged in BG Stats: its createPlay link, with the play as BG Stats
documents it for other apps (store/bgstats.py); a game in progress is refused with its
reason, and another household's game is no game at all."""

import json
import re
from datetime import datetime
from urllib.parse import unquote

import pytest

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.play import start_game
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.bgstats import PLAY_LINK, YAHTZEE_BGG_ID, bgstats_play
from scorekeeper.store.games import load_game
from scorekeeper.store.quotas import NO_QUOTAS
from tests.support.apps import app_on
from tests.support.forms import page_text
from tests.support.games import duo_document, import_documents

# The play of BG Stats' documented example for other apps ("createPlay"), each field with
# the type it takes: a document of ours may leave optional ones out, never add or retype one.
DOCUMENTED_EXAMPLE = {
    "sourceName": "Score app",
    "sourcePlayId": "play-1",
    "playDate": "2026-07-11 19:30:00",
    "durationMin": 45,
    "location": "Home",
    "board": "",
    "comments": "",
    "game": {
        "name": "Yahtzee",
        "bggId": 2243,
        "sourceGameId": "yahtzee",
        "highestWins": True,
        "noPoints": False,
    },
    "players": [
        {
            "name": "Sean",
            "sourcePlayerId": "user-1",
            "score": 250,
            "rank": 1,
            "winner": True,
            "startPlayer": True,
            "role": "",
        }
    ],
}


def played(store, started_at="2026-11-30T20:00:00+00:00"):
    document = duo_document("Mag", "Alix")
    document |= {
        "created_at": "2026-11-30T19:55:00+00:00",
        "finished_at": "2026-11-30T21:12:00+00:00",
    }
    if started_at:
        document["started_at"] = started_at
    (game_id,) = import_documents(store, document)
    return game_id


def sent_play(response) -> dict:
    assert response.status_code == 303
    location = response.headers["Location"]
    assert location.startswith(PLAY_LINK)
    return json.loads(unquote(location.removeprefix(PLAY_LINK)))


def check_shape(value, example, where="play"):
    if isinstance(example, dict):
        assert isinstance(value, dict), where
        assert set(value) <= set(example), f"{where}: {set(value) - set(example)}"
        for key, item in value.items():
            check_shape(item, example[key], f"{where}.{key}")
    elif isinstance(example, list):
        for number, item in enumerate(value):
            check_shape(item, example[0], f"{where}[{number}]")
    else:
        assert type(value) is type(example), f"{where}: {value!r}"


def test_a_finished_game_opens_bg_stats_with_its_play(app, client):
    game_id = played(app.extensions[STORE_EXTENSION])
    play = sent_play(client.get(f"/games/{game_id}/bgstats"))

    check_shape(play, DOCUMENTED_EXAMPLE)
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", play["playDate"])
    assert play["sourcePlayId"] == f"yams-{game_id}"
    assert play["durationMin"] == 72
    assert play["game"]["bggId"] == YAHTZEE_BGG_ID and play["game"]["highestWins"] is True
    # Both played the same dice: a tie, both winners, Mag first to throw.
    assert [(p["name"], p["rank"], p["winner"], p["startPlayer"]) for p in play["players"]] == [
        ("Mag", 1, True, True),
        ("Alix", 1, True, False),
    ]
    assert {p["score"] for p in play["players"]} == {84 + 35 + 200}


@pytest.mark.parametrize(
    ("zone", "started_at", "date"),
    [
        ("Europe/Paris", "2026-11-30T20:00:00+00:00", "2026-11-30 21:00:00"),
        ("UTC", "2026-11-30T20:00:00+00:00", "2026-11-30 20:00:00"),
        # A start not known: dated by its end, with no length.
        ("UTC", None, "2026-11-30 21:12:00"),
    ],
)
def test_the_play_date_is_the_start_in_the_household_s_time(
    instance_path, database_url, zone, started_at, date
):
    with app_on(instance_path, database_url, BABEL_DEFAULT_TIMEZONE=zone) as app:
        game_id = played(app.extensions[STORE_EXTENSION], started_at)
        play = sent_play(app.test_client().get(f"/games/{game_id}/bgstats"))
    assert play["playDate"] == date
    assert ("durationMin" in play) == (started_at is not None)


def test_the_ranking_and_the_review_lead_to_it(app, client):
    game_id = played(app.extensions[STORE_EXTENSION])
    link = f'href="/games/{game_id}/bgstats"'
    assert link in client.get(f"/games/{game_id}/ranking").get_data(as_text=True)
    assert link in client.get(f"/games/{game_id}/review").get_data(as_text=True)


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("fr", "BG Stats note les parties terminées : finissez celle-ci d'abord."),
        ("en", "BG Stats logs finished games: finish this one first."),
    ],
)
def test_a_game_in_progress_is_refused_with_its_reason(app, client, language, said):
    store = app.extensions[STORE_EXTENSION]
    game_id = start_game(
        store, Rules(), ["Mag", "Alix"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
    )
    before = load_game(store, game_id, household=HOME_HOUSEHOLD)
    response = client.get(f"/games/{game_id}/bgstats", headers={"Accept-Language": language})
    assert response.status_code == 409
    assert said in page_text(response)
    assert load_game(store, game_id, household=HOME_HOUSEHOLD) == before
    assert f'href="/games/{game_id}/bgstats"' not in client.get(
        f"/games/{game_id}/review"
    ).get_data(as_text=True)


def test_an_unknown_game_is_a_404(client):
    assert client.get("/games/99999/bgstats").status_code == 404


@pytest.mark.parametrize(
    "preset, name, source_id, bgg_id",
    [
        ("classique", "Yams", "yams", YAHTZEE_BGG_ID),
        ("triple", "Yams", "yams", YAHTZEE_BGG_ID),
        ("yatzy", "Yatzy", "yatzy", YAHTZEE_BGG_ID),
        ("yahtzee", "Yahtzee", "yahtzee", YAHTZEE_BGG_ID),
        ("kniffel", "Kniffel", "kniffel", YAHTZEE_BGG_ID),
        ("generala", "Generala", "generala", None),
    ],
)
def test_each_game_is_logged_under_its_own_name(preset, name, source_id, bgg_id):
    rules = Rules.from_dict({"preset": preset})
    play = bgstats_play(7, (), datetime(2026, 12, 7, 20, 0), None, rules, "words")

    check_shape(play, DOCUMENTED_EXAMPLE)
    assert play["game"]["name"] == name
    # Earlier exports of Yams keep their game id, so BG Stats matches them with the new ones.
    assert play["game"]["sourceGameId"] == source_id
    assert play["game"].get("bggId") == bgg_id
