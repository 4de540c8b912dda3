"""Each per-household quota of a hosted server, through real forms: past its limit the
request is refused with a 429 that says the quota and when it frees up, in French or in
English, and nothing stored changes. On SQLite and PostgreSQL; at home nothing is limited."""

import io
import json
import re
import time

import pytest

from scorekeeper.advisor.builds import Strategies
from scorekeeper.app import STORE_EXTENSION
from scorekeeper.web.conseil import ADVISOR_EXTENSION
from tests.support.apps import HOSTED, app_on
from tests.support.build_workers import no_table
from tests.support.forms import csrf_token
from tests.support.games import every_row, solo_document
from tests.support.households import family, new_game
from tests.support.threads import WAIT_SECONDS

LIMITS = {
    "QUOTA_GAMES_STORED": 3,
    "QUOTA_IMPORTS_PER_DAY": 1,
    "QUOTA_PDF_PAGES_PER_MINUTE": 5,
    "QUOTA_ADVISOR_BUILDS_PER_DAY": 1,
}


@pytest.fixture
def hosted(instance_path, database_url):
    with app_on(instance_path, database_url, **HOSTED, **LIMITS) as app:
        yield app


def _upload(client, documents):
    content = json.dumps(documents).encode()
    return client.post(
        "/import-export/import",
        content_type="multipart/form-data",
        data={"file": (io.BytesIO(content), "parties.json"), "csrf_token": csrf_token(client)},
    )


def _refused(response, *sentences):
    text = " ".join(response.get_data(as_text=True).split()).replace("&#39;", "'")
    assert response.status_code == 429, text[:500]
    for sentence in sentences:
        assert sentence in text


@pytest.mark.parametrize(
    ("lang", "rule", "held"),
    [
        ("fr", "Une maison garde au plus 3 parties.", "La vôtre en a 3"),
        ("en", "A household keeps at most 3 games.", "Yours has 3"),
    ],
)
def test_a_new_game_past_the_games_stored(hosted, lang, rule, held):
    client = family(hosted, lang=lang)
    neighbour = family(hosted, name="Les Voisins")
    for _ in range(3):
        assert new_game(client).status_code == 303
    before = every_row(hosted.extensions[STORE_EXTENSION])
    _refused(new_game(client, "Zoé"), rule, held)
    assert every_row(hosted.extensions[STORE_EXTENSION]) == before
    assert new_game(neighbour).status_code == 303  # the quota is each household's own


@pytest.mark.parametrize(
    ("lang", "rule", "held"),
    [
        ("fr", "Une maison garde au plus 3 parties.", "ces 2 de plus la dépasseraient"),
        ("en", "A household keeps at most 3 games.", "these 2 more would go past it"),
    ],
)
def test_an_import_past_the_games_stored(hosted, lang, rule, held):
    client = family(hosted, lang=lang)
    assert new_game(client).status_code == 303
    assert new_game(client).status_code == 303
    before = every_row(hosted.extensions[STORE_EXTENSION])
    _refused(_upload(client, [solo_document("Zoé"), solo_document("Léa")]), rule, held)
    assert every_row(hosted.extensions[STORE_EXTENSION]) == before


@pytest.mark.parametrize(
    ("lang", "rule", "when"),
    [
        ("fr", "Une maison fait au plus 1 import par jour.", "Ce sera de nouveau possible à"),
        ("en", "A household makes at most 1 import a day.", "It will be possible again at"),
    ],
)
def test_imports_past_the_imports_a_day(hosted, lang, rule, when):
    client = family(hosted, lang=lang)
    assert _upload(client, [solo_document("Zoé")]).status_code == 303
    before = every_row(hosted.extensions[STORE_EXTENSION])
    response = _upload(client, [solo_document("Léa")])
    _refused(response, rule, when)
    assert 23 * 3600 < int(response.headers["Retry-After"]) <= 24 * 3600
    assert every_row(hosted.extensions[STORE_EXTENSION]) == before
    assert _upload(family(hosted, name="Les Voisins"), [solo_document("Léa")]).status_code == 303


@pytest.mark.parametrize(
    ("lang", "rule", "when", "too_big"),
    [
        (
            "fr",
            "Une maison fait dessiner au plus 5 pages de PDF par minute.",
            "Ce sera de nouveau possible dans",
            "Cette demande en prend 6 à elle seule",
        ),
        (
            "en",
            "A household has at most 5 PDF pages drawn a minute.",
            "It will be possible again in",
            "This request takes 6 on its own",
        ),
    ],
)
def test_prints_past_the_pdf_pages_a_minute(hosted, lang, rule, when, too_big):
    client = family(hosted, lang=lang)
    assert client.get("/sheets/blank.pdf?pages=3").status_code == 200
    assert new_game(client).status_code == 303
    game = client.get("/").get_data(as_text=True)
    game_id = re.search(r'href="/games/(\d+)"', game).group(1)
    assert client.get(f"/games/{game_id}/sheet.pdf").status_code == 200  # one page: 4
    before = every_row(hosted.extensions[STORE_EXTENSION])
    response = client.get("/sheets/blank.pdf?pages=2")
    _refused(response, rule, when)
    assert 1 <= int(response.headers["Retry-After"]) <= 60
    _refused(client.get("/sheets/blank.pdf?pages=6&preset=yatzy"), rule, too_big)
    assert "Retry-After" not in client.get("/sheets/blank.pdf?pages=6&preset=yatzy").headers
    assert every_row(hosted.extensions[STORE_EXTENSION]) == before
    # A PDF drawn before costs nothing, and the neighbours have their own pages.
    assert client.get("/sheets/blank.pdf?pages=3").status_code == 200
    assert family(hosted, name="Les Voisins").get("/sheets/blank.pdf?pages=5").status_code == 200


@pytest.mark.parametrize(
    ("lang", "rule"),
    [
        ("fr", "Le conseil prépare au plus 1 table par jour pour une maison."),
        ("en", "The advisor builds at most 1 table a day for a household."),
    ],
)
def test_advice_past_the_advisor_builds_a_day(hosted, lang, rule):
    strategies = Strategies(hosted.instance_path, worker=no_table)
    hosted.extensions[ADVISOR_EXTENSION] = strategies
    client = family(hosted, lang=lang)
    assert new_game(client).status_code == 303
    game_id = re.search(r'href="/games/(\d+)"', client.get("/").get_data(as_text=True)).group(1)
    assert client.get(f"/games/{game_id}/advice?dice=66653").status_code == 503  # building
    # The build process's start and end, in the time a busy machine gives them.
    deadline = time.monotonic() + WAIT_SECONDS
    while strategies.building:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    before = every_row(hosted.extensions[STORE_EXTENSION])
    # The build left no table (this worker makes none): another would be one too many.
    response = client.get(f"/games/{game_id}/advice?dice=66653")
    _refused(response, rule)
    assert not strategies.building
    assert every_row(hosted.extensions[STORE_EXTENSION]) == before


def test_at_home_nothing_is_limited(instance_path, database_url):
    settings = {**LIMITS, "QUOTA_GAMES_STORED": 1, "QUOTA_PDF_PAGES_PER_MINUTE": 1}
    with app_on(instance_path, database_url, **settings) as app:
        client = app.test_client()
        for _ in range(2):
            assert new_game(client).status_code == 303
        assert client.get("/sheets/blank.pdf?pages=4").status_code == 200
