"""The Menu on every page: the hall of fame, the review, an error page lead back as the
sheet does, without the logo being the only way home."""

import re

import pytest

from scorekeeper.web.language import COOKIE
from tests.support.crawl import crawl_urls

# The menu's disclosure, and the app's pages it leads to, on an HTML page.
MENU = re.compile(r'<details class="head-menu">\s*<summary class="btn">(\w+)<.*?</details>', re.S)
PAGES = ["/", "/games/new", "/print", "/hall-of-fame"]


@pytest.mark.parametrize(("language", "name"), [("fr", "Menu"), ("en", "Menu")])
def test_every_page_has_the_menu(app, table, seeded, language, name):
    table.client.set_cookie(COOKIE, language)
    pages = []
    for url in crawl_urls(app, seeded):
        response = table.client.get(url)
        if response.mimetype != "text/html":
            continue  # a PDF, a card, a download
        html = response.get_data(as_text=True)
        if "<html" not in html or response.status_code in range(300, 400):
            continue
        menu = MENU.search(html)
        assert menu and menu.group(1) == name, url
        links = re.findall(r'<a class="btn" href="([^"]+)"', menu.group(0))
        assert [link for link in links if link in PAGES] == PAGES, url
        pages.append(url)
    # Every kind of page: home, sheets, reviews, players, the hall of fame, an error page.
    assert len(pages) >= 35
    assert "/hall-of-fame" in pages and "/nowhere" in pages


def test_the_menu_marks_the_page_it_is_on(client):
    html = client.get("/hall-of-fame").get_data(as_text=True)
    assert re.findall(r'<a class="btn" href="([^"]+)" aria-current="page"', html) == [
        "/hall-of-fame"
    ]
