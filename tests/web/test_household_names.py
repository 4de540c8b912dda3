"""Household names: the same name ignoring case, width and spaces, or a look-alike (Unicode
TR39 skeleton), is taken; invisible characters and empty names are refused with a message.
Through sign-up on both engines (the `hosted` fixture), and migration 0009's rewrite of the
names already kept."""

import html

import pytest
from alembic import command
from sqlalchemy import select, text

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.store.household_names import (
    HouseholdNameTaken,
    household_key,
    household_skeleton,
)
from scorekeeper.store.households import count_households, create_household, find_household
from scorekeeper.store.migrations import alembic_config
from scorekeeper.store.schema import households
from tests.support.apps import PASSPHRASE
from tests.support.forms import csrf_token_in

TAKEN = "Ce nom est déjà pris, ou ressemble trop à celui d'une autre maison"
INVISIBLE = "Le nom contient un caractère invisible"


def _text(response) -> str:
    return html.unescape(response.get_data(as_text=True))


def _signup(client, name: str, language: str = "fr", address: str = "127.0.0.1"):
    headers = {"Accept-Language": language}
    page = client.get("/household/new", headers=headers).get_data(as_text=True)
    token = csrf_token_in(page)
    return client.post(
        "/household/new",
        headers=headers,
        environ_base={"REMOTE_ADDR": address},
        data={"name": name, "passphrase": PASSPHRASE, "csrf_token": token},
    )


@pytest.mark.parametrize(
    "name",
    [
        "LES MARTIN",
        "les  martin",
        " Les Martin ",
        "Ｌｅｓ Ｍａｒｔｉｎ",  # the same name
        "Les Mаrtin",
        "Lеs Martin",
        "Les Ⅿartin",  # Cyrillic а, е; Roman numeral Ⅿ
        "Les rnartin",  # r n for m
    ],
)
def test_the_same_name_or_a_look_alike_is_taken(hosted, name):
    assert _signup(hosted.test_client(), "Les Martin").status_code == 303
    response = _signup(hosted.test_client(), name)
    assert response.status_code == 422
    assert TAKEN in _text(response)
    assert count_households(hosted.extensions[STORE_EXTENSION]) == 2  # home + Les Martin


def test_a_capital_i_for_an_l_is_a_look_alike(hosted):
    assert _signup(hosted.test_client(), "Famille Alpha").status_code == 303
    assert TAKEN in _text(_signup(hosted.test_client(), "Famille AIpha"))
    assert TAKEN in _text(_signup(hosted.test_client(), "fаmille alpha"))


@pytest.mark.parametrize(
    "name",
    [
        "Les Martin\u200b",
        "Les\u200dMartin",
        "\u202eLes Martin",
        "Les\u2066Martin",
        "Les\tMartin",
        "Les\nMartin",
        "Les Martin\x07",
        "\u3164",
        "Les\u2028Martin",
        "\ue000",
    ],
)
def test_invisible_characters_are_refused_with_a_message(hosted, name):
    response = _signup(hosted.test_client(), name)
    assert response.status_code == 422
    assert INVISIBLE in _text(response)
    english = _signup(hosted.test_client(), name, language="en")
    assert "The name holds an invisible character" in _text(english)
    assert count_households(hosted.extensions[STORE_EXTENSION]) == 1


def test_a_name_empty_once_trimmed_is_refused(hosted):
    for name in ("   ", "\u00a0\u3000"):
        response = _signup(hosted.test_client(), name)
        assert response.status_code == 422
        assert "Tapez un nom pour la maison." in _text(response)


def test_names_that_only_look_unusual_are_kept_as_typed(hosted):
    store = hosted.extensions[STORE_EXTENSION]
    names = ("Les Martin ❤️", "Famille Müller", "Les Dupont-Durand", "山田家", "Ομάδα")
    for number, name in enumerate(names):
        # Each family from its own home: one address may create only a few households.
        response = _signup(hosted.test_client(), name, address=f"10.0.0.{number}")
        assert response.status_code == 303, name
        assert find_household(store, name).name == name
    assert _signup(hosted.test_client(), "Famille  Muller").status_code == 303
    assert find_household(store, "famille muller").name == "Famille Muller"


def test_the_database_decides_between_two_look_alikes_at_once(store):
    """The page checks the name before hashing the passphrase; the unique keys decide."""
    create_household(store, "Famille Alpha", "hash")
    with pytest.raises(HouseholdNameTaken):
        create_household(store, "Fаmille Alpha", "hash")
    with pytest.raises(HouseholdNameTaken):
        create_household(store, "FAMILLE ALPHA", "hash")


def test_migration_0009_gives_kept_names_their_keys_the_older_first(store):
    cfg = alembic_config()
    with store.engine.begin() as connection:
        cfg.attributes["connection"] = connection
        command.downgrade(cfg, "0008")
        # Names as the previous rule kept them: trimmed and case folded only.
        for name in ("Les Martin", "les  martin", "Famille Alpha", "Fаmille Alpha", "Zoé"):
            connection.execute(
                text(
                    "INSERT INTO households (name, name_key, created_at) "
                    "VALUES (:name, :key, CURRENT_TIMESTAMP)"
                ),
                {"name": name, "key": name.strip().casefold()},
            )
        command.upgrade(cfg, "head")
    with store.engine.connect() as connection:
        rows = {
            row.name: row
            for row in connection.execute(select(households).where(households.c.name != "Maison"))
        }
    first, same = rows["Les Martin"], rows["les  martin"]
    assert (first.name_key, first.name_skeleton) == (
        household_key("Les Martin"),
        household_skeleton("Les Martin"),
    )
    assert (same.name_key, same.name_skeleton) == (None, None)
    assert rows["Famille Alpha"].name_skeleton == household_skeleton("Famille Alpha")
    assert rows["Fаmille Alpha"].name_skeleton is None
    assert rows["Fаmille Alpha"].name_key == household_key("Fаmille Alpha")
    assert rows["Zoé"].name_key == "zoé" and rows["Zoé"].name_skeleton is not None
    assert find_household(store, "LES MARTIN").id == first.id
