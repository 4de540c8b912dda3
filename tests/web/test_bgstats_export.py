"""Every finished game of a household for BG Stats: one JSON array of plays, each in the format
BG Stats documents for a play another app hands it (its createPlay link), checked field by
field against that page's own example; the same play as each game's link; the command line's
the same; an export of nothing says so and changes nothing; another household's games never
in it."""

import json
import random
import re
from urllib.parse import unquote

import pytest
from click.testing import CliRunner

from scorekeeper.app import DATABASE_URL_ENV, STORE_EXTENSION
from scorekeeper.cli import main
from scorekeeper.play import start_game
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.bgstats import PLAY_LINK, YAHTZEE_BGG_ID
from scorekeeper.store.documents import check_files
from scorekeeper.store.households import create_household
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.store.transfer import import_games
from scorekeeper.web.passphrases import passphrase_hash
from testing.samples import random_document
from tests.support.apps import HOSTED, PASSPHRASE, app_on
from tests.support.forms import page, page_text
from tests.support.games import duo_document, every_row, import_documents, solo_document
from tests.support.walk import join_household

# BG Stats' documented example of the play another app hands it ("Push plays to BG Stats
# from other apps or websites", https://www.bgstatsapp.com/support/), as the page gives it.
DOCUMENTED_EXAMPLE = {
    "board": "",
    "durationMin": 36,
    "comments": "Such a close play!",
    "game": {
        "bggId": 132531,
        "highestWins": True,
        "name": "Roll for the Galaxy",
        "noPoints": False,
        "sourceGameId": "21df231",
    },
    "location": "Home",
    "playDate": "2020-10-23 19:16:58",
    "players": [
        {
            "startPlayer": True,
            "name": "Eerko",
            "rank": 1,
            "role": "",
            "score": 47.3,
            "sourcePlayerId": "23432",
            "winner": True,
        },
        {
            "startPlayer": False,
            "name": "Suzan",
            "rank": 2,
            "role": "",
            "score": 36.3,
            "sourcePlayerId": "23433",
            "winner": False,
        },
    ],
    "sourceName": "App name",
    "sourcePlayId": "2222427",
}
# What a play must carry: the three fields that identify it (the page's example has them, and
# apps that push plays report them required), the game's name and each player's; and the
# booleans, which BG Stats for Android reads without a default.
REQUIRED = {"sourceName", "sourcePlayId", "playDate", "game", "players"}
REQUIRED_IN_GAME = {"name", "highestWins", "noPoints"}
REQUIRED_OF_PLAYERS = {"name", "winner", "startPlayer"}


def json_type(value) -> str:
    """A value's JSON type, as BG Stats reads it: a whole number is not a fractional one where
    the example has a whole number (``bggId``, ``rank``, ``durationMin``)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return type(value).__name__


def check_field_by_field(play: dict, example: dict = DOCUMENTED_EXAMPLE, where: str = "play"):
    """Every field of ``play`` is one of the example's, of its JSON type, and so on down."""
    assert isinstance(play, dict), where
    assert set(play) <= set(example), (
        f"{where}: not in BG Stats' example: {set(play) - set(example)}"
    )
    for key, value in play.items():
        documented = example[key]
        if isinstance(documented, dict):
            check_field_by_field(value, documented, f"{where}.{key}")
        elif isinstance(documented, list):
            assert isinstance(value, list) and value, f"{where}.{key}"
            for number, item in enumerate(value):
                check_field_by_field(item, documented[0], f"{where}.{key}[{number}]")
        elif json_type(documented) == "number":
            # A score may be whole or not: the example's 47.3 is a JSON number.
            assert json_type(value) in {"integer", "number"}, f"{where}.{key}: {value!r}"
        else:
            assert json_type(value) == json_type(documented), f"{where}.{key}: {value!r}"


def test_the_check_holds_bg_stats_own_example_and_refuses_what_it_does_not_document():
    check_field_by_field(DOCUMENTED_EXAMPLE)
    for wrong in (
        {**DOCUMENTED_EXAMPLE, "playDate": 20201023},
        {**DOCUMENTED_EXAMPLE, "game": {**DOCUMENTED_EXAMPLE["game"], "bggId": "132531"}},
        {**DOCUMENTED_EXAMPLE, "players": [{"name": "Eerko", "winner": "yes"}]},
        {**DOCUMENTED_EXAMPLE, "winner": "Eerko"},
    ):
        with pytest.raises(AssertionError):
            check_field_by_field(wrong)


@pytest.fixture
def store(app):
    return app.extensions[STORE_EXTENSION]


