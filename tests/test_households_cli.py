"""`scorekeeper household create` and `--household` on export, import and backup."""

import json
import sqlite3

import pytest
from click.testing import CliRunner

from scorekeeper.cli import main
from scorekeeper.store import HOME_HOUSEHOLD, Store
from scorekeeper.store.exports import export_documents
from scorekeeper.store.households import find_household

DOCUMENT = {
    "rules": {},
    "players": ["Zoé"],
    "entries": [{"player": "Zoé", "box": "sixes", "dice": [6, 6, 6, 2, 1]}],
}


def run(instance, *args):
    return CliRunner().invoke(main, [*map(str, args), "--instance", str(instance)])


@pytest.fixture
def hosted(instance_path, database_url):
    instance_path.mkdir(parents=True, exist_ok=True)
    result = run(
        instance_path,
        "household",
        "create",
        "Les Dupont",
        "--passphrase",
        "une phrase assez longue",
    )
    assert result.exit_code == 0, result.output
    assert "Les Dupont" in result.output
    store = Store(database_url)
    yield instance_path, store
    store.dispose()


def test_household_create_refuses_a_taken_name_and_a_short_passphrase(hosted):
    instance, store = hosted
    taken = run(instance, "household", "create", "les dupont", "--passphrase", "autre phrase")
    assert taken.exit_code != 0 and "déjà" in taken.output
    short = run(instance, "household", "create", "Autres", "--passphrase", "court")
    assert short.exit_code != 0
    assert find_household(store, "Autres") is None


def test_import_and_export_go_to_the_named_household(hosted, tmp_path):
    instance, store = hosted
    file = tmp_path / "game.json"
    file.write_text(json.dumps(DOCUMENT), encoding="utf-8")
    result = run(instance, "import", file, "--household", "LES DUPONT")
    assert result.exit_code == 0, result.output
    household = find_household(store, "Les Dupont").id
    assert [document["players"] for document in export_documents(store, household=household)] == [
        ["Zoé"]
    ]
    assert list(export_documents(store, household=HOME_HOUSEHOLD)) == []
    exported = run(instance, "export", "--household", "Les Dupont")
    assert [document["players"] for document in json.loads(exported.stdout)] == [["Zoé"]]
    assert json.loads(run(instance, "export").stdout) == []
    unknown = run(instance, "export", "--household", "Personne")
    assert unknown.exit_code == 2 and "Aucune maison" in unknown.output


@pytest.mark.sqlite_only("the backup command copies the SQLite file")
def test_a_household_backup_holds_that_household_only(hosted, tmp_path):
    instance, store = hosted
    file = tmp_path / "game.json"
    file.write_text(json.dumps(DOCUMENT), encoding="utf-8")
    run(instance, "import", file, "--household", "Les Dupont")
    run(instance, "import", file)
    result = run(instance, "backup", tmp_path / "copy.sqlite3", "--household", "Les Dupont")
    assert result.exit_code == 0, result.output
    assert "1 games" in result.output
    copy = sqlite3.connect(tmp_path / "copy.sqlite3")
    assert copy.execute("SELECT name FROM households").fetchall() == [("Les Dupont",)]
    assert copy.execute("SELECT count(*) FROM games").fetchone() == (1,)
    assert copy.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    copy.close()
