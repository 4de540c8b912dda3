"""Results of finished games: written when a game finishes, removed when an undo reopens it,
and always equal to what a replay of every finished game gives."""

import random

import pytest
from sqlalchemy import delete, select, update

from scorekeeper.play import load, play_turn, undo_turn
from scorekeeper.rules import Rules, read_document
from scorekeeper.rules.results import rules_key, seat_results
from scorekeeper.store import HOME_HOUSEHOLD, EntryRecord
from scorekeeper.store.games import create_game
from scorekeeper.store.lifecycle import delete_game
from scorekeeper.store.players import merge_players, rename_player
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.store.schema import (
    games,
    player_box_stats,
    player_stats,
    players,
    results,
    rule_sets,
)
from testing.samples import random_document
from testing.tables import stored_tables
from tests.support.games import (
    append_entry,
    assert_cache_matches_replay,
    import_documents,
    play_document,
    solo_document,
)


def aggregate_rows(store):
    with store.engine.connect() as connection:
        return stored_tables(connection)


def classique_streaks(store):
    """Every classique result's bonus streak, in the order the games finished."""
    with store.engine.connect() as connection:
        return connection.scalars(
            select(results.c.bonus_streak)
            .where(results.c.rules_key == rules_key({}))
            .order_by(results.c.finished_at, results.c.game_id)
        ).all()


def test_finishing_a_game_caches_each_seat_result_from_its_replay(store):
    document = random_document(Rules(), ["Mag", "Alix"], random.Random(7))
    game_id = play_document(store, document)

    record, state = load(store, game_id, household=HOME_HOUSEHOLD)
    rows = aggregate_rows(store)["results"]
    assert [row["seat"] for row in rows] == [0, 1]
    for row, expected in zip(rows, seat_results(state), strict=True):
        assert row["total"] == expected.total == state.sheets[row["seat"]].total
        assert row["upper"] == state.sheets[row["seat"]].upper
        assert (row["rank"], row["won"]) == (expected.rank, expected.won)
        assert row["finished_at"] == record.finished_at
        assert row["rules_key"] == rules_key(record.rules)
    assert aggregate_rows(store)["rule_sets"][0]["games"] == 1
    assert_cache_matches_replay(store)


def test_equal_totals_share_the_win_and_a_solo_game_wins_nothing(store):
    twins = solo_document("Mag")
    twins["players"] = ["Mag", "Alix"]
    twins["entries"] = [
        dict(entry, player=name) for entry in twins["entries"] for name in ("Mag", "Alix")
    ]
    import_documents(store, twins, solo_document("Zoé"))

    rows = aggregate_rows(store)["results"]
    assert [(row["total"], row["rank"], row["won"]) for row in rows] == [
        (319, 1, True),
        (319, 1, True),
        (319, 1, False),
    ]
    stats = {row["player_id"]: row for row in aggregate_rows(store)["player_stats"]}
    assert (stats[3]["games"], stats[3]["duels"], stats[3]["wins"]) == (1, 0, 0)


def test_undo_forgets_the_results_and_finishing_again_restores_them(store):
    document = random_document(
        Rules.from_dict({"preset": "yatzy"}), ["Mag", "Alix"], random.Random(3)
    )
    game_id = play_document(store, document)
    before = aggregate_rows(store)
    last = read_document(document).entries[-1]
    count = len(document["entries"])

    undo_turn(store, game_id, count, household=HOME_HOUSEHOLD)

    assert all(rows == [] for rows in aggregate_rows(store).values())
    play_turn(store, game_id, count - 1, last.column, last.box, last.dice, household=HOME_HOUSEHOLD)
    after = aggregate_rows(store)
    for row in before["results"] + after["results"]:
        row.pop("finished_at")
    assert after == before


def test_a_barred_box_is_counted_in_its_row_of_the_players_box_figures(store):
    import_documents(store, solo_document("Mag", yams=False), solo_document("Mag"))

    rows = aggregate_rows(store)
    assert [row["barred_cells"] for row in rows["results"]] == ["free:yams", ""]
    yams = next(row for row in rows["player_box_stats"] if row["box"] == "yams")
    assert (yams["filled"], yams["barred"]) == (2, 1)
    assert rows["player_stats"][0]["yams_games"] == 1


