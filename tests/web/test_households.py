"""Hosted mode through the test client, CSRF on: sign-up, joining by passphrase or by link,
the limit on wrong passphrases, devices and their removal, spectator links, deleting a
household. Household mode (the default) is every other test of the suite."""

import html
import re
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.store.households import count_households, find_household
from scorekeeper.web.joining import MAX_PASSPHRASE_FAILURES
from tests.support.apps import HOSTED, PASSPHRASE, app_on
from tests.support.forms import csrf_token


def _post(client, form_page: str, path: str, data: dict):
    return client.post(path, data={**data, "csrf_token": csrf_token(client, form_page)})


def _signup(client, name="Les Martin", passphrase=PASSPHRASE):
    return _post(
        client, "/household/new", "/household/new", {"name": name, "passphrase": passphrase}
    )


def _join(client, name="Les Martin", passphrase=PASSPHRASE):
    return _post(
        client, "/household/join", "/household/join", {"name": name, "passphrase": passphrase}
    )


def test_a_device_that_has_not_joined_sees_only_the_join_page(hosted):
    client = hosted.test_client()
    for path in (
        "/",
        "/hall-of-fame",
        "/players",
        "/games/new",
        "/import-export",
        "/household/devices",
    ):
        response = client.get(path)
        assert response.status_code == 302, path
        assert response.headers["Location"].endswith("/household/join"), path
    assert client.post("/games/new").status_code in (400, 401)
    page = client.get("/household/join").get_data(as_text=True)
    assert "Rejoindre une maison" in page and "Créer une maison" in page


def test_signing_up_creates_the_household_and_joins_the_device(hosted):
    client = hosted.test_client()
    response = _signup(client)
    assert response.status_code == 303
    home = client.get("/").get_data(as_text=True)
    assert "Les Martin" in home
    found = find_household(hosted.extensions[STORE_EXTENSION], "les martin")
    assert found is not None and found.passphrase_hash.startswith("scrypt:")
    assert PASSPHRASE not in found.passphrase_hash
    cookie = client.get_cookie("remember_token")
    assert cookie is not None and cookie.http_only and cookie.same_site == "Lax"
    assert cookie.expires > datetime.now(UTC) + timedelta(days=300)


def test_a_taken_name_or_a_short_passphrase_is_refused_with_a_message(hosted):
    _signup(hosted.test_client())
    response = _signup(hosted.test_client(), name="LES MARTIN")
    assert response.status_code == 422
    assert "Ce nom est déjà pris" in response.get_data(as_text=True)
    response = _signup(hosted.test_client(), name="Autres", passphrase="court")
    assert response.status_code == 422
    assert "au moins 8 caractères" in response.get_data(as_text=True)
    assert count_households(hosted.extensions[STORE_EXTENSION]) == 2  # home + Les Martin


def test_sign_up_closed_by_config(instance_path, database_url):
    with app_on(instance_path, database_url, **HOSTED, HOUSEHOLD_SIGNUP=False) as app:
        client = app.test_client()
        assert client.get("/household/new").status_code == 404
        assert "Créer une maison" not in client.get("/household/join").get_data(as_text=True)


def test_joining_with_a_wrong_passphrase_or_name_says_the_same_and_is_limited(hosted):
    _signup(hosted.test_client())
    client = hosted.test_client()
    wrong_pass = _join(client, passphrase="not the one")
    wrong_name = _join(client, name="Nobody here")
    assert wrong_pass.status_code == wrong_name.status_code == 422
    message = "Ce nom et cette phrase secrète ne vont pas ensemble."
    assert message in wrong_pass.get_data(as_text=True)
    assert message in wrong_name.get_data(as_text=True)
    for _ in range(MAX_PASSPHRASE_FAILURES - 2):
        _join(client, passphrase="still wrong")
    # Now even the right passphrase waits, from the address that used up its tries.
    refused = _join(client)
    assert refused.status_code == 429
    assert "Trop d'essais" in html.unescape(refused.get_data(as_text=True))
    assert client.get("/").status_code == 302


