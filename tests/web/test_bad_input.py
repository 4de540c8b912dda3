"""Bad input gets a 4xx or the form again with a French message, and stores nothing."""

import re
import sqlite3
from pathlib import Path

import pytest

from scorekeeper.app import DATABASE_FILE, STORE_EXTENSION
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store import engine as store_engine
from scorekeeper.web.language import COOKIE as LANGUAGE_COOKIE


@pytest.fixture
def game(table):
    """A two-player game where Mag has written 24 in Six; Alix is to play."""
    game_id = table.new_game(["Mag", "Alix"])
    assert table.play(game_id, 0, "66662", "free:sixes").status_code == 303
    return game_id


# Each wrong throw, and the rules' sentence for it in French and in English.
WRONG_THROWS = {
    "77777": (
        "« 7 » n&#39;est pas un dé : un dé va de 1 à 6.",
        "“7” is not a die: a die goes from 1 to 6.",
    ),
    "66053": (
        "« 0 » n&#39;est pas un dé : un dé va de 1 à 6.",
        "“0” is not a die: a die goes from 1 to 6.",
    ),
    "abc": (
        "« abc » n&#39;est pas un chiffre : tapez les dés de 1 à 6.",
        "“abc” is not a digit: type the dice from 1 to 6.",
    ),
    "666666": (
        "Trop de dés : il en faut 5, pas 6.",
        "Too many dice: 5 are needed, not 6.",
    ),
    "666": (
        "Pas assez de dés : il en faut 5, pas 3.",
        "Too few dice: 5 are needed, not 3.",
    ),
    "": (
        "Tapez les dés : 5 chiffres de 1 à 6.",
        "Type the dice: 5 digits from 1 to 6.",
    ),
}


def dice_status(page: str) -> str:
    """The status line under the keypad, where the dice's problem is said."""
    return re.search(r'<p id="dice-status"[^>]*>(.*?)</p>', page, re.S).group(1).strip()


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("dice", list(WRONG_THROWS))
def test_bad_dice(table, game, snapshot, dice, lang):
    """A turn posted with a wrong throw: a 422 saying the rules' sentence once, where the
    dice are, in the reader's language; nothing written."""
    table.client.set_cookie(LANGUAGE_COOKIE, lang)
    message = WRONG_THROWS[dice][lang == "en"]
    before = snapshot()
    response = table.play(game, 1, dice, "free:chance")
    assert response.status_code == 422
    # Once on the page, besides the sentences written for the script.
    page = re.sub(r"data-dice-reading='[^']*'", "", response.get_data(as_text=True))
    assert page.count(message) == 1
    if dice:  # no dice at all: said above the sheet, as a tap on a box without dice is
        assert dice_status(page) == message
    assert snapshot() == before


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("free:sixes", None),  # Alix's Six is free: the box is fine, see the next test
        ("free:plus", "Cette partie n&#39;a pas de case « plus »."),
        ("up:ones", "Cette partie n&#39;a pas de colonne « up »."),
        ("nonsense", "Cette partie n&#39;a pas de colonne « nonsense »."),
    ],
)
def test_unknown_box_or_column(table, game, snapshot, target, message):
    if message is None:
        return
    before = snapshot()
    response = table.play(game, 1, "12345", target)
    assert response.status_code == 422
    assert message in response.get_data(as_text=True)
    assert snapshot() == before


def test_filled_box(table, game, snapshot):
    table.play(game, 1, "11111", "free:yams")
    before = snapshot()
    response = table.play(game, 2, "66666", "free:sixes")
    assert response.status_code == 422
    assert "La case Six est déjà remplie." in response.get_data(as_text=True)
    assert snapshot() == before


def test_a_client_cannot_choose_the_player(table, game, app):
    """The seat comes from the replay: a forged player field is ignored."""
    response = table.entry_form(
        game, 1, dice="11123", target="free:ones", player="0", seat="0", score="50"
    )
    assert response.status_code == 303
    from scorekeeper.play import load

    record, state = load(app.extensions["scorekeeper.store"], game, household=HOME_HOUSEHOLD)
    assert record.entries[-1].seat == 1 and record.entries[-1].score == 3
    assert "ones" not in state.sheets[0].columns["free"].cells


def test_same_form_posted_twice(table, game, snapshot):
    assert table.play(game, 1, "11123", "free:ones").status_code == 303
    before = snapshot()
    response = table.play(game, 1, "11123", "free:ones")
    assert response.status_code == 409
    assert "La feuille a changé entre-temps" in response.get_data(as_text=True)
    assert snapshot() == before