def test_bonus_streaks_count_games_in_a_row_per_player_and_rule_set(store):
    ids = import_documents(
        store,
        solo_document("Mag", bonus=True, finished_at="2024-03-01"),
        solo_document("Mag", bonus=True, finished_at="2024-03-02"),
        solo_document("Mag", bonus=False, finished_at="2024-03-03"),
        solo_document("Mag", bonus=True, finished_at="2024-03-04"),
    )
    # A game of another rule set in between does not break the classique streak.
    triple = random_document(Rules.from_dict({"preset": "triple"}), ["Mag"], random.Random(1))
    import_documents(store, {**triple, "finished_at": "2024-03-02T12:00:00"})
    assert classique_streaks(store) == [1, 2, 0, 1]

    delete_game(store, ids[2], household=HOME_HOUSEHOLD)
    assert classique_streaks(store) == [1, 2, 3]

    # An old paper game typed in later takes its place in time and counts the rest again.
    import_documents(store, solo_document("Mag", bonus=False, finished_at="2024-02-01"))
    assert classique_streaks(store) == [0, 1, 2, 3]
    import_documents(store, solo_document("Mag", bonus=True, finished_at="2024-01-01"))
    assert classique_streaks(store) == [1, 0, 1, 2, 3]
    assert_cache_matches_replay(store)


def player_id_of(store, name):
    with store.engine.connect() as connection:
        return connection.scalar(select(players.c.id).where(players.c.name == name))


def test_the_cache_always_equals_a_replay_of_every_finished_game(store):
    rng = random.Random(11)
    rule_choices = [
        Rules(),
        Rules.from_dict({"preset": "triple"}),
        Rules.from_dict({"preset": "yatzy", "vache": True}),
        Rules.from_dict({"four_kind": "fixed40", "dice": 6, "plus_minus": True}),
    ]
    documents = []
    for number in range(16):
        names = rng.sample(["Mag", "Alix", "Bob", "Zoé"], rng.randint(1, 3))
        # Mag plays every other game as "Maggie": two identities to merge later.
        names = [("Maggie" if name == "Mag" and number % 2 else name) for name in names]
        document = random_document(rng.choice(rule_choices), names, rng)
        document["finished_at"] = f"2024-05-{number + 10:02d}T20:00:00+02:00"
        documents.append(document)
    ids = import_documents(store, *documents)
    played = play_document(store, random_document(Rules(), ["Alix", "Bob"], rng))
    assert_cache_matches_replay(store)

    undo_turn(store, played, 26, household=HOME_HOUSEHOLD)
    delete_game(store, ids[0], household=HOME_HOUSEHOLD)
    rename_player(store, player_id_of(store, "Alix"), "Alixe", household=HOME_HOUSEHOLD)
    merge_players(
        store, player_id_of(store, "Mag"), player_id_of(store, "Maggie"), household=HOME_HOUSEHOLD
    )
    import_documents(store, {**documents[3], "finished_at": "2024-01-01"})

    assert_cache_matches_replay(store)


def test_migrate_fills_the_results_of_games_finished_before_they_existed(store):
    import_documents(
        store, solo_document("Mag"), random_document(Rules(), ["Alix", "Bob"], random.Random(2))
    )
    before = aggregate_rows(store)
    with store.engine.begin() as connection:
        for table in (player_box_stats, player_stats, results, rule_sets):
            connection.execute(delete(table))

    store.migrate()

    assert aggregate_rows(store) == before


def test_a_log_marked_finished_that_does_not_end_the_game_is_not_ranked(store):
    game_id = create_game(store, {}, ["Mag"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    append_entry(store, game_id, EntryRecord(0, 0, "free", "sixes", (6, 6, 6, 5, 3), 18), True)
    assert aggregate_rows(store)["results"] == []
    store.migrate()
    assert aggregate_rows(store)["results"] == []


def test_a_finished_game_whose_log_the_rules_refuse_does_not_stop_the_start(store):
    game_id = create_game(store, {}, ["Mag"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    for seq in range(2):  # the same box twice
        append_entry(store, game_id, EntryRecord(seq, 0, "free", "sixes", (6,) * 5, 30))
    with store.engine.begin() as connection:
        connection.execute(update(games).where(games.c.id == game_id).values(status="finished"))

    store.migrate()

    assert aggregate_rows(store)["results"] == []


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({}, {"preset": "classique"}),
        ({"preset": "triple"}, {"columns": ["up", "down", "free"]}),
        ({"preset": "yatzy"}, {"preset": "yatzy", "columns": ["free"], "vache": False}),
        (Rules.from_dict({"vache": True}).to_dict(), {"vache": True}),
    ],
)
def test_equal_rules_share_one_key(first, second):
    assert rules_key(first) == rules_key(second)
    assert len(rules_key(first)) == 16 and int(rules_key(first), 16) >= 0


def test_different_rules_have_different_keys():
    variants = [
        {},
        {"preset": "triple"},
        {"preset": "yatzy"},
        {"vache": True},
        {"four_kind": "fixed40"},
        {"dice": 6},
        {"columns": ["free", "sec"]},
        {"yams_bonus": False},
        {"joker": "free"},
    ]
    assert len({rules_key(variant) for variant in variants}) == len(variants)
