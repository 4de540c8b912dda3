"""Game documents the tests import, and what a store holds, to compare before and after."""

from __future__ import annotations

import json
import random

from sqlalchemy import select

from scorekeeper.play import play_turn, start_game
from scorekeeper.rules import Rules, read_document
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store import halloffame as hof
from scorekeeper.store.documents import check_files
from scorekeeper.store.games import add_entry, load_game
from scorekeeper.store.player_stats import player_rule_set_stats
from scorekeeper.store.players import list_players
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.store.schema import metadata
from scorekeeper.store.transfer import import_games
from testing.samples import random_document
from testing.tables import expected_tables, stored_tables

BONUS_UPPER = [
    ("ones", [1, 1, 1, 1, 2]),
    ("twos", [2, 2, 2, 2, 1]),
    ("threes", [3, 3, 3, 3, 1]),
    ("fours", [4, 4, 4, 4, 1]),
    ("fives", [5, 5, 5, 5, 1]),
    ("sixes", [6, 6, 6, 6, 1]),
]
POOR_UPPER = [
    ("ones", [1, 2, 3, 4, 6]),
    ("twos", [2, 3, 4, 5, 6]),
    ("threes", [3, 4, 5, 6, 1]),
    ("fours", [4, 1, 2, 3, 6]),
    ("fives", [5, 1, 2, 3, 4]),
    ("sixes", [6, 1, 2, 3, 4]),
]
LOWER = [
    ("three_kind", [3, 3, 3, 1, 2]),
    ("four_kind", [4, 4, 4, 4, 1]),
    ("full_house", [2, 2, 3, 3, 3]),
    ("small_straight", [1, 2, 3, 4, 6]),
    ("large_straight", [1, 2, 3, 4, 5]),
    ("yams", [6, 6, 6, 6, 6]),
    ("chance", [6, 6, 5, 5, 4]),
]


# A two-player game, 13 turns each as the web and the browser play it: (Mag's dice, box),
# (Alix's dice, box). Alix wins with 413 points, Mag has 332.
GAME = [
    (("66662", "sixes"), ("11123", "ones")),
    (("55553", "fives"), ("22245", "twos")),
    (("44441", "fours"), ("33312", "threes")),
    (("33361", "threes"), ("44413", "fours")),
    (("22216", "twos"), ("55512", "fives")),
    (("11156", "ones"), ("66612", "sixes")),
    (("66655", "three_kind"), ("12345", "large_straight")),
    (("55552", "four_kind"), ("22233", "full_house")),
    (("22233", "full_house"), ("12346", "small_straight")),
    (("12346", "small_straight"), ("66666", "yams")),
    (("23456", "large_straight"), ("55555", "four_kind")),
    (("44444", "yams"), ("12356", "chance")),
    (("66543", "chance"), ("66655", "three_kind")),
]


def solo_document(name, bonus=True, yams=True, finished_at=None):
    """A one-player classique game: 84 or 21 in the upper section, 200 or 150 below."""
    lower = (
        LOWER
        if yams
        else [(box, [1, 2, 3, 4, 5] if box == "yams" else dice) for box, dice in LOWER]
    )
    document = {
        "rules": {"preset": "classique"},
        "players": [name],
        "entries": [
            {"player": name, "box": box, "dice": dice}
            for box, dice in (BONUS_UPPER if bonus else POOR_UPPER) + lower
        ],
    }
    if finished_at:
        document["finished_at"] = finished_at
    return document


def duo_document(first, second):
    """The game of solo_document, played by two with the same dice."""
    document = solo_document(first)
    document["players"] = [first, second]
    document["entries"] = [
        dict(entry, player=name) for entry in document["entries"] for name in (first, second)
    ]
    return document


def import_documents(store, *documents):
    """The documents imported into the home household as one file; the new games' ids."""
    return import_games(
        store,
        check_files([("test.json", json.dumps(list(documents)))]),
        household=HOME_HOUSEHOLD,
        quotas=NO_QUOTAS,
    )


