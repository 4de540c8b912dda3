"""Every paged list shows, page after page, exactly the rows of its plain full ordering.

Pages past the middle of a list are read from its end (store/paging.py): walked page by page
at several sizes, every list must give back the whole ordering, computed here from every row
in Python, ties included (equal totals on the same date, two players of one game with the
same total, games written in the same instant), and the same pages read from the start.
"""

from __future__ import annotations

import random

import pytest
from sqlalchemy import select

from scorekeeper.rules import Rules
from scorekeeper.store import FINISHED, HOME_HOUSEHOLD, IN_PROGRESS
from scorekeeper.store import halloffame as hof
from scorekeeper.store.games import count_games_in_progress, games_in_progress
from scorekeeper.store.players import count_players, list_players
from scorekeeper.store.schema import games, players, results
from testing.samples import random_document
from tests.support.games import duo_document, import_documents, solo_document

NAMES = ["Mag", "Alix", "Bob", "Zoé", "Jean", "Léa", "Paul", "Inès", "Noé", "Lou", "Éva", "Tom"]
# Few dates for many games, so that equal totals often share their date too.
DATES = [f"2024-06-{day:02d}T20:00:00+02:00" for day in range(1, 6)]
PAGE_SIZES = (1, 3, 7, 10, 20, 50)


@pytest.fixture
def filled(store):
    """A few hundred finished games, many of them tied, and games in progress."""
    rng = random.Random(29)
    documents = []
    for number in range(240):
        date = rng.choice(DATES)
        if number % 4 == 0:
            # The same dice for two players: equal totals within one game.
            document = duo_document(*rng.sample(NAMES, 2))
        elif number % 4 == 1:
            document = solo_document(rng.choice(NAMES), bonus=rng.random() < 0.5)
        else:
            document = random_document(Rules(), rng.sample(NAMES, rng.randint(1, 4)), rng)
        documents.append({**document, "created_at": date, "finished_at": date})
    for _ in range(2):
        documents.append(
            {
                **random_document(Rules.from_dict({"preset": "yatzy"}), NAMES[:3], rng),
                "finished_at": DATES[0],
            }
        )
    for number in range(60):
        unfinished = random_document(Rules(), rng.sample(NAMES, 2), rng)
        unfinished["entries"] = unfinished["entries"][: 1 + number % 7]
        documents.append(unfinished)
    import_documents(store, *documents)
    return store


def walked(read_page, count):
    """Every page of a list of ``count`` rows, one after the other, at each page size (the
    same rows each time), each page checked against the same page read from the list's
    start."""
    walks = []
    for size in PAGE_SIZES:
        rows = []
        for offset in range(0, count + size, size):
            page = read_page(offset, size, count)
            assert page == read_page(offset, size, None)
            rows.extend(page)
        walks.append(rows)
    assert all(rows == walks[0] for rows in walks)
    return walks[0]


def all_rows(store, query):
    with store.engine.connect() as connection:
        return connection.execute(query).all()


def test_best_totals_page_by_page_are_the_full_ordering(filled):
    sets = hof.list_rule_sets(filled, household=HOME_HOUSEHOLD)
    assert len(sets) == 2
    seen = []
    for rule_set in sets:
        rows = all_rows(
            filled,
            select(results, players.c.name)
            .join(players, players.c.id == results.c.player_id)
            .where(results.c.rules_key == rule_set.key),
        )
        rows.sort(key=lambda row: (-row.total, row.finished_at, row.game_id, row.seat))
        seen.extend(rows)
        expected = [(row.game_id, row.player_id, row.name, row.total) for row in rows]
        assert len(expected) == rule_set.results

        def read_page(offset, limit, count, key=rule_set.key):
            return [
                (line.game_id, line.player_id, line.name, line.total)
                for line in hof.top_results(
                    filled, key, offset, limit, household=HOME_HOUSEHOLD, count=count
                )
            ]

        assert walked(read_page, rule_set.results) == expected
    # The ties this is about are there: equal totals on one date in several games, and
    # within one game.
    totals = [(row.rules_key, row.total, row.finished_at) for row in seen]
    assert len(totals) - len(set(totals)) > 20
    assert len({(row.game_id, row.total) for row in seen}) < len(seen)


def test_finished_games_page_by_page_are_the_full_ordering(filled):
    rows = all_rows(
        filled, select(games.c.id, games.c.finished_at).where(games.c.status == FINISHED)
    )
    expected = [row.id for row in sorted(rows, key=lambda row: (row.finished_at, row.id))][::-1]

    def read_page(offset, limit, count):
        return [
            game.id
            for game in hof.finished_games(
                filled, offset, limit, household=HOME_HOUSEHOLD, count=count
            )
        ]

    assert walked(read_page, len(rows)) == expected


def test_a_players_games_page_by_page_are_the_full_ordering(filled):
    for player in list_players(filled, household=HOME_HOUSEHOLD)[:4]:
        rows = all_rows(
            filled,
            select(results.c.game_id, results.c.finished_at).where(
                results.c.player_id == player.id
            ),
        )
        ordered = sorted(rows, key=lambda row: (row.finished_at, row.game_id))
        expected = [row.game_id for row in ordered][::-1]
        assert len(expected) == player.games

        def read_page(offset, limit, count, player_id=player.id):
            return [
                game.id
                for game in hof.finished_games(
                    filled,
                    offset,
                    limit,
                    household=HOME_HOUSEHOLD,
                    player_id=player_id,
                    count=count,
                )
            ]

        assert walked(read_page, player.games) == expected


def test_players_page_by_page_are_the_full_ordering(filled):
    rows = all_rows(filled, select(players.c.id, players.c.name_key))
    expected = [row.id for row in sorted(rows, key=lambda row: (row.name_key, row.id))]
    count = count_players(filled, household=HOME_HOUSEHOLD)
    assert count == len(NAMES)

    def read_page(offset, limit, count):
        return [
            (player.id, player.games, player.wins)
            for player in list_players(filled, offset, limit, household=HOME_HOUSEHOLD, count=count)
        ]

    everyone = {player.id: player for player in list_players(filled, household=HOME_HOUSEHOLD)}
    paged = walked(read_page, count)
    assert [player_id for player_id, _games, _wins in paged] == expected
    assert paged == [
        (player_id, everyone[player_id].games, everyone[player_id].wins) for player_id in expected
    ]


def test_games_in_progress_page_by_page_are_the_full_ordering(filled):
    rows = all_rows(
        filled, select(games.c.id, games.c.updated_at).where(games.c.status == IN_PROGRESS)
    )
    # Imported in one go, they share their last change: the id alone orders them.
    assert len({row.updated_at for row in rows}) < len(rows)
    expected = [row.id for row in sorted(rows, key=lambda row: (row.updated_at, row.id))][::-1]
    count = count_games_in_progress(filled, household=HOME_HOUSEHOLD)
    assert count == len(rows) == 60

    def read_page(offset, limit, count):
        return [
            game.id
            for game in games_in_progress(
                filled, household=HOME_HOUSEHOLD, offset=offset, limit=limit, count=count
            )
        ]

    assert walked(read_page, count) == expected
