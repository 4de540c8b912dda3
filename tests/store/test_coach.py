"""The coach's figures in the store: written once for a finished game as it was reviewed, gone
with its results (an undo that reopens it, its deletion, its household's), moved with them by
a merge, and read back in order for the player pages and the hall of fame, each household's
alone."""

import json
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import func, select

from scorekeeper.play import load, undo_turn
from scorekeeper.rules.results import rules_key
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.coach import (
    PRECISE_OVER,
    SeatFigure,
    games_awaiting_coach,
    most_precise,
    player_coach_series,
    record_coach_figures,
)
from scorekeeper.store.documents import check_files
from scorekeeper.store.games import game_version
from scorekeeper.store.households import create_household, delete_household
from scorekeeper.store.lifecycle import delete_game
from scorekeeper.store.players import get_player, list_players, merge_players
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.store.schema import coach_figures
from scorekeeper.store.transfer import import_games
from tests.support.games import duo_document, import_documents, play_document, solo_document

CLASSIQUE = rules_key({"preset": "classique"})
START = datetime(2026, 1, 5, 20, 0, tzinfo=UTC)


def figures_stored(store):
    with store.engine.connect() as connection:
        return connection.execute(
            select(
                coach_figures.c.game_id, coach_figures.c.seat, coach_figures.c.given_away
            ).order_by(coach_figures.c.game_id, coach_figures.c.seat)
        ).all()


def record(store, game_id, *given_away, household=HOME_HOUSEHOLD):
    """The figures of a game as it is now, one a seat; whether they were written."""
    version = game_version(store, game_id, household=household)
    figures = [SeatFigure(value, 13, 10) for value in given_away]
    return record_coach_figures(store, game_id, version, figures, household=household)


def solo_games(store, name, count, start=START):
    """``count`` one-player classique games of ``name``, a day apart, the oldest first."""
    return import_documents(
        store,
        *(
            solo_document(name, finished_at=(start + timedelta(days=day)).isoformat())
            for day in range(count)
        ),
    )


def player_id(store, name, household=HOME_HOUSEHOLD):
    return next(p.id for p in list_players(store, household=household) if p.name == name)


def test_a_finished_game_gets_each_seat_s_figure_once(store):
    (game_id,) = import_documents(store, duo_document("Mag", "Alix"))

    assert record(store, game_id, 12.5, 3.25)
    assert not record(store, game_id, 1.0, 1.0)
    assert figures_stored(store) == [(game_id, 0, 12.5), (game_id, 1, 3.25)]
    with store.engine.connect() as connection:
        row = connection.execute(select(coach_figures).where(coach_figures.c.seat == 0)).one()
    assert (row.rules_key, row.household_id, row.turns, row.best_turns) == (
        CLASSIQUE,
        HOME_HOUSEHOLD,
        13,
        10,
    )


def test_a_game_that_is_not_the_one_reviewed_gets_nothing(store):
    (game_id,) = import_documents(store, duo_document("Mag", "Alix"))
    reviewed = game_version(store, game_id, household=HOME_HOUSEHOLD)
    _record, state = load(store, game_id, household=HOME_HOUSEHOLD)
    undo_turn(store, game_id, len(state.entries), household=HOME_HOUSEHOLD)
    figures = [SeatFigure(1.0, 13, 13)] * 2

    # Reopened by an undo: its version moved, and it has no results.
    assert not record_coach_figures(store, game_id, reviewed, figures, household=HOME_HOUSEHOLD)
    now = game_version(store, game_id, household=HOME_HOUSEHOLD)
    assert not record_coach_figures(store, game_id, now, figures, household=HOME_HOUSEHOLD)
    # One figure a seat, no more, no fewer.
    (other,) = import_documents(store, duo_document("Zoé", "Tom"))
    assert not record(store, other, 1.0)
    assert figures_stored(store) == []


def test_another_household_cannot_write_the_figures_of_a_game(store):
    (game_id,) = import_documents(store, duo_document("Mag", "Alix"))
    version = game_version(store, game_id, household=HOME_HOUSEHOLD)
    other = create_household(store, "Les Autres", "hash")

    figures = [SeatFigure(1.0, 13, 13)] * 2
    assert not record_coach_figures(store, game_id, version, figures, household=other)
    assert figures_stored(store) == []


def test_an_undo_that_reopens_the_game_and_a_deletion_take_the_figures_away(store):
    first = play_document(store, duo_document("Mag", "Alix"))
    second = play_document(store, duo_document("Mag", "Alix"))
    assert record(store, first, 4.0, 5.0) and record(store, second, 6.0, 7.0)

    _record, state = load(store, first, household=HOME_HOUSEHOLD)
    undo_turn(store, first, len(state.entries), household=HOME_HOUSEHOLD)
    delete_game(store, second, household=HOME_HOUSEHOLD)

    assert figures_stored(store) == []


