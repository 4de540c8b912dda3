"""The keypad, the live preview fragment and the add-to-home-screen manifest, through the
test client: what the pages do with scripts off, and what the keypad script is served."""

import json
import re
from html import unescape

import pytest

from scorekeeper.web.language import COOKIE


@pytest.fixture
def game(table):
    """Mag and Alix, classique with la vache; Mag wrote 24 in Six, Alix is to play."""
    game_id = table.new_game(["Mag", "Alix"], vache="y")
    assert table.play(game_id, 0, "66662", "free:sixes").status_code == 303
    return game_id


def keypad(table, game_id, dice, **button):
    return table.entry_form(game_id, 1, dice=dice, **button)


@pytest.mark.parametrize(
    ("dice", "button", "after"),
    [
        ("", {"add": "6"}, "6"),
        ("665", {"add": "3"}, "6653"),
        ("6 6 5", {"add": "4"}, "6654"),
        ("66653", {"add": "1"}, "66653"),  # five dice already: the tap changes nothing
        ("66653", {"drop": "3"}, "6663"),
        ("66653", {"drop": "9"}, "66653"),
        ("66653", {"clear": "1"}, None),
    ],
)
def test_keypad_without_scripts(table, game, snapshot, dice, button, after):
    before = snapshot()
    response = keypad(table, game, dice, **button)
    assert response.status_code == 303
    expected = f"/games/{game}" + (f"?dice={after}" if after else "")
    assert response.headers["Location"] == expected
    assert snapshot() == before


def test_keypad_refuses_a_face_that_is_not_a_die(table, game, snapshot):
    before = snapshot()
    response = keypad(table, game, "66", add="7")
    assert 400 <= response.status_code < 500
    assert "Rechargez la feuille et recommencez." in response.get_data(as_text=True)
    assert snapshot() == before


def test_dice_being_typed_are_drawn_without_an_error(table, game):
    page = table.client.get(f"/games/{game}?dice=663").get_data(as_text=True)
    assert page.count('name="drop"') == 3 and "Encore 2 dés." in page
    assert 'class="flash flash-error"' not in page
    assert 'aria-label="Retirer le dé 3, un 3"' in page


def test_the_sheet_shows_floors_and_previews_for_the_active_player(table, game):
    page = table.client.get(f"/games/{game}").get_data(as_text=True)
    assert 'aria-label="Six, au moins 24"' in page and "≥24" in page
    page = table.client.get(f"/games/{game}?dice=66612").get_data(as_text=True)
    assert 'aria-label="Six, barrée à 0"' in page
    assert 'aria-label="Brelan, 21 points possibles"' in page
    assert "<title>À Alix de jouer · " in page


def turn(table, game_id, **query):
    return table.client.get(f"/games/{game_id}/turn", query_string={"seq": 1, **query})


def test_turn_fragment_follows_the_dice(table, game):
    response = turn(table, game, dice="66")
    fragment = response.get_data(as_text=True)
    assert response.status_code == 200 and "<html" not in fragment
    ids = re.findall(r'<(?:div|p) id="([a-z-]+)"', fragment)
    assert ids == ["dice-drawn", "dice-status", "turn-messages", "sheet-live", "confirm-bar"]
    assert "Encore 3 dés." in fragment and "flash-error" not in fragment
    fragment = turn(table, game, dice="66653").get_data(as_text=True)
    assert 'aria-label="Six, 18 points possibles"' not in fragment
    assert 'aria-label="Six, barrée à 0"' in fragment
    assert 'aria-label="Chance, 26 points possibles"' in fragment
    fragment = turn(table, game, dice="667").get_data(as_text=True)
    assert "« 7 » n&#39;est pas un dé" in fragment


