"""Import and export of game documents: checked first, all or nothing, and a faithful round trip."""

import json
import re
from datetime import UTC, datetime

import pytest
from sqlalchemy import text

from scorekeeper.fairness import Busy
from scorekeeper.play import load, play_turn
from scorekeeper.rules import read_document, write_document
from scorekeeper.store import ABANDONED, FINISHED, HOME_HOUSEHOLD, IN_PROGRESS, GameNotFound
from scorekeeper.store.documents import ImportRefused, check_files
from scorekeeper.store.exports import export_documents, json_array
from scorekeeper.store.games import games_in_progress
from scorekeeper.store.households import create_household
from scorekeeper.store.players import list_players, merge_players, rename_player
from scorekeeper.store.quotas import NO_QUOTAS, Quotas
from scorekeeper.store.transfer import IMPORT_LOCK, import_file, import_games
from tests.support.databases import ON_POSTGRESQL
from tests.support.games import every_row, hall_of_fame, solo_document, some_games


def export_text(store, game_id=None):
    return "".join(json_array(export_documents(store, game_id, household=HOME_HOUSEHOLD)))


def test_export_then_import_into_an_empty_instance_gives_the_same_hall_of_fame(store, other_store):
    some_games(store)
    rename_player(store, 2, "Alixe", household=HOME_HOUSEHOLD)
    exported = export_text(store)

    ids = import_games(
        other_store,
        check_files([("export.json", exported)]),
        household=HOME_HOUSEHOLD,
        quotas=NO_QUOTAS,
    )

    assert len(ids) == 11
    assert hall_of_fame(other_store) == hall_of_fame(store)
    again = json.loads(export_text(other_store))
    original = json.loads(exported)
    assert [{**doc, "id": None} for doc in again] == [{**doc, "id": None} for doc in original]
    assert [doc["status"] for doc in again][-2:] == [IN_PROGRESS, ABANDONED]


def test_an_export_keeps_who_played_after_a_rename_or_a_merge(store, other_store):
    import_games(
        store,
        check_files(
            [
                (
                    "a.json",
                    json.dumps(
                        [solo_document("Mag"), solo_document("Maggie"), solo_document("Alix")]
                    ),
                )
            ]
        ),
        household=HOME_HOUSEHOLD,
        quotas=NO_QUOTAS,
    )
    merge_players(store, 1, 2, household=HOME_HOUSEHOLD)
    rename_player(store, 3, "Alixe", household=HOME_HOUSEHOLD)

    documents = json.loads(export_text(store))

    assert [doc["players"] for doc in documents] == [["Mag"], ["Maggie"], ["Alix"]]
    assert [doc.get("identities") for doc in documents] == [None, ["Mag"], ["Alixe"]]
    import_games(
        other_store,
        check_files([("b.json", json.dumps(documents))]),
        household=HOME_HOUSEHOLD,
        quotas=NO_QUOTAS,
    )
    imported = list_players(other_store, household=HOME_HOUSEHOLD)
    assert [(p.name, p.games) for p in imported] == [("Alixe", 1), ("Mag", 2)]
    assert load(other_store, 2, household=HOME_HOUSEHOLD)[0].players == ("Maggie",)


def test_an_exported_document_is_the_replay_format_plus_the_games_metadata(store):
    some_games(store)
    for document in json.loads(export_text(store)):
        record, state = load(store, document["id"], household=HOME_HOUSEHOLD)
        assert {key: document[key] for key in ("rules", "players", "entries")} == write_document(
            state
        )
        assert document["status"] == record.status
        assert document["created_at"] == record.created_at.isoformat()
        assert document["finished_at"] == (record.finished_at and record.finished_at.isoformat())
        assert read_document(document).replay().is_over == (record.status == FINISHED)


def test_export_of_one_game_and_of_an_unknown_one(store):
    some_games(store)
    assert [doc["id"] for doc in json.loads(export_text(store, 4))] == [4]
    with pytest.raises(GameNotFound):
        export_text(store, 404)


def test_an_empty_instance_exports_an_empty_array(other_store):
    assert json.loads(export_text(other_store)) == []


def test_one_illegal_game_imports_nothing_and_every_problem_is_named(store):
    some_games(store)
    before = every_row(store)
    good = solo_document("Zoé")
    cheat = solo_document("Zoé")
    cheat["entries"][12]["box"] = "three_kind"  # the 7th entry filled it already
    files = [
        ("good.json", json.dumps(good)),
        ("array.json", json.dumps([good, cheat])),
        ("broken.json", '{"rules": '),
    ]

    with pytest.raises(ImportRefused) as refused:
        check_files(files)

    assert [problem.render() for problem in refused.value.problems] == [
        "array.json, partie 2, entrée 13 : La case Brelan est déjà remplie.",
        "broken.json : Ce fichier n'est pas du JSON valide (ligne 1, colonne 11).",
    ]
    assert every_row(store) == before


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"status": "won"}, "« status » vaut in_progress, finished ou abandoned, pas « won »."),
        (
            {"status": "in_progress"},
            "« status » dit in_progress, mais toutes les cases sont "
            "remplies : la partie est terminée (finished).",
        ),
        ({"created_at": "hier"}, "« created_at » est une date ISO 8601"),
        ({"finished_at": 2024}, "« finished_at » est une date ISO 8601"),
        (
            {"created_at": "2024-06-02", "finished_at": "2024-06-01"},
            "« finished_at » précède « created_at ».",
        ),
        (
            {"identities": ["Mag", "Alix"]},
            "« identities » donne le joueur de chaque place : une liste de 1 noms.",
        ),
        ({"players": []}, "Une partie se joue de 1 à 10 joueurs, pas 0."),
        ({"rules": {"preset": "farkle"}}, "Règles inconnues : « farkle »"),
    ],
)
def test_bad_metadata_is_refused_with_a_french_message(change, message):
    with pytest.raises(ImportRefused) as refused:
        check_files([("game.json", json.dumps({**solo_document("Mag"), **change}))])
    assert message in refused.value.problems[0].render()