def test_a_household_deleted_takes_its_figures_and_no_other(store):
    other = create_household(store, "Les Autres", "hash")
    (mine,) = import_documents(store, solo_document("Mag"))
    (theirs,) = import_games_of(store, other, solo_document("Mag"))
    assert record(store, mine, 2.0) and record(store, theirs, 3.0, household=other)

    delete_household(store, other)

    assert figures_stored(store) == [(mine, 0, 2.0)]


def import_games_of(store, household, *documents):
    return import_games(
        store,
        check_files([("test.json", json.dumps(list(documents)))]),
        household=household,
        quotas=NO_QUOTAS,
    )


def test_a_merge_gives_the_kept_player_the_other_s_figures(store):
    (first,) = solo_games(store, "Mag", 1)
    (second,) = solo_games(store, "Maggie", 1, START + timedelta(days=3))
    assert record(store, first, 8.0) and record(store, second, 2.0)
    mag, maggie = player_id(store, "Mag"), player_id(store, "Maggie")

    merge_players(store, mag, maggie, household=HOME_HOUSEHOLD)

    series = player_coach_series(store, mag, CLASSIQUE, 100, household=HOME_HOUSEHOLD)
    assert [figure.given_away for figure in series.figures] == [8.0, 2.0]
    assert get_player(store, maggie, household=HOME_HOUSEHOLD) is None


def test_a_player_s_series_is_their_latest_games_oldest_first_with_those_not_counted(store):
    ids = solo_games(store, "Mag", 5)
    for game_id, value in zip(ids[1:4], (9.0, 7.0, 5.0), strict=True):
        assert record(store, game_id, value)
    mag = player_id(store, "Mag")

    series = player_coach_series(store, mag, CLASSIQUE, 4, household=HOME_HOUSEHOLD)

    # The latest four: games 2 to 5, of which the last is not counted yet.
    assert [figure.game_id for figure in series.figures] == ids[1:4]
    assert [figure.given_away for figure in series.figures] == [9.0, 7.0, 5.0]
    assert series.waiting == 1
    other = create_household(store, "Les Autres", "hash")
    assert player_coach_series(store, mag, CLASSIQUE, 4, household=other).figures == ()


def test_the_games_awaiting_the_coach_come_newest_first_in_batches(store):
    ids = solo_games(store, "Mag", 5)
    assert record(store, ids[2], 1.0)
    other = create_household(store, "Les Autres", "hash")
    import_games_of(store, other, solo_document("Zoé"))

    first = games_awaiting_coach(store, CLASSIQUE, 2, household=HOME_HOUSEHOLD)
    rest = games_awaiting_coach(store, CLASSIQUE, 2, household=HOME_HOUSEHOLD, before=first[-1])

    assert [game_id for _end, game_id in first + rest] == [ids[4], ids[3], ids[1], ids[0]]
    assert games_awaiting_coach(store, rules_key({"preset": "yatzy"}), 9, household=other) == []


def test_the_most_precise_player_leaves_the_fewest_points_a_game_over_the_latest_ones(store):
    # Mag plays every game; Alix the older ones only, where she left fewer points.
    older = import_documents(
        store,
        *(
            dict(duo_document("Mag", "Alix"), finished_at=(START + timedelta(days=day)).isoformat())
            for day in range(5)
        ),
    )
    newer = solo_games(store, "Mag", PRECISE_OVER, START + timedelta(days=10))
    for game_id in older:
        assert record(store, game_id, 10.0, 1.0)
    for game_id in newer[:-1]:
        assert record(store, game_id, 4.0)
    assert most_precise(store, CLASSIQUE, household=HOME_HOUSEHOLD).name == "Alix"

    # One more game counted, and the latest twenty are Mag's alone.
    assert record(store, newer[-1], 4.0)
    found = most_precise(store, CLASSIQUE, household=HOME_HOUSEHOLD)
    assert (found.name, found.games, found.over) == ("Mag", PRECISE_OVER, PRECISE_OVER)
    assert found.given_away == pytest.approx(4.0)
    other = create_household(store, "Les Autres", "hash")
    assert most_precise(store, CLASSIQUE, household=other) is None


def test_equals_are_told_apart_by_the_games_they_played(store):
    (duel,) = import_documents(store, duo_document("Mag", "Alix"))
    (alone,) = solo_games(store, "Alix", 1, START + timedelta(days=2))
    assert record(store, duel, 3.0, 3.0) and record(store, alone, 3.0)

    found = most_precise(store, CLASSIQUE, household=HOME_HOUSEHOLD)
    assert (found.name, found.games, found.over) == ("Alix", 2, 2)
    with store.engine.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(coach_figures)) == 3