def test_turn_fragment_asks_to_confirm_the_tapped_box(table, game, snapshot):
    before = snapshot()
    fragment = turn(table, game, dice="66653", target="free:chance").get_data(as_text=True)
    assert "26 en Chance pour Alix ?" in fragment
    assert 'name="target" value="free:chance" data-confirm' in fragment
    assert 'name="confirm"' not in fragment
    fragment = turn(table, game, dice="66612", target="free:sixes").get_data(as_text=True)
    assert "Barrer la case Six ?" in fragment
    assert "Règle de la vache : il faut au moins 24 dans cette case" in fragment
    assert '<input type="hidden" name="confirm" value="1">' in fragment
    fragment = turn(table, game, dice="666", target="free:sixes").get_data(as_text=True)
    assert "Pas assez de dés : il en faut 5, pas 3." in fragment
    assert 'id="confirm-bar" class="confirm-bar" hidden' in fragment
    assert snapshot() == before


def test_turn_fragment_says_why_a_box_is_refused(table, snapshot):
    """A tap on a filled box, or on one the column order or the joker forbids: one line."""
    game_id = table.new_game(["Mag"], preset="triple")
    table.play(game_id, 0, "66666", "free:yams")
    before = snapshot()

    def refusal(**query):
        fragment = turn(table, game_id, **query).get_data(as_text=True)
        found = re.search(r'<p class="refusal" role="alert">([^<]*)</p>', fragment)
        return found and found.group(1)

    assert refusal(target="free:yams") == "Yams : déjà remplie"
    assert refusal(target="down:threes") == "Colonne Descendante : d&#39;abord As"
    assert refusal(dice="44444", target="free:chance") == "Le joker impose la case Quatre"
    assert refusal(dice="44444", target="free:fours") is None
    # The dice typed still show what each allowed box would score beside the refusal.
    fragment = turn(table, game_id, dice="44444", target="free:yams").get_data(as_text=True)
    assert "Yams : déjà remplie" in fragment
    assert re.search(r'value="free:fours"\s+class="box-btn preview"', fragment)
    assert snapshot() == before


def test_turn_fragment_of_an_outdated_sheet_is_refused(table, game):
    assert turn(table, game, dice="66653", seq=0).status_code == 409
    assert turn(table, game, dice="66653", seq="x").status_code == 409
    assert table.client.get("/games/999/turn?seq=0").status_code == 404


def test_manifest_for_the_home_screen(client, app):
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response.mimetype == "application/manifest+json"
    manifest = response.get_json()
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    assert manifest["name"].startswith("Yams")
    for icon in manifest["icons"]:
        assert client.get(icon["src"]).status_code == 200, icon["src"]
    assert {"192x192", "512x512"} <= {icon["sizes"] for icon in manifest["icons"]}
    assert any(icon["purpose"] == "maskable" for icon in manifest["icons"])
    page = client.get("/").get_data(as_text=True)
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page


def test_home_shows_the_lan_address_as_a_qr_code(client, monkeypatch):
    import segno

    from scorekeeper.web import main

    monkeypatch.setattr(main, "lan_address", lambda: "192.168.1.20")
    page = client.get("/", base_url="http://localhost:8123").get_data(as_text=True)
    assert "http://192.168.1.20:8123" in page

    # The drawing in the page is the QR code of that address, module for module.
    def drawing(url: str) -> str:
        modules = segno.make(url, micro=False).svg_inline(
            border=2, omitsize=True, dark="#1f1d1a", light="#ffffff", lineclass=None
        )
        return 'd="{}"'.format(re.search(r'<path stroke="#1f1d1a" d="([^"]+)"', modules).group(1))

    assert drawing("http://192.168.1.20:8123") in page
    assert "aucun réseau" not in page
    # Another address, another code: the codes kept are kept by address.
    page = client.get("/", base_url="http://tablet.local").get_data(as_text=True)
    assert "http://192.168.1.20:80<" in page
    assert drawing("http://192.168.1.20:80") in page
    assert drawing("http://192.168.1.20:8123") not in page


def test_home_warns_when_the_machine_has_no_network(client, monkeypatch):
    from scorekeeper.web import main

    monkeypatch.setattr(main, "lan_address", lambda: "127.0.0.1")
    page = client.get("/").get_data(as_text=True)
    assert "est relié à aucun réseau" in page