def test_a_finished_status_needs_every_entry():
    document = solo_document("Mag")
    document["entries"] = document["entries"][:3]
    with pytest.raises(ImportRefused) as refused:
        check_files([("game.json", json.dumps({**document, "status": "finished"}))])
    assert refused.value.problems[0].render() == (
        "game.json : « status » dit finished, mais la partie n'a que 3 entrées sur 13."
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff\xfe\x00", "Ce fichier n'est pas du texte UTF-8"),
        (b"[]", "Ce fichier ne contient aucune partie."),
        (b"42", "Un fichier d'import contient une partie (un objet JSON) ou une liste"),
        (b"[42]", "partie 1 : Un document de partie est un objet JSON"),
    ],
)
def test_files_that_are_not_games(content, message):
    with pytest.raises(ImportRefused) as refused:
        check_files([("f.json", content)])
    assert message in refused.value.problems[0].render()


def test_dates_statuses_and_names_of_an_import(store):
    unfinished = solo_document("  Mag ")
    unfinished["entries"] = unfinished["entries"][:2]
    for entry in unfinished["entries"]:
        entry["player"] = "  Mag "
    ids = import_games(
        store,
        check_files(
            [
                (
                    "paper.json",
                    json.dumps(
                        [
                            {**solo_document("Alix"), "finished_at": "1998-07-12"},
                            {**solo_document("Alix"), "created_at": "2001-01-01T20:00:00+01:00"},
                            unfinished,
                            {**unfinished, "status": "abandoned"},
                        ]
                    ),
                )
            ]
        ),
        household=HOME_HOUSEHOLD,
        quotas=NO_QUOTAS,
    )

    games = [load(store, game_id, household=HOME_HOUSEHOLD)[0] for game_id in ids]
    assert [game.status for game in games] == [FINISHED, FINISHED, IN_PROGRESS, ABANDONED]
    assert games[0].created_at == games[0].finished_at == datetime(1998, 7, 12, tzinfo=UTC)
    assert games[1].finished_at == datetime(2001, 1, 1, 19, tzinfo=UTC)
    assert games[2].players == ("Mag",) and games[2].finished_at is None
    assert [entry.score for entry in games[2].entries] == [4, 8]
    assert [game.id for game in games_in_progress(store, household=HOME_HOUSEHOLD)] == [ids[2]]


def test_an_imported_game_is_stored_as_a_played_one_and_plays_on(store):
    """Imported rows reach the database by the driver's bulk path: their dates must be the
    text SQLAlchemy writes, or the check that a game did not change (its updated_at) and
    the order of results by time go wrong on SQLite."""
    unfinished = solo_document("Mag")
    unfinished["entries"] = unfinished["entries"][:2]
    imported, _ = import_games(
        store,
        check_files(
            [
                (
                    "games.json",
                    json.dumps([unfinished, solo_document("Alix", finished_at="2024-03-01")]),
                )
            ]
        ),
        household=HOME_HOUSEHOLD,
        quotas=NO_QUOTAS,
    )

    play_turn(store, imported, 2, "free", "threes", (3, 3, 3, 3, 1), household=HOME_HOUSEHOLD)

    assert len(load(store, imported, household=HOME_HOUSEHOLD)[0].entries) == 3
    with store.engine.connect() as connection:
        if connection.dialect.name == "sqlite":
            dates = (
                connection.exec_driver_sql(
                    "SELECT created_at FROM games UNION SELECT updated_at FROM games "
                    "UNION SELECT finished_at FROM games WHERE finished_at IS NOT NULL "
                    "UNION SELECT created_at FROM entries UNION SELECT finished_at FROM results "
                    "UNION SELECT created_at FROM players"
                )
                .scalars()
                .all()
            )
            assert all(
                re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}", date) for date in dates
            ), dates


def test_an_import_file_is_checked_then_written_into_its_household(store, database_url):
    household = create_household(store, "Les A", "hash")
    content = json.dumps([solo_document("Zoé"), solo_document("Léa")]).encode()
    ids = import_file(database_url, {}, household, Quotas(), "parties.json", content)
    assert [document["players"] for document in export_documents(store, household=household)] == [
        ["Zoé"],
        ["Léa"],
    ]
    assert len(ids) == 2
    with pytest.raises(ImportRefused) as refused:
        import_file(database_url, {}, household, Quotas(), "parties.json", b"[]")
    assert "aucune partie" in refused.value.problems[0].render()


@pytest.mark.skipif(
    not ON_POSTGRESQL,
    reason="SQLite has one server process, whose fair "
    "queue runs a household's imports one at a time",
)
def test_a_households_second_import_waits_for_the_first_in_any_process(store, database_url):
    household = create_household(store, "Les A", "hash")
    neighbour = create_household(store, "Les B", "hash")
    content = json.dumps([solo_document("Zoé")]).encode()
    key = {"kind": IMPORT_LOCK, "household": household}
    with store.engine.connect() as elsewhere:  # another process's import of the household
        elsewhere.scalar(text("SELECT pg_advisory_lock(:kind, :household)"), key)
        elsewhere.commit()
        with pytest.raises(Busy):
            import_file(database_url, {}, household, Quotas(), "parties.json", content)
        assert import_file(database_url, {}, neighbour, Quotas(), "parties.json", content)
        elsewhere.scalar(text("SELECT pg_advisory_unlock(:kind, :household)"), key)
        elsewhere.commit()
    assert import_file(database_url, {}, household, Quotas(), "parties.json", content)