@pytest.fixture
def finished(store):
    """Finished games of several rule sets and players, one game in progress, one of them
    dated only by its end."""
    rng = random.Random(7)
    documents = [
        dict(
            duo_document("Mag", "Alix"),
            started_at="2026-11-30T20:00:00+00:00",
            finished_at="2026-11-30T21:12:00+00:00",
        ),
        dict(
            random_document(Rules.from_dict({"preset": "yatzy"}), ["Zoé", "Tom", "Léa"], rng),
            started_at="2026-12-01T18:00:00+00:00",
            finished_at="2026-12-01T18:41:00+00:00",
        ),
        dict(
            random_document(Rules.from_dict({"preset": "triple"}), ["Mag"], rng),
            finished_at="2026-12-02T10:00:00+00:00",
        ),
    ]
    ids = import_documents(store, *documents)
    start_game(store, Rules(), ["Mag", "Alix"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    return ids


def downloaded(client):
    response = client.get("/import-export/bgstats.json")
    assert response.status_code == 200, response.get_data(as_text=True)[:500]
    assert response.mimetype == "application/json"
    assert re.fullmatch(
        r'attachment; filename="yams-bgstats-\d{4}-\d\d-\d\d\.json"',
        response.headers["Content-Disposition"],
    )
    return json.loads(response.get_data(as_text=True))


def linked_play(client, game_id):
    response = client.get(f"/games/{game_id}/bgstats")
    assert response.status_code == 303
    return json.loads(unquote(response.headers["Location"].removeprefix(PLAY_LINK)))


def test_every_finished_game_is_a_play_as_bg_stats_documents_it(client, finished):
    plays = downloaded(client)

    assert [play["sourcePlayId"] for play in plays] == [f"yams-{game_id}" for game_id in finished]
    for play in plays:
        check_field_by_field(play)
        assert REQUIRED <= set(play)
        assert REQUIRED_IN_GAME <= set(play["game"])
        assert all(REQUIRED_OF_PLAYERS <= set(player) for player in play["players"])
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", play["playDate"])
        assert play["game"]["bggId"] == YAHTZEE_BGG_ID
        assert play["game"]["highestWins"] is True and play["game"]["noPoints"] is False


def test_each_play_is_the_one_its_game_s_link_opens_bg_stats_with(client, finished):
    plays = downloaded(client)

    assert plays == [linked_play(client, game_id) for game_id in finished]
    duel, yatzy, triple = plays
    assert duel["durationMin"] == 72 and yatzy["durationMin"] == 41
    assert "durationMin" not in triple  # its start is not known
    assert [(p["name"], p["rank"], p["winner"], p["startPlayer"]) for p in duel["players"]] == [
        ("Mag", 1, True, True),
        ("Alix", 1, True, False),
    ]
    assert [player["rank"] for player in yatzy["players"]] == sorted(
        player["rank"] for player in yatzy["players"]
    )
    assert sum(player["startPlayer"] for player in yatzy["players"]) == 1
    assert "Yatzy" in yatzy["comments"] and "Triple" in triple["comments"]


def test_the_export_page_offers_the_file_once_a_game_is_finished(client, store):
    empty = page(client, "/import-export")
    assert "Aucune partie terminée pour l'instant : rien à noter dans BG Stats." in empty
    assert "/import-export/bgstats.json" not in empty

    import_documents(store, solo_document("Mag"), solo_document("Alix"))

    html = page(client, "/import-export")
    assert 'href="/import-export/bgstats.json"' in html
    assert "Télécharger 2 parties pour BG Stats" in html


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("fr", "Aucune partie terminée : il n'y a rien à noter dans BG Stats."),
        ("en", "No finished game: there is nothing to log in BG Stats."),
    ],
)
def test_an_export_of_nothing_says_so_and_changes_nothing(client, store, language, said):
    start_game(store, Rules(), ["Mag", "Alix"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    before = every_row(store)

    response = client.get("/import-export/bgstats.json", headers={"Accept-Language": language})

    assert response.status_code == 404
    assert response.mimetype == "text/html"
    assert said in page_text(response)
    assert 'href="/import-export"' in page_text(response)
    assert every_row(store) == before


def test_the_command_line_prints_the_same_plays(client, app, finished, database_url):
    result = CliRunner().invoke(
        main,
        ["export", "--bgstats", "--instance", app.instance_path],
        env={DATABASE_URL_ENV: database_url},
    )

    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == downloaded(client)
    one = CliRunner().invoke(
        main,
        ["export", "--bgstats", "--game", str(finished[1]), "--instance", app.instance_path],
        env={DATABASE_URL_ENV: database_url},
    )
    assert json.loads(one.stdout) == [linked_play(client, finished[1])]


def test_the_command_line_says_when_there_is_nothing_to_export(app, database_url):
    result = CliRunner().invoke(
        main,
        ["export", "--bgstats", "--instance", app.instance_path],
        env={DATABASE_URL_ENV: database_url},
    )

    assert result.exit_code == 2
    assert result.stdout == ""
    assert "Aucune partie terminée : rien à noter dans BG Stats." in result.stderr


def test_another_household_s_games_are_never_in_the_export(instance_path, database_url):
    with app_on(instance_path, database_url, **HOSTED) as app:
        store = app.extensions[STORE_EXTENSION]
        ours = create_household(store, "Les A", passphrase_hash(PASSPHRASE))
        theirs = create_household(store, "Les B", passphrase_hash(PASSPHRASE))
        for household, name in ((ours, "Aglaé"), (theirs, "Barnabé")):
            import_games(
                store,
                check_files([("g.json", json.dumps([solo_document(name)]))]),
                household=household,
                quotas=NO_QUOTAS,
            )
        client = app.test_client()
        join_household(client, "Les A", PASSPHRASE)

        plays = downloaded(client)

    assert [player["name"] for play in plays for player in play["players"]] == ["Aglaé"]
