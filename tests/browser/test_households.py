"""Hosted mode in Chromium: a family creates its household, a second tablet joins by the
link of the join QR code, the two see the same game, and a removed tablet is signed out."""

import re

import pytest
from playwright.sync_api import expect

from scorekeeper.app import create_app
from scorekeeper.rules import BOX_LABELS
from scorekeeper.web.passphrases import WAIT_SECONDS
from scorekeeper.web.store import STORE_EXTENSION
from tests.browser.tablets import PAGE_WAIT_MS, TABLETS, served_in_thread
from tests.browser.taps import tap_dice, write_box
from tests.support.databases import give_database, take_database

PASSPHRASE = "la phrase de la maison"
# A household's passphrase is hashed in its turn, which on a busy machine may come late: its
# page comes within the server's own wait for that turn, after which it would answer 503.
HASHED_PAGE_TIMEOUT_MS = (WAIT_SECONDS + 5) * 1000


@pytest.fixture
def hosted_server(tmp_path):
    database_url = take_database(tmp_path)
    app = create_app(
        {"DATABASE_URL": database_url, "HOUSEHOLDS": True, "EXTERNAL_URL": "http://127.0.0.1"},
        instance_path=tmp_path,
    )
    with served_in_thread(app) as base_url:
        # The links name the port the server was given.
        app.config["EXTERNAL_URL"] = base_url
        yield base_url
    app.extensions[STORE_EXTENSION].dispose()
    give_database(database_url)


def _tablet(browser, server, size):
    width, height = size
    context = browser.new_context(
        viewport={"width": width, "height": height}, locale="fr-FR", has_touch=True, base_url=server
    )
    context.set_default_timeout(PAGE_WAIT_MS)
    return context, context.new_page()


def test_create_join_by_link_play_and_remove_a_tablet(browser, hosted_server, artifacts):
    first_context, first = _tablet(browser, hosted_server, TABLETS["landscape"])
    second_context, second = _tablet(browser, hosted_server, TABLETS["portrait"])
    try:
        first.goto("/")
        expect(first).to_have_title(re.compile("^Rejoindre une maison"))
        first.get_by_role("link", name="Créer une maison").click()
        first.get_by_label("Nom de la maison").fill("Les Martin")
        first.get_by_label("Phrase secrète").fill(PASSPHRASE)
        first.get_by_role("button", name="Créer la maison").click(timeout=HASHED_PAGE_TIMEOUT_MS)
        expect(first.locator(".household-name")).to_have_text("Les Martin")

        first.locator(".household-name").click()
        first.get_by_role("button", name="Ajouter un appareil").click()
        expect(first.locator(".join-qr svg")).to_be_visible()
        first.screenshot(path=artifacts / "household-join-link.png")
        link = first.locator(".join-link").get_attribute("href")

        second.goto(link)
        second.get_by_role("button", name="Rejoindre « Les Martin »").click()
        expect(second.locator(".household-name")).to_have_text("Les Martin")

        first.goto("/")
        first.get_by_role("link", name="Nouvelle partie").click()
        first.get_by_role("textbox", name="Joueur 1", exact=True).fill("Mag")
        first.get_by_role("button", name="Commencer la partie").click()
        expect(first).to_have_title(re.compile("^À Mag de jouer"))
        tap_dice(first, "66666")
        write_box(first, BOX_LABELS["yams"])
        game_url = first.url

        second.goto(game_url)
        expect(second.locator('#sheet-live td.filled[data-box="free:yams"]')).to_have_text("50")

        second.goto("/household/devices")
        expect(second.locator("tbody tr")).to_have_count(2)
        second.screenshot(path=artifacts / "household-devices.png")
        # The first tablet is the one not marked as this device.
        second.locator("tbody tr", has_not_text="cet appareil").get_by_role(
            "button", name="Retirer"
        ).click()
        expect(second.locator("tbody tr")).to_have_count(1)

        first.goto("/")
        expect(first).to_have_title(re.compile("^Rejoindre une maison"))
    finally:
        first_context.close()
        second_context.close()