def test_ordered_columns_ring_their_next_box_and_sec_says_one_throw(table):
    game_id = table.new_game(["Mag"], preset="triple", sec="y")
    page = table.client.get(f"/games/{game_id}").get_data(as_text=True)
    nexts = re.findall(
        r'<td class="open active[^"]*\bnext\b[^"]*">\s*<button[^>]*'
        r'aria-label="([^"]+)"',
        page,
    )
    assert nexts == ["As (Descendante)", "Chance (Montante)"]
    assert page.count('aria-label="As (Libre)"') == 1 and "1 lancer" in page
    page = table.client.get(f"/games/{game_id}?dice=66653").get_data(as_text=True)
    assert 'aria-label="Six (Sec), 18 points possibles"' in page
    fragment = table.client.get(f"/games/{game_id}/turn?seq=0&dice=66653&target=sec:sixes")
    text = fragment.get_data(as_text=True)
    assert "18 en Six (Sec) pour Mag ?" in text
    assert "Colonne Sec : un seul lancer, sur l'honneur." in text


def totals_rows(page):
    """Each row of totals of the sheet: its name, then what each seat's column shows."""
    rows = {}
    for row in re.findall(r'<tr class="(?:subtotal|bonus)[^"]*">(.*?)</tr>', page, re.S):
        name = re.search(r'<th scope="row" class="box-name">(.*?)</th>', row, re.S).group(1)
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        rows[name] = [" ".join(re.sub(r"<[^>]+>", " ", cell).split()) for cell in cells]
    return rows


def test_totals_stay_blank_until_their_part_has_a_box_and_the_bonus_row_counts_down(table):
    game_id = table.new_game(["Mag", "Alix"])
    rows = totals_rows(table.client.get(f"/games/{game_id}").get_data(as_text=True))
    assert rows["Total haut"] == ["", ""] and rows["Total bas"] == ["", ""]
    assert rows["Prime (35)"] == ["encore 63 pour 35 reste 63"] * 2

    table.play(game_id, 0, "66662", "free:sixes")  # Mag: 24 in Six, two over three sixes
    table.play(game_id, 1, "11234", "free:chance")  # Alix: 11 in Chance
    rows = totals_rows(table.client.get(f"/games/{game_id}").get_data(as_text=True))

    assert rows["Total haut"] == ["24", ""]
    # The pace in a word, its short form for narrow columns, and the sentence a tap shows.
    pace = (
        "en avance de 6 avance Prime du haut : encore 39 points pour 35, en avance de 6 "
        "sur le rythme de trois de chaque face."
    )
    assert rows["Prime (35)"] == [
        f"encore 39 pour 35 reste 39 {pace}",
        "encore 63 pour 35 reste 63",
    ]
    assert rows["Total bas"] == ["", "11"]
    assert rows["Prime Yams (+100)"] == ["", ""]


# A box button of the active player, and whether it invites a tap.
BOX_BUTTON = re.compile(r'<button type="submit" name="target"[^>]*>')


def box_buttons(fragment):
    buttons = BOX_BUTTON.findall(fragment)
    assert buttons, "no box of the active player"
    return ["aria-disabled" not in button for button in buttons]


@pytest.mark.parametrize(
    ("dice", "status"),
    [
        ("", "Touchez les 5 dés ci-dessous, ou tapez-les."),
        ("666", "Encore 2 dés."),  # too few is how a throw starts: no error while typing
        ("77777", "« 7 » n&#39;est pas un dé : un dé va de 1 à 6."),
        ("abc", "« abc » n&#39;est pas un chiffre : tapez les dés de 1 à 6."),
        ("666666", "Trop de dés : il en faut 5, pas 6."),
    ],
)
def test_while_typing_a_wrong_throw_is_said_and_no_box_invites_a_tap(table, game, dice, status):
    fragment = turn(table, game, dice=dice).get_data(as_text=True)
    line = re.search(r'<p id="dice-status" class="([^"]*)"[^>]*>(.*?)</p>', fragment, re.S)
    assert line.group(2).strip() == status
    assert ("dice-wrong" in line.group(1)) == (status.count(":") == 1)
    assert "flash-error" not in fragment  # said once, on the status line
    assert not any(box_buttons(fragment))


