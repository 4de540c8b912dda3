"""Households of a hosted server, made through its forms as a family makes them."""

from tests.support.apps import PASSPHRASE
from tests.support.forms import csrf_token


def family(app, name="Les Martin", lang="fr"):
    """A device of a new household, in ``lang``, that may import (its PIN typed)."""
    client = app.test_client()
    client.set_cookie("lang", lang)
    response = client.post(
        "/household/new",
        data={
            "name": name,
            "passphrase": PASSPHRASE,
            "csrf_token": csrf_token(client, "/household/new"),
        },
    )
    assert response.status_code == 303
    response = client.post(
        "/household-pin",
        data={
            "csrf_token": csrf_token(client),
            "household_pin": PASSPHRASE,
            "household_next": "/import-export",
        },
    )
    assert response.status_code == 303
    return client


def new_game(client, name="Mag"):
    """A classique game of one player, started through the new-game form."""
    return client.post(
        "/games/new",
        data={"names-0": name, "preset": "classique", "csrf_token": csrf_token(client)},
    )