def test_missing_csrf_token(table, game, snapshot):
    before = snapshot()
    response = table.post(
        f"/games/{game}/entries", {"seq": 1, "dice": "11123", "target": "free:ones"}, token=False
    )
    assert response.status_code == 400
    assert "La page a expiré" in response.get_data(as_text=True)
    response = table.post("/games/new", {"names-0": "Eve"}, token=False)
    assert response.status_code == 400
    assert snapshot() == before


@pytest.mark.parametrize("seq", ["", "abc", "-1", "99999999999999999999"])
def test_bad_sequence_number(table, game, snapshot, seq):
    before = snapshot()
    response = table.entry_form(game, seq, dice="11123", target="free:ones")
    assert 400 <= response.status_code < 500
    assert snapshot() == before


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (["x" * 41], "un nom fait au plus 40 caractères"),
        (["Mag", "mag"], "Deux joueurs ne peuvent pas s&#39;appeler « mag »."),
        ([f"J{i}" for i in range(11)], "Une partie se joue de 1 à 10 joueurs, pas 11."),
        ([], "Une partie se joue de 1 à 10 joueurs, pas 0."),
        (["Ma\u200bg"], "caractères invisibles"),
    ],
)
def test_bad_new_game(table, snapshot, names, message):
    before = snapshot()
    data = {f"names-{i}": name for i, name in enumerate(names)}
    data.update(preset="classique", dice="5")
    response = table.post("/games/new", data)
    assert response.status_code == 422
    assert message in response.get_data(as_text=True)
    assert snapshot() == before


def test_bad_option_values_are_refused(table, snapshot):
    before = snapshot()
    response = table.post("/games/new", {"names-0": "Mag", "preset": "farkle", "dice": "7"})
    assert response.status_code == 422
    assert snapshot() == before


def test_unknown_game_and_wrong_method(client, table, snapshot):
    for response in (
        client.get("/games/999"),
        client.get("/games/999/ranking"),
        table.play(999, 0, "12345", "free:chance"),
    ):
        assert response.status_code == 404
        assert "Aucune partie n&#39;a le numéro 999." in response.get_data(as_text=True)
    before = snapshot()
    assert table.undo(999, 0).status_code == 404
    assert snapshot() == before
    assert client.get("/games/1/entries").status_code == 405
    assert client.get("/games/abc").status_code == 404


def test_undo_with_a_stale_sheet_changes_nothing(table, game, snapshot):
    before = snapshot()
    response = table.undo(game, 5)
    assert response.status_code == 303
    assert snapshot() == before
    page = table.client.get(f"/games/{game}").get_data(as_text=True)
    assert "n&#39;est plus la dernière" in page


def test_playing_a_finished_game_is_refused(table, snapshot):
    game_id = table.new_game(["Solo"], preset="yatzy")
    for seq, box in enumerate(Rules(preset="yatzy").boxes):
        assert table.play(game_id, seq, "12345", f"free:{box}", confirm=True).status_code == 303
    before = snapshot()
    response = table.play(game_id, 15, "12345", "free:ones", confirm=True)
    assert response.status_code == 422 and "La partie est terminée" in response.get_data(
        as_text=True
    )
    assert snapshot() == before


@pytest.mark.sqlite_only("holds the SQLite file's write lock")
@pytest.mark.parametrize(
    ("lang", "sentence"), [("fr", "réessayez dans un instant"), ("en", "try again in a moment")]
)
def test_a_turn_that_meets_a_held_lock_is_told_to_try_again(
    table, game, app, snapshot, monkeypatch, lang, sentence
):
    # A short busy timeout, so that the test does not wait SQLite's five seconds.
    monkeypatch.setattr(store_engine, "BUSY_TIMEOUT_MS", 50)
    app.extensions[STORE_EXTENSION].engine.dispose()
    table.client.set_cookie("lang", lang)
    before = snapshot()
    import_in_progress = sqlite3.connect(Path(app.instance_path, DATABASE_FILE))
    import_in_progress.execute("BEGIN IMMEDIATE")
    try:
        response = table.play(game, 1, "12345", "free:chance")
    finally:
        import_in_progress.rollback()
        import_in_progress.close()
    assert response.status_code == 503 and response.headers["Retry-After"] == "2"
    assert sentence in response.get_data(as_text=True)
    assert snapshot() == before
    assert table.play(game, 1, "12345", "free:chance").status_code == 303