def test_a_throw_makes_the_boxes_invite_a_tap(table, game):
    fragment = turn(table, game, dice="66653").get_data(as_text=True)
    assert all(box_buttons(fragment))
    assert "Touchez la case à remplir" in fragment


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("fr", {"not_a_face": "« {value} » n'est pas un dé : un dé va de 1 à 6."}),
        ("en", {"too_many": "Too many dice: 5 are needed, not {given}."}),
    ],
)
def test_the_sheet_carries_the_rules_sentences_for_its_script(table, game, lang, said):
    """sheet.js says a wrong throw as it is typed, in the words the server would."""
    table.client.set_cookie("lang", lang)
    page = table.client.get(f"/games/{game}").get_data(as_text=True)
    reading = json.loads(unescape(re.search(r"data-dice-reading='([^']*)'", page).group(1)))
    assert reading["said"].items() >= said.items()
    assert set(reading["said"]) == {"no_dice", "not_a_digit", "not_a_face", "too_many"}
    assert reading["faces"] == [1, 2, 3, 4, 5, 6]
    assert re.split(reading["separators"], "6, 6;6/5-3") == ["6", "6", "6", "5", "3"]


# Each bonus cell's words where the column has room (long) and where it is narrow (short).
BONUS_WORDS = re.compile(
    r'<span class="(missing|balance)[^"]*"><span class="long-form"[^>]*>([^<]*)</span>'
    r'<span class="short-form" aria-hidden="true">([^<]*)</span>'
)


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        (
            "fr",
            [
                [("encore 39 pour 35", "reste 39"), ("en avance de 6", "avance")],
                [("encore 60 pour 35", "reste 60"), ("dans le rythme", "pile")],
                [("encore 55 pour 35", "reste 55"), ("en retard de 4", "retard")],
            ],
        ),
        (
            "en",
            [
                [("39 more for 35", "39 more"), ("6 ahead of pace", "ahead")],
                [("60 more for 35", "60 more"), ("on pace", "on pace")],
                [("55 more for 35", "55 more"), ("4 behind pace", "behind")],
            ],
        ),
    ],
)
def test_the_bonus_row_says_what_is_missing_and_the_pace(table, language, expected):
    game_id = table.new_game(["Mag", "Alix", "Zoé"])
    table.play(game_id, 0, "66662", "free:sixes")  # four sixes: 6 ahead of three
    table.play(game_id, 1, "11123", "free:ones")  # three ones: on pace
    table.play(game_id, 2, "44123", "free:fours")  # two fours: 4 behind
    if language == "en":
        table.client.set_cookie(COOKIE, "en")
    page = table.client.get(f"/games/{game_id}").get_data(as_text=True)
    row = re.search(r'<tr class="bonus">(.*?)</tr>', page, re.S).group(1)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
    assert [[words[1:] for words in BONUS_WORDS.findall(cell)] for cell in cells] == expected


@pytest.mark.parametrize(
    ("language", "words"),
    [("fr", ("hors d'atteinte", "perdue")), ("en", ("out of reach", "lost"))],
)
def test_a_bonus_out_of_reach_says_so(table, language, words):
    game_id = table.new_game(["Mag", "Alix"])
    # Mag bars Six, Cinq and Quatre: five of each other face make 30, short of 63.
    for seq, (dice, box) in enumerate(
        [("11234", "sixes"), ("66662", "sixes"), ("11234", "fives")]
        + [("11123", "ones"), ("11236", "fours")]
    ):
        table.play(game_id, seq, dice, f"free:{box}", confirm=True)
    if language == "en":
        table.client.set_cookie(COOKIE, "en")
    page = table.client.get(f"/games/{game_id}").get_data(as_text=True)
    row = re.search(r'<tr class="bonus">(.*?)</tr>', page, re.S).group(1)
    mag = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)[0]
    assert BONUS_WORDS.findall(mag)[1][1:] == words, mag
    assert 'class="balance behind"' in mag
