"""« Partager » on a finished game's ranking: the result card through the tablet's share
sheet where the browser shares files (Web Share), else downloaded, in one tap."""

from tests.browser.games import finished_game

# A share sheet that keeps what it was given: headless Chromium has none of its own.
SHARE_SHEET = """
navigator.canShare = (data) => Boolean(data.files && data.files.length);
navigator.share = async (data) => {
  const file = data.files[0];
  window.shared = { name: file.name, type: file.type, size: file.size, title: data.title };
};
"""


def test_partager_shares_the_card_or_downloads_it(open_page, seed):
    game_id = finished_game(seed, 2)
    page = open_page(f"/games/{game_id}/ranking")
    share = page.get_by_role("link", name="Partager")

    # No Web Share in this browser: the tap downloads the card.
    with page.expect_download() as download:
        share.click()
    assert download.value.suggested_filename == f"yams-partie-{game_id}.png"

    page.add_init_script(SHARE_SHEET)
    page.reload()
    page.get_by_role("link", name="Partager").click()
    page.wait_for_function("() => window.shared !== undefined")
    shared = page.evaluate("window.shared")
    assert shared["name"] == f"yams-partie-{game_id}.png"
    assert shared["type"] == "image/png" and shared["size"] > 10_000
    assert shared["title"] == f"Partie n° {game_id}"