def some_games(store, seed=5):
    """A few finished games of three rule sets, one game in progress and one abandoned."""
    rng = random.Random(seed)
    documents = []
    for number in range(9):
        rules = [
            Rules(),
            Rules.from_dict({"preset": "triple"}),
            Rules.from_dict({"preset": "yatzy"}),
        ][number % 3]
        names = rng.sample(["Mag", "Alix", "Bob", "Zoé"], rng.randint(1, 3))
        document = random_document(rules, names, rng)
        document["created_at"] = f"2024-06-{number + 1:02d}T19:00:00+02:00"
        document["finished_at"] = f"2024-06-{number + 1:02d}T20:00:00+02:00"
        documents.append(document)
    unfinished = random_document(Rules(), ["Mag", "Alix"], rng)
    unfinished["entries"] = unfinished["entries"][:5]
    documents.append({**unfinished, "created_at": "2024-06-20T18:00:00Z"})
    documents.append({**unfinished, "status": "abandoned"})
    return import_games(
        store,
        check_files([("games.json", json.dumps(documents))]),
        household=HOME_HOUSEHOLD,
        quotas=NO_QUOTAS,
    )


def every_row(store):
    """Every row of every table: equal before and after, nothing was stored.

    Each table's rows are sorted here: a SELECT without ORDER BY, or ordered by a column
    that is not unique, may return the same rows in another order (PostgreSQL does), which
    is not a change."""
    with store.engine.connect() as connection:
        return {
            table.name: sorted(connection.execute(select(table)).all(), key=repr)
            for table in metadata.sorted_tables
        }


def assert_cache_matches_replay(store):
    """The results' tables hold what a replay of every finished game gives, row for row."""
    with store.engine.connect() as connection:
        assert stored_tables(connection) == expected_tables(connection)


def hall_of_fame(store):
    """Everything the hall of fame and the player pages show, game ids left out."""

    def line(found):
        return (
            found.name,
            found.total,
            found.finished_at,
            found.rank,
            found.won,
            found.yams_count,
            found.upper,
            found.bonus_streak,
        )

    home = HOME_HOUSEHOLD
    sets = hof.list_rule_sets(store, household=home)
    players = list_players(store, household=home)
    return {
        "rule_sets": [(found.rules, found.games, found.results) for found in sets],
        "top": {
            found.rules: [
                line(x) for x in hof.top_results(store, found.key, 0, 100, household=home)
            ]
            for found in sets
        },
        "records": {
            found.rules: {
                name: ([line(x) for x in record.holders], record.others)
                for name, record in hof.records(store, found.key, household=home).items()
            }
            for found in sets
        },
        "recent": [
            [line(x) for x in game.lines]
            for game in hof.finished_games(store, 0, 100, household=home)
        ],
        "players": [(player.name, player.games, player.wins) for player in players],
        "stats": {
            player.name: [
                (
                    found.rule_set.rules,
                    found.games,
                    found.wins,
                    found.total_sum,
                    found.bonus_columns,
                    found.yams_games,
                    found.barred_count,
                )
                for found in player_rule_set_stats(store, player.id, household=home)
            ]
            for player in players
        },
    }


# Dice that score 0 in each box of a classique sheet (barred), but for Cinq and Six (15 and
# 18) and the Chance (28): for sheets filled fast to their end game.
PLAIN_DICE = {
    "ones": "23456",
    "twos": "13456",
    "threes": "12456",
    "fours": "12356",
    "fives": "55512",
    "sixes": "66612",
    "three_kind": "12346",
    "four_kind": "12346",
    "full_house": "12346",
    "small_straight": "11226",
    "large_straight": "11226",
    "yams": "12346",
    "chance": "66655",
}


def append_entry(store, game_id, entry, finished=False, *, household=HOME_HOUSEHOLD):
    """`entry` added by the store to the log of the game as it is now (as a writer that has
    just read it would), without the rules' replay: a test of the store alone."""
    seen_at = load_game(store, game_id, household=household).updated_at
    return add_entry(store, game_id, entry, seen_at=seen_at, finished=finished, household=household)


def play_document(store, document):
    """Play a whole document through play_turn, as the web forms do."""
    parsed = read_document(document)
    game_id = start_game(
        store, parsed.rules, parsed.players, household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
    )
    for seq, entry in enumerate(parsed.entries):
        play_turn(
            store, game_id, seq, entry.column, entry.box, entry.dice, household=HOME_HOUSEHOLD
        )
    return game_id
