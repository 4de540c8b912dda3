"""`scorekeeper export` and `scorekeeper import`, through the command group."""

import json
import random

import pytest
from click.testing import CliRunner

from scorekeeper.app import DATABASE_URL_ENV
from scorekeeper.cli import main
from scorekeeper.rules import Rules
from scorekeeper.store import Store
from testing.samples import random_document
from tests.support.games import every_row, hall_of_fame, solo_document


def run(*args, database_url=None):
    env = {DATABASE_URL_ENV: database_url} if database_url else None
    return CliRunner().invoke(main, [str(arg) for arg in args], env=env)


def json_lines(result):
    return [json.loads(line) for line in result.stdout.splitlines()]


def write(path, data):
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture
def games_dir(tmp_path):
    rng = random.Random(4)
    folder = tmp_path / "files"
    folder.mkdir()
    triple = random_document(Rules.from_dict({"preset": "triple"}), ["Mag", "Alix"], rng)
    write(folder / "triple.json", {**triple, "finished_at": "2024-02-03T21:00:00+01:00"})
    write(
        folder / "two.json",
        [solo_document("Zoé", finished_at="2024-01-01"), solo_document("Mag", bonus=False)],
    )
    return folder


def open_store(database_url):
    store = Store(database_url)
    store.migrate()
    return store


def test_import_prints_where_each_game_went_then_export_prints_them(tmp_path, games_dir):
    instance = tmp_path / "instance"
    result = run(
        "import", "--instance", instance, games_dir / "triple.json", games_dir / "two.json"
    )

    assert result.exit_code == 0, result.output
    assert json_lines(result) == [
        {"file": str(games_dir / "triple.json"), "game": 1},
        {"file": str(games_dir / "two.json"), "document": 1, "game": 2},
        {"file": str(games_dir / "two.json"), "document": 2, "game": 3},
    ]
    result = run("export", "--instance", instance)
    assert result.exit_code == 0
    exported = json.loads(result.stdout)
    assert [(doc["id"], doc["status"], doc["players"]) for doc in exported] == [
        (1, "finished", ["Mag", "Alix"]),
        (2, "finished", ["Zoé"]),
        (3, "finished", ["Mag"]),
    ]
    assert exported[0]["finished_at"] == "2024-02-03T20:00:00+00:00"
    assert exported[1]["created_at"] == "2024-01-01T00:00:00+00:00"


def test_export_then_import_into_an_empty_instance_gives_the_same_hall_of_fame(
    tmp_path, games_dir, another_database
):
    first, second = tmp_path / "first", tmp_path / "second"
    urls = another_database(first), another_database(second)
    run(
        "import",
        "--instance",
        first,
        games_dir / "triple.json",
        games_dir / "two.json",
        database_url=urls[0],
    )
    exported = run("export", "--instance", first, database_url=urls[0]).stdout
    backup = tmp_path / "backup.json"
    backup.write_text(exported, encoding="utf-8")

    result = run("import", "--instance", second, backup, database_url=urls[1])

    assert result.exit_code == 0 and len(json_lines(result)) == 3
    stores = open_store(urls[0]), open_store(urls[1])
    try:
        assert hall_of_fame(stores[1]) == hall_of_fame(stores[0])
    finally:
        for store in stores:
            store.dispose()
    assert run("export", "--instance", second, database_url=urls[1]).stdout == exported


def test_an_illegal_file_imports_nothing_names_the_errors_and_exits_2(
    tmp_path, games_dir, another_database
):
    instance = tmp_path / "instance"
    url = another_database(instance)
    run("import", "--instance", instance, games_dir / "two.json", database_url=url)
    store = open_store(url)
    before = every_row(store)
    cheat = solo_document("Alix")
    cheat["entries"][3]["dice"] = [4, 4, 4, 4, 7]
    write(games_dir / "cheat.json", [solo_document("Bob"), cheat])
    (games_dir / "notes.json").write_text("Mag 245, Alix 230", encoding="utf-8")

    result = run(
        "import",
        "--instance",
        instance,
        games_dir / "triple.json",
        games_dir / "cheat.json",
        games_dir / "notes.json",
        database_url=url,
    )

    assert result.exit_code == 2
    assert json_lines(result) == [
        {
            "file": str(games_dir / "cheat.json"),
            "document": 2,
            "entry": 4,
            "error": "« 7 » n'est pas un dé : un dé va de 1 à 6.",
        },
        {
            "file": str(games_dir / "notes.json"),
            "error": "Ce fichier n'est pas du JSON valide (ligne 1, colonne 1).",
        },
    ]
    assert "Rien n'a été importé." in result.stderr
    assert every_row(store) == before
    store.dispose()


def test_export_of_one_game(tmp_path, games_dir):
    instance = tmp_path / "instance"
    run("import", "--instance", instance, games_dir / "two.json")

    result = run("export", "--instance", instance, "--game", 2)
    assert [doc["id"] for doc in json.loads(result.stdout)] == [2]

    result = run("export", "--instance", instance, "--game", 9)
    assert result.exit_code == 2 and "Aucune partie n'a le numéro 9." in result.stderr
    for beyond in (0, 2**63):
        assert run("export", "--instance", instance, "--game", beyond).exit_code == 2


def test_export_of_an_empty_instance_and_of_a_missing_one(tmp_path):
    instance = tmp_path / "instance"
    instance.mkdir()
    assert json.loads(run("export", "--instance", instance).stdout) == []

    result = run("export", "--instance", tmp_path / "typo")
    assert result.exit_code == 2 and "Aucune instance" in result.stderr
    assert not (tmp_path / "typo").exists()


def test_import_needs_existing_files(tmp_path):
    result = run("import", "--instance", tmp_path / "instance", tmp_path / "nowhere.json")
    assert result.exit_code == 2
    assert not (tmp_path / "instance").exists()


@pytest.mark.parametrize("name", ["\ud800", "Mag\x00"])
def test_a_file_with_a_nul_or_a_lone_surrogate_imports_nothing(tmp_path, another_database, name):
    """Neither can be kept (PostgreSQL refuses a NUL, UTF-8 a surrogate): refused whole, as
    the web's import refuses it."""
    instance = tmp_path / "instance"
    url = another_database(instance)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(solo_document(name)), encoding="ascii")
    result = run("import", "--instance", instance, path, database_url=url)
    assert result.exit_code == 2
    assert "caractère nul (U+0000)" in json_lines(result)[0]["error"]
    store = open_store(url)
    assert every_row(store)["games"] == []
    store.dispose()
