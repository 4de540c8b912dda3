"""The language switch, and every page and PDF in each language without a stray word.

The crawl compares each page with the catalogues: a page must hold no text that another
language's messages have and its own never do (a string rendered without translation, or
translated into the wrong language). Player names are plain ASCII so that they never match.
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from babel import Locale
from babel.messages.pofile import read_po

from scorekeeper.app import PACKAGE_DIR
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.web.language import COOKIE, COOKIE_MAX_AGE, LANGUAGE_NAMES, language_name
from tests.support.crawl import crawl_urls
from tests.support.forms import csrf_token
from tests.support.prints import read

# Shorter texts ("Six", "Full", "Chance", "Total") are words of both languages, or parts of
# other words.
SHORTEST_CHECKED = 12
FIELD = re.compile(r"%(?:\(\w+\))?[-#0 +]*\d*(?:\.\d+)?[diouxXeEfFgGcrs%]|\{[^{}]*\}")
# Letters of French that English text never needs; user data here has none. (« and » are
# not among them: the review draws its first and last steps with them.)
FRENCH_LETTERS = re.compile(r"[àâçéèêëîïôûùüÿœæ]")
# The switch names each other language in that language: not a leftover.
SWITCH_BUTTON = re.compile(r'<button[^>]*\blang="(\w+)"[^>]*>.*?</button>', re.S)


def _fragments(text: str) -> set[str]:
    return {part.strip() for part in FIELD.split(text)}


def _forms(text: str | tuple[str, ...]) -> tuple[str, ...]:
    return text if isinstance(text, tuple) else (text,)


def _texts_by_language() -> dict[str, set[str]]:
    """Each language's pieces of text between placeholders: French's from the msgids, every
    other language's from its catalogue."""
    texts: dict[str, set[str]] = {"fr": set()}
    for path in sorted((PACKAGE_DIR / "translations").glob("*/LC_MESSAGES/messages.po")):
        language = path.parent.parent.name
        with open(path, "rb") as file:
            catalogue = read_po(file)
        texts[language] = set()
        for message in catalogue:
            if message.id:
                texts["fr"] |= set().union(*map(_fragments, _forms(message.id)))
                texts[language] |= set().union(*map(_fragments, _forms(message.string)))
    return texts


def _texts_of_other_languages() -> dict[str, set[str]]:
    """For each language, the pieces long enough to check that another language's messages
    hold and its own never do: on its pages, a message left in another language."""
    texts = _texts_by_language()
    return {
        language: {
            part
            for other, parts in texts.items()
            if other != language
            for part in parts - own
            if len(part) >= SHORTEST_CHECKED
        }
        for language, own in texts.items()
    }


FOREIGN = _texts_of_other_languages()


def page_language(html: str) -> str:
    return re.search(r'<html lang="([\w-]+)"', html).group(1)


def readable(html: str, language: str) -> str:
    """The page's text and attributes as a reader gets them, without the switch's buttons
    naming the other languages."""
    kept = SWITCH_BUTTON.sub(lambda m: "" if m.group(1) != language else m.group(0), html)
    return unescape(kept)


def leftovers(html: str, language: str) -> list[str]:
    text = readable(html, language)
    found = {part for part in FOREIGN[language] if part in text}
    if language == "en":
        found |= set(FRENCH_LETTERS.findall(text))
    return sorted(found)


def choose(client, language: str, next_url: str = "/", **headers):
    return client.post(
        "/language",
        data={"csrf_token": csrf_token(client), "lang": language, "next": next_url},
        headers=headers,
    )


# -- choosing ----------------------------------------------------------------------------------


def test_french_is_the_default(client):
    response = client.get("/")
    assert page_language(response.get_data(as_text=True)) == "fr"
    assert "Nouvelle partie" in response.get_data(as_text=True)
    assert COOKIE not in response.headers.get("Set-Cookie", "")


@pytest.mark.parametrize(
    "accept, expected",
    [
        ("en-US,en;q=0.9", "en"),
        ("en-GB", "en"),
        ("fr-CA,en;q=0.5", "fr"),
        ("de-DE,de", "de"),
        ("es-AR", "es"),
        ("sv-SE,sv;q=0.9,en;q=0.8", "sv"),
        ("it-IT,it,en-US;q=0.8,fr;q=0.5", "en"),
        ("nl-NL,nl", "fr"),
        ("EN_us", "en"),
        ("en;q=0,fr", "fr"),
        ("*", "fr"),
    ],
)
def test_without_a_choice_the_browser_language_is_followed(client, accept, expected):
    html = client.get("/", headers={"Accept-Language": accept}).get_data(as_text=True)
    assert page_language(html) == expected