def test_joining_with_the_passphrase(hosted):
    _signup(hosted.test_client())
    client = hosted.test_client()
    assert _join(client, name="  les MARTIN ").status_code == 303
    assert client.get("/").status_code == 200


def _join_link(client) -> str:
    page = _post(client, "/household/devices", "/household/join-link", {}).get_data(as_text=True)
    assert "<svg" in page
    return re.search(r'class="join-link" href="([^"]+)"', page).group(1)


def test_a_join_link_joins_one_device_once_by_its_form(hosted):
    first = hosted.test_client()
    _signup(first)
    link = _join_link(first)
    second = hosted.test_client()
    page = second.get(link)
    assert page.status_code == 200
    assert "Ce lien fait entrer cet appareil dans la maison « Les Martin »" in page.get_data(
        as_text=True
    )
    assert second.get("/").status_code == 302  # opening the link joined nothing
    response = _post(second, link, link, {})
    assert response.status_code == 303
    assert second.get("/").status_code == 200
    third = hosted.test_client()
    assert third.get(link).status_code == 404
    assert third.get("/").status_code == 302
    devices = first.get("/household/devices").get_data(as_text=True)
    assert devices.count('name="device"') == 2


def _signed_in_as(client) -> tuple:
    """The device a client is signed in as: its remember-me cookie and its session's user."""
    with client.session_transaction() as session:
        user = session.get("_user_id")
    return client.get_cookie("remember_token").value, user


def test_opening_a_join_link_on_a_joined_device_moves_nothing(hosted):
    """Login CSRF: a page that makes a family's tablet open another household's join link
    used to move the tablet there, its next game with it, without a word."""
    attacker = hosted.test_client()
    _signup(attacker, name="Les Autres")
    link = _join_link(attacker)
    victim = hosted.test_client()
    _signup(victim)
    before = _signed_in_as(victim)
    for _ in range(2):  # a link previewer, then the tablet itself
        page = victim.get(link)
        assert page.status_code == 200
        text = page.get_data(as_text=True)
        assert "Cet appareil est dans la maison « Les Martin »" in text
        assert "il quitte « Les Martin »" in text
    assert _signed_in_as(victim) == before
    assert "Les Martin" in victim.get("/").get_data(as_text=True)
    # Without the device's CSRF token (a form posted from another site), nothing moves.
    assert victim.post(link).status_code == 400
    assert victim.post(link, data={"csrf_token": "forged"}).status_code == 400
    assert "Les Martin" in victim.get("/").get_data(as_text=True)
    # The link was not used up on the way: with its form, the device moves.
    assert _post(victim, link, link, {}).status_code == 303
    home = victim.get("/").get_data(as_text=True)
    assert "Les Autres" in home and "Les Martin" not in home
    # It is no longer one of the devices of the household it left.
    owner = hosted.test_client()
    _join(owner)
    assert owner.get("/household/devices").get_data(as_text=True).count('name="device"') == 1


def test_a_join_link_of_the_household_the_device_is_in_stays_unused(hosted):
    first = hosted.test_client()
    _signup(first)
    link = _join_link(first)
    page = first.get(link).get_data(as_text=True)
    assert "Cet appareil est déjà dans la maison « Les Martin »" in page
    assert f'action="{urlsplit(link).path}"' not in page  # no form to use it
    assert _post(first, link, link, {}).status_code == 200
    second = hosted.test_client()
    assert _post(second, link, link, {}).status_code == 303
    assert second.get("/").status_code == 200


def test_removing_a_device_signs_it_out_at_its_next_request(hosted):
    first = hosted.test_client()
    _signup(first)
    second = hosted.test_client()
    _join(second)
    page = first.get("/household/devices").get_data(as_text=True)
    ids = re.findall(r'name="device" value="(\d+)"', page)
    assert len(ids) == 2
    # The latest seen first: the second device joined last.
    response = _post(first, "/household/devices", "/household/devices/remove", {"device": ids[0]})
    assert response.status_code == 303
    assert second.get("/").status_code == 302
    assert first.get("/").status_code == 200


