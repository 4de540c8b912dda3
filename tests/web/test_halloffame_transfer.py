"""Export and import in the browser: download, upload with CSRF, all or nothing."""

import json

import pytest

from scorekeeper.app import STORE_EXTENSION, create_app
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.exports import export_documents
from tests.support.forms import csrf_token, page, page_text, upload
from tests.support.games import every_row, hall_of_fame, solo_document, some_games


@pytest.fixture
def store(app):
    return app.extensions[STORE_EXTENSION]


def test_the_page_offers_the_download_and_the_upload(client):
    html = page(client, "/import-export")
    assert 'href="/import-export/games.json"' in html
    assert 'enctype="multipart/form-data"' in html and 'name="csrf_token"' in html


def test_download_every_game(client, store):
    some_games(store)
    response = client.get("/import-export/games.json")
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert response.headers["Content-Disposition"].startswith('attachment; filename="yams-parties-')
    exported = list(export_documents(store, household=HOME_HOUSEHOLD))
    assert json.loads(response.get_data(as_text=True)) == exported


def test_download_one_game(client, store):
    some_games(store)
    response = client.get("/games/3/game.json")
    assert response.headers["Content-Disposition"] == 'attachment; filename="yams-partie-3.json"'
    assert [doc["id"] for doc in json.loads(response.get_data(as_text=True))] == [3]


def test_upload_imports_every_game_then_shows_the_hall_of_fame(client, store):
    content = json.dumps([solo_document("Mag"), solo_document("Alix", bonus=False)])

    response = upload(client, content.encode())

    assert response.status_code == 303 and response.headers["Location"] == "/hall-of-fame"
    html = page(client, "/hall-of-fame")
    assert "2 parties importées." in html and "Mag" in html and "Alix" in html


def test_download_then_upload_elsewhere_gives_the_same_hall_of_fame(
    client, store, tmp_path, another_database
):
    some_games(store)
    exported = client.get("/import-export/games.json").get_data()
    folder = tmp_path / "elsewhere"
    elsewhere = create_app(
        {"TESTING": True, "DATABASE_URL": another_database(folder)}, instance_path=folder
    )
    try:
        assert upload(elsewhere.test_client(), exported).status_code == 303
        assert hall_of_fame(elsewhere.extensions[STORE_EXTENSION]) == hall_of_fame(store)
    finally:
        elsewhere.extensions[STORE_EXTENSION].dispose()


@pytest.mark.parametrize(
    ("content", "status", "messages"),
    [
        (
            json.dumps([solo_document("Mag"), {**solo_document("Alix"), "status": "in_progress"}]),
            422,
            ["Rien n'a été importé.", "games.json, partie 2 : « status » dit in_progress"],
        ),
        (
            "Mag 245, Alix 230",
            422,
            ["games.json : Ce fichier n'est pas du JSON valide (ligne 1, colonne 1)."],
        ),
        ("[]", 422, ["Ce fichier ne contient aucune partie."]),
    ],
)
def test_a_bad_upload_says_why_and_changes_nothing(client, store, content, status, messages):
    some_games(store)
    before = every_row(store)
    response = upload(client, content.encode())
    assert response.status_code == status
    for message in messages:
        assert message in page_text(response)
    assert every_row(store) == before


def test_an_upload_without_a_file_or_a_token_changes_nothing(client, store):
    before = every_row(store)
    no_file = client.post(
        "/import-export/import",
        data={"csrf_token": csrf_token(client)},
        content_type="multipart/form-data",
    )
    assert no_file.status_code == 400
    assert "Choisissez un fichier à importer." in page_text(no_file)
    assert upload(client, json.dumps(solo_document("Mag")).encode(), token=False).status_code == 400
    assert every_row(store) == before


def test_an_upload_too_large_gets_a_french_413(app, client, store):
    app.config["IMPORT_MAX_BYTES"] = 1024 * 1024
    before = every_row(store)
    response = upload(client, b" " * (1024 * 1024 + 1))
    assert response.status_code == 413
    assert "Ce fichier dépasse 1 Mo" in page_text(response)
    assert every_row(store) == before


def test_an_upload_larger_than_other_requests_is_accepted(app, client, store):
    app.config["MAX_CONTENT_LENGTH"] = 4096
    documents = [solo_document(f"Joueur {n}") for n in range(8)]
    content = json.dumps(documents, indent=2).encode()
    assert len(content) > 4096
    assert upload(client, content).status_code == 303
    assert len(list(export_documents(store, household=HOME_HOUSEHOLD))) == 8


def test_the_import_asks_for_the_household_pin_when_there_is_one(app, client, store):
    app.config["HOUSEHOLD_PIN"] = "2580"
    before = every_row(store)
    response = upload(client, json.dumps(solo_document("Mag")).encode())
    assert response.status_code == 403 and "Code de la maison" in page_text(response)
    assert every_row(store) == before