def test_the_switch_is_remembered_by_the_device_for_a_year(table):
    game_id = table.new_game(["Mag", "Alix"])
    response = choose(table.client, "en", f"/games/{game_id}")
    assert response.status_code == 303
    assert response.headers["Location"] == f"/games/{game_id}"
    cookie = response.headers["Set-Cookie"]
    assert cookie.startswith(f"{COOKIE}=en;")
    assert f"Max-Age={COOKIE_MAX_AGE}" in cookie and COOKIE_MAX_AGE == 365 * 24 * 60 * 60
    assert "SameSite=Lax" in cookie and "HttpOnly" in cookie

    sheet = table.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert page_language(sheet) == "en"
    assert '<th scope="row" class="box-name">Ones</th>' in sheet
    assert "Mag's turn" in unescape(sheet)
    refused = table.play(game_id, 0, "6665", "free:sixes")
    assert refused.status_code == 422
    assert "Too few dice: 5 are needed, not 4." in refused.get_data(as_text=True)

    # The device's choice wins over what the browser asks for.
    html = table.client.get("/", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert page_language(html) == "en"
    choose(table.client, "fr")
    html = table.client.get("/", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert page_language(html) == "fr"
    assert "Pas assez de dés" in table.play(game_id, 0, "6665", "free:sixes").get_data(as_text=True)


def test_each_page_offers_the_other_language_and_comes_back_to_itself(client):
    html = client.get("/print?x=1").get_data(as_text=True)
    assert re.search(r'<button[^>]*name="lang" value="en" lang="en"', html)
    assert 'name="lang" value="fr"' not in html
    assert '<input type="hidden" name="next" value="/print?x=1">' in html
    client.set_cookie(COOKIE, "en")
    html = client.get("/print").get_data(as_text=True)
    assert re.search(r'<button[^>]*name="lang" value="fr" lang="fr"', html)
    assert "Français" in html


def test_each_language_is_named_in_itself_as_babel_names_it(app):
    # The app's own catalogues and its source language, each named as Babel's locale data
    # names it; a language without a name of ours still gets Babel's.
    catalogues = {path.name for path in (PACKAGE_DIR / "translations").iterdir() if path.is_dir()}
    languages = {*app.config["LANGUAGES"], *catalogues, app.config["BABEL_DEFAULT_LOCALE"]}
    assert languages == set(LANGUAGE_NAMES)
    for code, name in LANGUAGE_NAMES.items():
        assert name == Locale.parse(code).get_display_name(code).capitalize()
    assert language_name("de") == "Deutsch"


def test_a_page_answering_a_refused_post_switches_back_to_the_form_it_came_from(table):
    game_id = table.new_game(["Mag"])
    data = {
        "csrf_token": csrf_token(table.client),
        "seq": 0,
        "dice": "6665",
        "target": "free:sixes",
    }
    html = table.client.post(
        f"/games/{game_id}/entries",
        data=data,
        headers={"Referer": f"http://localhost/games/{game_id}"},
    ).get_data(as_text=True)
    assert f'<input type="hidden" name="next" value="/games/{game_id}">' in html


@pytest.mark.parametrize(
    "language, next_url, status, location",
    [
        ("it", "/print", 400, None),
        ("", "/print", 400, None),
        ("en", "//elsewhere.example/", 303, "/"),
        ("en", "https://elsewhere.example/print", 303, "/"),
        ("en", "", 303, "/"),
    ],
)
def test_the_switch_refuses_other_languages_and_other_sites(
    client, language, next_url, status, location
):
    response = choose(client, language, next_url)
    assert response.status_code == status
    if location is None:
        assert COOKIE not in response.headers.get("Set-Cookie", "")
    else:
        assert response.headers["Location"] == location


# -- every page in both languages --------------------------------------------------------------


def refused_posts(table, seeded):
    """Pages that only a POST shows: a box to cross out, bad dice, a name already taken."""
    playing, seq = seeded["playing"], seeded["seq"]
    player = seeded["players"][0]
    yield table.play(playing, seq, "12345", "free:yams")
    yield table.play(playing, seq, "6665", "free:sixes")
    yield table.post("/games/new", {"names-0": "Mag", "names-1": "mag"})
    yield table.post(f"/players/{player}/rename", {"name": "Sam"})


@pytest.mark.parametrize("language", list(FOREIGN))
def test_every_page_speaks_one_language(app, table, seeded, language):
    table.client.set_cookie(COOKIE, language)
    urls = crawl_urls(app, seeded)
    assert len(urls) >= 40
    pages = 0
    for url in urls:
        response = table.client.get(url)
        assert response.status_code < 500 or response.status_code == 503, url
        if response.mimetype != "text/html" or 300 <= response.status_code < 400:
            continue
        html = response.get_data(as_text=True)
        if "<html" in html:
            assert page_language(html) == language, url
        assert leftovers(html, language) == [], url
        pages += 1
    assert pages >= 35
    for response in refused_posts(table, seeded):
        assert response.status_code in (200, 409, 422), response.request.path
        assert leftovers(response.get_data(as_text=True), language) == []


@pytest.mark.parametrize("language", list(FOREIGN))
def test_a_maxi_yatzy_game_speaks_one_language(table, language):
    """Maxi Yatzy's pages, which the crawl's games do not show: its Swedish boxes are the
    game's own words, everything around them speaks the page's language (docs/rules.md §15)."""
    game_id = table.new_game(["Mag", "Alix"], preset="maxi_yatzy")
    data = {"seq": 0, "dice": "123456", "target": "free:full_straight", "throws": "1"}
    assert table.post(f"/games/{game_id}/entries", {**data, "version": table.version(game_id)})
    table.client.set_cookie(COOKIE, language)
    urls = [
        f"/games/{game_id}",
        f"/games/{game_id}?dice=33366",
        f"/games/{game_id}/turn?seq=1&dice=333666",
        f"/games/{game_id}/advice?dice=333666",
        f"/games/{game_id}/review",
        "/print",
    ]
    for url in urls:
        response = table.client.get(url)
        assert response.status_code == 200, url
        html = response.get_data(as_text=True)
        assert leftovers(html, language) == [], url
    # More throws than the player has: refused in the page's language.
    refused = table.post(
        f"/games/{game_id}/entries",
        {**data, "seq": 1, "throws": "9", "version": table.version(game_id)},
    )
    assert refused.status_code == 422
    assert leftovers(refused.get_data(as_text=True), language) == []


def test_the_crawl_would_see_a_leftover(client):
    """The check itself: a message left in French, or in the wrong language, is found."""
    assert "Une case par tour" in " ".join(FOREIGN["en"])
    assert leftovers("<p>Joker : ce Yams doit aller dans la case {forced_box}.</p>", "en")
    assert leftovers("<p>Tout est pareil sauf l'accent : é</p>", "en") == ["é"]
    assert leftovers("<p>Type the dice: 5 digits from 1 to 6.</p>", "fr")
    for language in ("de", "es", "sv"):
        assert leftovers("<p>Tapez les dés : 5 chiffres de 1 à 6.</p>", language)
        assert leftovers("<p>Type the dice: 5 digits from 1 to 6.</p>", language)
    assert leftovers("<p>Skriv tärningarna: 5 siffror från 1 till 6.</p>", "de")
    assert leftovers("<p>Geben Sie die Würfel ein: 5 Ziffern von 1 bis 6.</p>", "de") == []


# -- PDFs ---------------------------------------------------------------------------------------


def pdf_text(response) -> str:
    assert response.status_code == 200 and response.mimetype == "application/pdf"
    return " ".join(page.text for page in read(response.get_data()).pages)


def test_the_pdfs_are_printed_in_the_device_language(client, table, seeded):
    blank = "/sheets/blank.pdf?preset=classique&paper=a4"
    french = pdf_text(client.get(blank))
    client.set_cookie(COOKIE, "en")
    english = pdf_text(client.get(blank))
    # The cache of blank grids keeps one per language.
    assert "Brelan" in french and "Three of a kind" not in french
    assert "Three of a kind" in english and "Brelan" not in english
    assert "Upper total" in english and "score sheet" in english

    sheet = pdf_text(client.get(f"/games/{seeded['finished']}/sheet.pdf?paper=letter"))
    assert "Ones" in sheet and "Four of a kind" in sheet and "Ranking" in sheet
    assert "cow rule (la vache)" in sheet and "Finished on" in sheet
    assert "Carré" not in sheet and "Classement" not in sheet
    triple = pdf_text(client.get(f"/games/{seeded['triple']}/sheet.pdf"))
    assert "Minus" in triple and "One roll" in triple and "Standings so far" in triple


@pytest.mark.parametrize(
    ("lang", "message"), [("fr", "Ce champ est requis."), ("en", "This field is required.")]
)
def test_wtforms_own_messages_speak_the_page_language(app, lang, message):
    from scorekeeper.web.forms import EntryForm

    with app.test_request_context(
        "/", method="POST", data={"dice": "12345"}, headers={"Cookie": f"{COOKIE}={lang}"}
    ):
        form = EntryForm(meta={"csrf": False})
        assert not form.validate()
        assert form.seq.errors == [message]


@pytest.fixture
def paris_app(instance_path):
    from scorekeeper.app import STORE_EXTENSION, create_app

    app = create_app(
        {"TESTING": True, "BABEL_DEFAULT_TIMEZONE": "Europe/Paris"}, instance_path=instance_path
    )
    yield app
    app.extensions[STORE_EXTENSION].dispose()


def test_dates_and_times_in_the_house_time_zone_and_the_reader_language(paris_app):
    from datetime import UTC, datetime

    from sqlalchemy import update

    from scorekeeper.app import STORE_EXTENSION
    from scorekeeper.play import play_turn, start_game
    from scorekeeper.rules import Rules
    from scorekeeper.store.schema import games

    store = paris_app.extensions[STORE_EXTENSION]
    game_id = start_game(
        store,
        Rules.from_dict({"preset": "classique"}),
        ["Mag", "Alix"],
        household=HOME_HOUSEHOLD,
        quotas=NO_QUOTAS,
    )
    # Played once: a game never played that long ago is left out of the list.
    play_turn(store, game_id, 0, "free", "sixes", "66653", household=HOME_HOUSEHOLD)
    # 23:30 in UTC is already the next day in Paris (UTC+1 in January).
    played = datetime(2026, 1, 14, 23, 30, tzinfo=UTC)
    with store.engine.begin() as connection:
        connection.execute(update(games).where(games.c.id == game_id).values(updated_at=played))
    client = paris_app.test_client()

    french = client.get("/").get_data(as_text=True)
    client.set_cookie(COOKIE, "en")
    english = client.get("/").get_data(as_text=True)

    assert "15 janv. 2026 00:30" in french
    assert re.search(r"Jan 15, 2026 12:30\s?AM", english.replace("\u202f", " "))


def test_the_time_zone_is_the_machine_s_unless_the_config_says_otherwise(
    instance_path, monkeypatch
):
    import tzlocal

    from scorekeeper.app import STORE_EXTENSION, create_app

    monkeypatch.setattr(tzlocal, "get_localzone_name", lambda: "America/Montreal")
    app = create_app({"TESTING": True}, instance_path=instance_path)
    app.extensions[STORE_EXTENSION].dispose()
    assert app.config["BABEL_DEFAULT_TIMEZONE"] == "America/Montreal"

    def broken():
        raise LookupError("no zone configured")

    for machine_zone in (broken, lambda: None, lambda: "Mars/Olympus_Mons"):
        monkeypatch.setattr(tzlocal, "get_localzone_name", machine_zone)
        app = create_app({"TESTING": True}, instance_path=instance_path)
        app.extensions[STORE_EXTENSION].dispose()
        assert app.config["BABEL_DEFAULT_TIMEZONE"] == "UTC"

    with pytest.raises(RuntimeError, match="unknown time zone 'Europe/Pari'"):
        create_app(
            {"TESTING": True, "BABEL_DEFAULT_TIMEZONE": "Europe/Pari"}, instance_path=instance_path
        )


def test_downloads_are_named_in_the_reader_language(client, table):
    game_id = table.new_game(["Mag", "Alix"])
    client.set_cookie(COOKIE, "en")
    names = [
        client.get(url).headers["Content-Disposition"]
        for url in (
            f"/games/{game_id}/game.json",
            f"/games/{game_id}/sheet.pdf",
            "/import-export/games.json",
            "/sheets/blank.pdf?preset=classique&paper=letter",
        )
    ]
    assert names[0] == f'attachment; filename="yams-game-{game_id}.json"'
    assert names[1] == f'inline; filename="yams-game-{game_id}.pdf"'
    assert re.fullmatch(r'attachment; filename="yams-games-\d{4}-\d\d-\d\d\.json"', names[2])
    assert names[3] == 'inline; filename="yams-grid-letter.pdf"'
