"""The end of a game as the table sees it: the winner named on the sheet itself, with every
total, and the sheet's Total row, in view without a scroll at both tablet sizes and in both
languages; on a tablet that follows the game and on a spectator's page too."""

import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.games import BOXES, NAMES, finished_game
from tests.browser.tablets import TABLETS

# Where the pictures go when asked (SCOREKEEPER_PNG_DIR): to look at them, not checked.
PICTURES = os.environ.get("SCOREKEEPER_PNG_DIR")


def in_view(page, locator) -> bool:
    box = locator.bounding_box()
    size = page.viewport_size
    return (
        box is not None
        and box["y"] >= 0
        and box["x"] >= 0
        and box["y"] + box["height"] <= size["height"]
        and box["x"] + box["width"] <= size["width"]
    )


def picture(page, name):
    if PICTURES:
        Path(PICTURES).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(PICTURES) / f"{name}.png"))


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("size", ["landscape", "portrait"])
@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_finished_sheet_names_the_winner_in_view(open_page, seed, players, size, lang):
    game_id = finished_game(seed, players)
    state = seed.state(game_id)
    page = open_page(f"/games/{game_id}", size=TABLETS[size], lang=lang)
    winner = state.ranking()[0]
    panel = page.locator(".end-panel")
    picture(page, f"sheet-finished-{players}p-{size}-{lang}")
    headline = panel.locator(".winner")
    expect(headline).to_contain_text(winner.name)
    assert in_view(page, headline), f"winner's name out of view: {headline.bounding_box()}"
    first = panel.locator(".ranking li").first
    expect(first).to_contain_text(str(winner.total))
    assert in_view(page, first)
    total_row = page.locator(".sheet tr.total").last
    assert in_view(page, total_row), f"Total row out of view: {total_row.bounding_box()}"
    assert in_view(page, panel.locator("button[type=submit]"))  # Revanche, one tap
    assert in_view(page, panel.locator(f'a[href="/games/{game_id}/ranking"]'))


def test_a_tie_names_every_winner(open_page, seed):
    game_id = finished_game(seed, 2, tie=True)
    page = open_page(f"/games/{game_id}", size=TABLETS["landscape"])
    headline = page.locator(".end-panel .winner")
    expect(headline).to_contain_text("Papa")
    expect(headline).to_contain_text("Maman")
    expect(page.locator(".end-panel .ranking .rank")).to_have_text(["1", "1"])


def test_the_last_turn_stays_on_the_sheet_on_every_tablet(open_page, seed):
    """The last box written on one tablet: it stays on the sheet, which shows the end; the
    tablet following the game and the spectator's page show it too, pushed."""
    turns = [(dice, f"free:{box}") for pair in zip(BOXES, BOXES, strict=True) for dice, box in pair]
    game_id = seed(NAMES[:2], turns[:-1])
    dice, target = turns[-1]
    player = open_page(f"/games/{game_id}?dice={dice}")
    follower = open_page(f"/games/{game_id}", size=TABLETS["portrait"])
    spectator = open_page(f"/games/{game_id}/watch", size=TABLETS["portrait"], lang="en")
    # The last box scores: one tap writes it.
    player.locator(f'button[name="target"][value="{target}"]').click()
    for page in (player, follower):
        expect(page.locator(".end-panel .winner")).to_contain_text("Papa")
        assert page.url.endswith(f"/games/{game_id}")
    expect(spectator.locator(".end-panel .winner")).to_contain_text("Papa")
    picture(spectator, "watch-finished-portrait-en")
