"""Cookies over HTTPS: when EXTERNAL_URL is https, the session's cookie (which holds the CSRF
token) and the device's remember-me cookie are Secure, so that they never travel in clear;
over http (a home server, the local stack on loopback) they could not be, and are not."""

import pytest

from tests.support.apps import PASSPHRASE, app_on
from tests.support.forms import csrf_token


def _signed_up_cookies(app, base_url: str) -> dict[str, str]:
    """Each cookie a device gets on signing up, by name: its Set-Cookie header."""
    client = app.test_client()
    token = csrf_token(client, "/household/new", base_url=base_url)
    response = client.post(
        "/household/new",
        base_url=base_url,
        # Over HTTPS, Flask-WTF also wants the form to come from a page of the same site.
        headers={"Referer": f"{base_url}/household/new"},
        data={"name": "Les Martin", "passphrase": PASSPHRASE, "csrf_token": token},
    )
    assert response.status_code == 303
    return {header.split("=", 1)[0]: header for header in response.headers.getlist("Set-Cookie")}


@pytest.mark.parametrize("scheme", ["https", "http"])
def test_the_cookies_are_secure_exactly_when_the_external_url_is_https(
    instance_path, database_url, scheme
):
    settings = {"HOUSEHOLDS": True, "EXTERNAL_URL": f"{scheme}://localhost"}
    with app_on(instance_path, database_url, **settings) as app:
        assert app.config["SESSION_COOKIE_SECURE"] is (scheme == "https")
        assert app.config["REMEMBER_COOKIE_SECURE"] is (scheme == "https")
        cookies = _signed_up_cookies(app, f"{scheme}://localhost")
    assert {"session", "remember_token"} <= set(cookies)
    for name in ("session", "remember_token"):
        attributes = [part.strip().lower() for part in cookies[name].split(";")[1:]]
        assert ("secure" in attributes) is (scheme == "https"), cookies[name]
