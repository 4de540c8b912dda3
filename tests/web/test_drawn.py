"""The sheet of one version of a game is drawn once, in each language, and served to every
tablet that asks (web/sheet_pages.py); each still gets its own CSRF token and its own messages."""

import threading
import time

from scorekeeper.web.sheet_pages import DrawnPages
from tests.support.forms import CSRF_FIELD, csrf_token_in, page_text
from tests.support.live import SWAP, sheets_drawn
from tests.support.table import Table
from tests.support.threads import WAIT_SECONDS, joined


def test_every_tablet_gets_the_sheet_drawn_once_with_its_own_token_and_messages(app):
    player, other = Table(app.test_client()), Table(app.test_client())
    game_id = player.new_game(["Mag", "Alix"])
    other.client.get(f"/games/{game_id}")
    token = csrf_token_in(player.client.get("/").text)
    turn = {"seq": 0, "version": player.version(game_id), "dice": "66662", "csrf_token": token}
    with sheets_drawn(app) as drawn:
        answer = player.client.post(
            f"/games/{game_id}/entries", data={**turn, "target": "free:sixes"}, headers=SWAP
        )
        seen = other.client.get(f"/games/{game_id}", headers=SWAP)
        seen_again = other.client.get(f"/games/{game_id}")
    assert len(drawn) == 1
    assert answer.status_code == seen.status_code == seen_again.status_code == 200
    assert "À Alix de jouer" in page_text(answer) and "À Alix de jouer" in page_text(seen)
    # The player's tablet says what was written; the other one shows the sheet alone.
    assert "Mag marque 24 en Six." in page_text(answer)
    assert "Mag marque 24 en Six." not in page_text(seen)
    # Each page carries its own device's token (in the header's form and the sheet's).
    mine, theirs = set(CSRF_FIELD.findall(answer.text)), set(CSRF_FIELD.findall(seen.text))
    assert len(mine) == len(theirs) == 1 and mine != theirs
    assert "slot" not in seen.text
    # That token works: the other tablet writes the next turn from the page it was served.
    response = other.client.post(
        f"/games/{game_id}/entries",
        data={
            "seq": 1,
            "version": other.version(game_id),
            "dice": "11123",
            "target": "free:ones",
            "csrf_token": theirs.pop(),
        },
    )
    assert response.status_code == 303


def test_a_new_version_another_language_or_dice_typed_draw_the_sheet_again(app):
    table = Table(app.test_client())
    game_id = table.new_game(["Mag", "Alix"])
    with sheets_drawn(app) as drawn:
        table.client.get(f"/games/{game_id}")
        table.client.get(f"/games/{game_id}")
        english = table.client.get(f"/games/{game_id}", headers={"Accept-Language": "en"})
        table.play(game_id, 0, "66662", "free:sixes")
        table.client.get(f"/games/{game_id}")
    assert len(drawn) == 3
    assert "Mag's turn" in page_text(english)
    # Dice typed make a page of this device's own, never kept.
    with sheets_drawn(app) as drawn:
        typed = table.client.get(f"/games/{game_id}?dice=11123")
        table.client.get(f"/games/{game_id}?dice=11123")
    assert len(drawn) == 2 and 'value="11123"' in typed.text


def test_requests_asking_for_a_page_being_drawn_wait_for_that_drawing():
    pages = DrawnPages()
    drawing, release = threading.Event(), threading.Event()
    draws = []

    def draw():
        draws.append(threading.current_thread().name)
        drawing.set()
        assert release.wait(WAIT_SECONDS)
        return "<main>the sheet</main>"

    got = []
    first = threading.Thread(target=lambda: got.append(pages.get("key", draw)), name="turn")
    first.start()
    assert drawing.wait(WAIT_SECONDS)
    others = [
        threading.Thread(target=lambda: got.append(pages.get("key", draw)), name=f"stream {n}")
        for n in range(3)
    ]
    for thread in others:
        thread.start()
    # Time for the others to ask while the first draws: one drawing as well would be seen.
    deadline = time.monotonic() + 0.5
    while time.monotonic() < deadline and len(draws) == 1:
        time.sleep(0.01)
    release.set()
    joined([first, *others])
    assert draws == ["turn"] and got == ["<main>the sheet</main>"] * 4


def test_a_drawing_that_failed_is_done_again_by_a_request_that_waited():
    pages = DrawnPages()
    drawing, release = threading.Event(), threading.Event()

    def fail():
        drawing.set()
        assert release.wait(WAIT_SECONDS)
        raise RuntimeError("the database went away")

    failed, got = [], []

    def first():
        try:
            pages.get("key", fail)
        except RuntimeError:
            failed.append(True)

    thread = threading.Thread(target=first)
    thread.start()
    assert drawing.wait(WAIT_SECONDS)
    waiting = threading.Thread(target=lambda: got.append(pages.get("key", lambda: "drawn")))
    waiting.start()
    release.set()
    joined([thread, waiting])
    assert failed == [True] and got == ["drawn"]


def test_only_the_latest_pages_are_kept():
    pages = DrawnPages(size=2)
    draws = []

    def draw(key):
        draws.append(key)
        return f"<main>{key}</main>"

    for key in ("a", "b", "a", "c"):  # a, used again, is kept before b
        pages.get(key, lambda key=key: draw(key))
    assert pages.kept("b") is None
    assert pages.kept("a") == "<main>a</main>" and pages.kept("c") == "<main>c</main>"
    assert draws == ["a", "b", "c"]
