"""A finished game's result card to share (sheets/card.py): a PNG 1080 px wide, the ranking
as the screen shows it, names in emoji and CJK as written, « Partager » on the ranking; a game
in progress is refused with its reason, and another household's game is no game at all."""

import io
import re

import numpy as np
import pytest
from PIL import Image

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.play import load, start_game
from scorekeeper.rules import Rules
from scorekeeper.sheets.card import (
    CARD_BASE_HEIGHT_PX,
    CARD_ROW_HEIGHT_PX,
    CARD_WIDTH_PX,
    card_html,
)
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.games import load_game
from scorekeeper.store.quotas import NO_QUOTAS
from tests.support.forms import page_text
from tests.support.games import duo_document, import_documents

RANKING_LIST = re.compile(r'<ol class="ranking">.*?</ol>', re.S)


def finished(app, first="Mag", second="Alix"):
    document = duo_document(first, second)
    document |= {
        "created_at": "2026-11-30T19:55:00+00:00",
        "started_at": "2026-11-30T20:00:00+00:00",
        "finished_at": "2026-11-30T21:12:00+00:00",
    }
    return import_documents(app.extensions[STORE_EXTENSION], document)[0]


def image(response) -> Image.Image:
    assert response.status_code == 200
    assert response.mimetype == "image/png"
    return Image.open(io.BytesIO(response.data)).convert("RGB")


def test_a_finished_game_s_card_is_a_png_1080_pixels_wide(app, client):
    game_id = finished(app)
    card = image(client.get(f"/games/{game_id}/card.png"))
    assert card.size == (CARD_WIDTH_PX, CARD_BASE_HEIGHT_PX + 2 * CARD_ROW_HEIGHT_PX)
    # Drawn, not blank: the winners' gold and the text's ink.
    pixels = np.asarray(card, dtype=int)
    assert (pixels.sum(axis=2) < 150).sum() > 5_000


def test_a_card_asked_again_is_not_drawn_again(app, client):
    game_id = finished(app)
    first = client.get(f"/games/{game_id}/card.png")
    again = client.get(
        f"/games/{game_id}/card.png", headers={"If-None-Match": first.headers["ETag"]}
    )
    assert again.status_code == 304


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_card_shows_the_screen_s_ranking(app, client, language):
    """The same ranking list as the ranking page, the same winner's sentence as the end of
    the game on the sheet, the date, the length and the rules in words."""
    game_id = finished(app)
    headers = {"Accept-Language": language}
    ranking = client.get(f"/games/{game_id}/ranking", headers=headers).get_data(as_text=True)
    sheet = client.get(f"/games/{game_id}", headers=headers).get_data(as_text=True)
    with app.test_request_context(headers=headers):
        record, state = load(app.extensions[STORE_EXTENSION], game_id, household=HOME_HOUSEHOLD)
        html = card_html(record, state)
    assert RANKING_LIST.search(html).group() == RANKING_LIST.search(ranking).group()
    winner = re.search(r'<h1 id="end-title"[^>]*>(.*?)</h1>', sheet, re.S).group(1)
    assert f'<h1 class="winner">{winner}</h1>' in html
    said = {
        "fr": ("30 novembre 2026", "72 minutes", "2 Yams dans la partie", "joker officiel"),
        "en": ("November 30, 2026", "72 minutes", "2 Yams in the game", "official joker"),
    }
    for words in said[language]:
        assert words in html


def test_names_in_emoji_and_cjk_are_drawn_as_written(app, client):
    """Colour where an emoji is (a missing font would draw a black outline), and two names
    in different letters drawn differently."""
    one = image(client.get(f"/games/{finished(app, 'Zoé 🎲🐄', '王小明')}/card.png"))
    other = image(client.get(f"/games/{finished(app, 'Zoé 🐄🎲', '김민준')}/card.png"))
    pixels = np.asarray(one, dtype=int)
    assert int((pixels.max(axis=2) - pixels.min(axis=2) > 120).sum()) > 500
    assert one.tobytes() != other.tobytes()


def test_the_ranking_offers_to_share_it(app, client):
    game_id = finished(app)
    page = client.get(f"/games/{game_id}/ranking").get_data(as_text=True)
    assert f'href="/games/{game_id}/card.png"' in page and "data-share-card" in page
    assert "js/share.js" in page


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("fr", "La carte à partager se fait à la fin de la partie : finissez-la d'abord."),
        ("en", "The card to share is made when the game ends: finish it first."),
    ],
)
def test_a_game_in_progress_has_no_card_yet(app, client, language, said):
    store = app.extensions[STORE_EXTENSION]
    game_id = start_game(
        store, Rules(), ["Mag", "Alix"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
    )
    before = load_game(store, game_id, household=HOME_HOUSEHOLD)
    response = client.get(f"/games/{game_id}/card.png", headers={"Accept-Language": language})
    assert response.status_code == 409
    assert said in page_text(response)
    assert load_game(store, game_id, household=HOME_HOUSEHOLD) == before


def test_an_unknown_game_has_no_card(client):
    assert client.get("/games/99999/card.png").status_code == 404
