"""Hosted, the links a household hands to another device (join, spectator, their QR codes)
are built from EXTERNAL_URL, never from a request's Host header, and a request for a host
the server does not serve is a 400. Both engines (the `database_url` fixture)."""

import re

import pytest

from scorekeeper.app import create_app
from scorekeeper.config import SettingError
from scorekeeper.web import addresses
from tests.support.apps import PASSPHRASE, app_on
from tests.support.forms import csrf_token

SERVED = "https://yams.example"


@pytest.fixture
def served(instance_path, database_url):
    with app_on(instance_path, database_url, HOUSEHOLDS=True, EXTERNAL_URL=SERVED) as app:
        yield app


def _post(client, form_page: str, path: str, data: dict):
    # Over HTTPS, Flask-WTF also wants the form's page as the referrer.
    return client.post(
        path,
        base_url=SERVED,
        headers={"Referer": f"{SERVED}{form_page}"},
        data={**data, "csrf_token": csrf_token(client, form_page, base_url=SERVED)},
    )


@pytest.mark.parametrize(
    "url",
    [
        None,
        "yams.example",
        "ftp://yams.example",
        "https://yams.example/yams",
        "https://yams.example:99999",
        "https://user:secret@yams.example",
        "https://",
    ],
)
def test_a_hosted_server_needs_an_external_url_said_at_start(instance_path, database_url, url):
    with pytest.raises(SettingError, match="EXTERNAL_URL"):
        create_app(
            {
                "TESTING": True,
                "DATABASE_URL": database_url,
                "HOUSEHOLDS": True,
                "EXTERNAL_URL": url,
            },
            instance_path=instance_path,
        )


def test_links_and_their_qr_codes_name_the_external_url(served):
    addresses._kept_qr_code.cache_clear()
    client = served.test_client()
    assert (
        _post(
            client,
            "/household/new",
            "/household/new",
            {"name": "Les Martin", "passphrase": PASSPHRASE},
        ).status_code
        == 303
    )
    page = _post(client, "/household/devices", "/household/join-link", {}).get_data(as_text=True)
    link = re.search(r'class="join-link" href="([^"]+)"', page).group(1)
    assert link.startswith(f"{SERVED}/join/")
    assert re.search(rf"<title>[^<]*{re.escape(link)}</title>", page), "the QR code's address"
    game = _post(client, "/games/new", "/games/new", {"names-0": "Zoé", "preset": "classique"})
    game_id = int(game.headers["Location"].rsplit("/", 1)[1])
    sharing = f"/games/{game_id}/spectator-link"
    _post(client, sharing, sharing, {})
    page = client.get(sharing, base_url=SERVED).get_data(as_text=True)
    assert re.search(rf'class="spectator-link" href="{re.escape(SERVED)}/watch/', page)
    # The links are secrets: their codes are drawn, never kept.
    assert addresses._kept_qr_code.cache_info().currsize == 0


@pytest.mark.parametrize("host", ["evil.example", "yams.example.evil.example", "localhost"])
def test_a_request_for_another_host_is_a_400(served, host):
    client = served.test_client()
    for method, path in (
        ("GET", "/"),
        ("GET", "/household/join"),
        ("POST", "/household/new"),
        ("GET", "/watch/anything"),
        ("GET", "/static/css/app.css"),
    ):
        response = client.open(path, method=method, base_url=f"https://{host}")
        assert response.status_code == 400, (method, path, response.status_code)
        assert "Host" in response.get_data(as_text=True)
    assert client.get("/household/join", base_url=SERVED).status_code == 200


def test_at_home_any_host_is_served_and_links_name_it(client, table):
    game_id = table.new_game(["Mag"])
    sharing, lan = f"/games/{game_id}/spectator-link", "http://192.168.1.20:8000"
    client.post(
        sharing, base_url=lan, data={"csrf_token": csrf_token(client, sharing, base_url=lan)}
    )
    page = client.get(sharing, base_url=lan).get_data(as_text=True)
    assert 'class="spectator-link" href="http://192.168.1.20:8000/watch/' in page