def test_a_spectator_link_shows_the_game_until_revoked(hosted):
    client = hosted.test_client()
    _signup(client)
    response = _post(client, "/games/new", "/games/new", {"names-0": "Zoé", "preset": "classique"})
    game_id = int(response.headers["Location"].rsplit("/", 1)[1])
    page_path = f"/games/{game_id}/spectator-link"
    page = _post(client, page_path, page_path, {}).get_data(as_text=True)
    assert "<svg" not in page  # a redirect first
    page = client.get(page_path).get_data(as_text=True)
    link = re.search(r'class="spectator-link" href="([^"]+)"', page).group(1)
    screen = hosted.test_client()
    watched = screen.get(link)
    assert watched.status_code == 200 and "Zoé" in watched.get_data(as_text=True)
    assert screen.get(f"{link}/version").json["seq"] == 0
    assert '"seq": 0' in screen.get(f"{link}/events").get_data(as_text=True)
    assert screen.get(f"/games/{game_id}").status_code == 302
    # Only the link's hash is kept: the page showed it once, then says a link is open.
    again = client.get(page_path).get_data(as_text=True)
    assert 'class="spectator-link"' not in again and "<svg" not in again
    assert "Un lien de spectateur est ouvert pour cette partie" in html.unescape(again)
    assert screen.get(link).status_code == 200
    # A new link replaces it: shown once in its turn, and the old one opens nothing.
    _post(client, page_path, page_path, {})
    page = client.get(page_path).get_data(as_text=True)
    new_link = re.search(r'class="spectator-link" href="([^"]+)"', page).group(1)
    assert new_link != link
    assert screen.get(link).status_code == 404
    assert screen.get(new_link).status_code == 200
    _post(client, page_path, page_path, {"revoke": "1"})
    assert screen.get(new_link).status_code == 404
    assert screen.get(f"{new_link}/events").status_code == 404
    assert "Créer le lien" in client.get(page_path).get_data(as_text=True)


def test_deleting_the_household_after_its_pin_and_a_confirmation(hosted):
    client = hosted.test_client()
    _signup(client)
    _post(client, "/games/new", "/games/new", {"names-0": "Zoé", "preset": "classique"})
    other = hosted.test_client()
    _signup(other, name="Les Autres")
    page = client.get("/household/delete").get_data(as_text=True)
    assert 'name="household_pin"' in page
    token = csrf_token(client, "/games/new")
    response = client.post(
        "/household-pin",
        data={"csrf_token": token, "household_pin": "wrong", "household_next": "/household/delete"},
    )
    assert response.status_code == 403
    response = client.post(
        "/household-pin",
        data={
            "csrf_token": token,
            "household_pin": PASSPHRASE,
            "household_next": "/household/delete",
        },
    )
    assert response.status_code == 303
    assert "Effacer la maison et tout" in client.get("/household/delete").get_data(as_text=True)
    response = _post(client, "/household/delete", "/household/delete", {})
    assert response.status_code == 303
    store = hosted.extensions[STORE_EXTENSION]
    assert find_household(store, "Les Martin") is None
    assert find_household(store, "Les Autres") is not None
    assert client.get("/").status_code == 302
    assert other.get("/").status_code == 200


def test_wrong_passphrases_from_one_address_are_limited_whatever_the_names(hosted):
    _signup(hosted.test_client())
    client = hosted.test_client()
    for number in range(MAX_PASSPHRASE_FAILURES):
        assert _join(client, name=f"Maison {number}").status_code == 422
    refused = _join(client)
    assert refused.status_code == 429
    other_address = hosted.test_client()
    response = other_address.post(
        "/household/join",
        environ_base={"REMOTE_ADDR": "10.0.0.9"},
        data={
            "name": "Les Martin",
            "passphrase": PASSPHRASE,
            "csrf_token": csrf_token(other_address, "/household/join"),
        },
    )
    assert response.status_code == 303
