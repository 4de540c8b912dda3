"""How long a game took, on the pages that tell of a finished game: its ranking, its review,
the game lists of the hall of fame and of each player's page, in French and English; a game
whose start is not known says nothing of its length."""

from datetime import datetime, timedelta

import pytest
from flask_babel import force_locale

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.halloffame import latest_lengths_query, list_rule_sets
from scorekeeper.store.players import list_players
from scorekeeper.web.formats import game_length
from tests.support.forms import page_text
from tests.support.games import duo_document, import_documents

SAID = {
    "fr": ("Partie jouée en 72 minutes.", "jouée en 72 minutes", "· 72 minutes"),
    "en": ("Game played in 72 minutes.", "played in 72 minutes", "· 72 minutes"),
}


def dated(started_at=None):
    document = duo_document("Mag", "Alix")
    document |= {
        "created_at": "2026-11-30T19:55:00+00:00",
        "finished_at": "2026-11-30T21:12:00+00:00",
    }
    if started_at:
        document["started_at"] = started_at
    return document


def pages(client, game_id, language):
    store = client.application.extensions[STORE_EXTENSION]
    player = list_players(store, household=HOME_HOUSEHOLD)[0].id
    headers = {"Accept-Language": language}
    found = {}
    for name, url in {
        "ranking": f"/games/{game_id}/ranking",
        "review": f"/games/{game_id}/review",
        "hall of fame": "/hall-of-fame",
        "player": f"/players/{player}",
    }.items():
        response = client.get(url, headers=headers)
        assert response.status_code == 200, url
        found[name] = page_text(response)
    return found


@pytest.mark.parametrize("language", ["fr", "en"])
def test_a_game_s_length_is_said_where_the_game_is(app, client, language):
    (game_id,) = import_documents(
        app.extensions[STORE_EXTENSION], dated("2026-11-30T20:00:00+00:00")
    )
    ranking_line, review_words, list_words = SAID[language]
    shown = pages(client, game_id, language)
    assert ranking_line in shown["ranking"]
    assert review_words in shown["review"]
    assert list_words in shown["hall of fame"]
    assert list_words in shown["player"]


@pytest.mark.parametrize("language", ["fr", "en"])
def test_a_game_whose_start_is_not_known_says_nothing_of_its_length(app, client, language):
    (game_id,) = import_documents(app.extensions[STORE_EXTENSION], dated())
    for name, text in pages(client, game_id, language).items():
        assert "minute" not in text and "jouée en" not in text and "played in" not in text, name


@pytest.mark.parametrize(
    ("minutes", "fr", "en"),
    [
        (0.2, "1 minute", "1 minute"),
        (45, "45 minutes", "45 minutes"),
        (150, "150 minutes", "150 minutes"),
        (200, "3 heures", "3 hours"),
    ],
)
def test_a_length_is_in_minutes_up_to_three_hours_then_in_hours(app, minutes, fr, en):
    with app.test_request_context():
        for language, expected in (("fr", fr), ("en", en)):
            with force_locale(language):
                assert game_length(timedelta(minutes=minutes)) == expected


def game_of(minutes, finished_at):
    started = datetime.fromisoformat(finished_at) - timedelta(minutes=minutes)
    document = duo_document("Mag", "Alix")
    return document | {"started_at": started.isoformat(), "finished_at": finished_at}


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("fr", "Une partie de ces règles dure d'habitude 72 minutes."),
        ("en", "A game of these rules usually takes 72 minutes."),
    ],
)
def test_the_hall_of_fame_says_a_rule_set_s_usual_length(app, client, language, said):
    """The median of the rule set's latest games whose start is known; a rule set with
    none says nothing."""
    store = app.extensions[STORE_EXTENSION]
    import_documents(
        store,
        game_of(60, "2026-11-28T21:00:00+00:00"),
        game_of(72, "2026-11-29T21:00:00+00:00"),
        game_of(150, "2026-11-30T21:00:00+00:00"),
        dated(),  # no start known: left out
    )
    text = page_text(client.get("/hall-of-fame", headers={"Accept-Language": language}))
    assert said in text


def test_a_rule_set_whose_starts_are_not_known_says_no_usual_length(app, client):
    import_documents(app.extensions[STORE_EXTENSION], dated(), dated())
    assert "d'habitude" not in page_text(client.get("/hall-of-fame"))


def test_the_usual_length_reads_the_latest_games_through_an_index(app):
    """A few rows read however many games: the rule set's results walked by time."""
    store = app.extensions[STORE_EXTENSION]
    if store.engine.dialect.name != "sqlite":
        pytest.skip("reads SQLite's query plan")
    import_documents(store, game_of(60, "2026-11-28T21:00:00+00:00"))
    (rule_set,) = list_rule_sets(store, household=HOME_HOUSEHOLD)
    query = latest_lengths_query(rule_set.key, household=HOME_HOUSEHOLD)
    compiled = query.compile(store.engine, compile_kwargs={"literal_binds": True})
    with store.engine.connect() as connection:
        plan = " ".join(
            str(row[-1]) for row in connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}")
        )
    assert "ix_results_rules_time" in plan and "TEMP B-TREE" not in plan
