"""Players as lasting identities: renaming and merging, and what it does to their results."""

import json

import pytest

from scorekeeper.play import load
from scorekeeper.rules import RuleError
from scorekeeper.store import HOME_HOUSEHOLD, GameNotFound
from scorekeeper.store.documents import check_files
from scorekeeper.store.games import create_game, games_in_progress, load_game
from scorekeeper.store.lifecycle import WrongStatus, abandon_game, delete_game, resume_game
from scorekeeper.store.players import (
    NameTaken,
    PlayerNotFound,
    SamePlayer,
    SharedGames,
    get_player,
    list_players,
    merge_players,
    players_of_game,
    rename_player,
)
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.store.transfer import import_games
from tests.support.games import (
    assert_cache_matches_replay,
    duo_document,
    every_row,
    solo_document,
)


@pytest.fixture
def family(store):
    """Mag and Alix played together; "maggie" is Mag on another evening."""
    return import_games(
        store,
        check_files(
            [
                (
                    "family.json",
                    json.dumps(
                        [
                            duo_document("Mag", "Alix"),
                            solo_document("maggie "),
                            solo_document("MAGGIE"),
                        ]
                    ),
                )
            ]
        ),
        household=HOME_HOUSEHOLD,
        quotas=NO_QUOTAS,
    )


def names(store):
    return [(player.name, player.games) for player in list_players(store, household=HOME_HOUSEHOLD)]


def test_the_same_name_ignoring_case_is_one_player(store, family):
    assert names(store) == [("Alix", 1), ("Mag", 1), ("maggie", 2)]
    assert load(store, family[2], household=HOME_HOUSEHOLD)[0].players == ("MAGGIE",)


def test_rename_keeps_the_identity_and_the_names_written_on_sheets(store, family):
    renamed = rename_player(store, 1, "  Magali ", household=HOME_HOUSEHOLD)

    assert renamed.name == "Magali"
    assert get_player(store, 1, household=HOME_HOUSEHOLD).name == "Magali"
    assert names(store) == [("Alix", 1), ("Magali", 1), ("maggie", 2)]
    assert load(store, family[0], household=HOME_HOUSEHOLD)[0].players == ("Mag", "Alix")
    seated = players_of_game(store, family[0], household=HOME_HOUSEHOLD)
    assert [player.name for player in seated] == ["Magali", "Alix"]
    # The old name is free again: a new game with it makes a new player.
    create_game(store, {}, ["mag"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    assert ("mag", 0) in names(store)


def test_rename_to_another_players_name_is_refused_and_suggests_the_merge(store, family):
    before = every_row(store)
    with pytest.raises(NameTaken) as taken:
        rename_player(store, 3, "ALIX", household=HOME_HOUSEHOLD)
    assert (taken.value.other.id, taken.value.other.name) == (2, "Alix")
    assert every_row(store) == before


def test_rename_may_change_only_the_case(store, family):
    rename_player(store, 3, "Maggie", household=HOME_HOUSEHOLD)
    assert get_player(store, 3, household=HOME_HOUSEHOLD).name == "Maggie"


@pytest.mark.parametrize("name", ["", "   ", "x" * 41, "Tab\there"])
def test_rename_refuses_a_name_the_rules_refuse(store, family, name):
    before = every_row(store)
    with pytest.raises(RuleError):
        rename_player(store, 1, name, household=HOME_HOUSEHOLD)
    assert every_row(store) == before


def test_rename_of_an_unknown_player(store):
    with pytest.raises(PlayerNotFound):
        rename_player(store, 404, "Zoé", household=HOME_HOUSEHOLD)


def test_merge_moves_the_games_and_results_to_the_kept_player(store, family):
    merge_players(store, 1, 3, household=HOME_HOUSEHOLD)

    assert names(store) == [("Alix", 1), ("Mag", 3)]
    assert get_player(store, 3, household=HOME_HOUSEHOLD) is None
    seated = players_of_game(store, family[1], household=HOME_HOUSEHOLD)
    assert [player.id for player in seated] == [1]
    assert_cache_matches_replay(store)


def test_merge_of_two_players_of_one_game_changes_nothing(store, family):
    before = every_row(store)
    with pytest.raises(SharedGames) as shared:
        merge_players(store, 1, 2, household=HOME_HOUSEHOLD)
    assert shared.value.game_ids == [family[0]]
    assert every_row(store) == before


def test_merge_refuses_the_same_player_and_unknown_ones(store, family):
    with pytest.raises(SamePlayer):
        merge_players(store, 1, 1, household=HOME_HOUSEHOLD)
    with pytest.raises(PlayerNotFound):
        merge_players(store, 1, 404, household=HOME_HOUSEHOLD)
    with pytest.raises(PlayerNotFound):
        merge_players(store, 404, 1, household=HOME_HOUSEHOLD)


def test_abandon_resume_and_delete(store, family):
    game_id = create_game(store, {}, ["Mag", "Zoé"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)

    abandon_game(store, game_id, household=HOME_HOUSEHOLD)
    assert load(store, game_id, household=HOME_HOUSEHOLD)[0].status == "abandoned"
    assert games_in_progress(store, household=HOME_HOUSEHOLD) == []
    with pytest.raises(WrongStatus):
        abandon_game(store, game_id, household=HOME_HOUSEHOLD)
    resume_game(store, game_id, household=HOME_HOUSEHOLD)
    assert [game.id for game in games_in_progress(store, household=HOME_HOUSEHOLD)] == [game_id]
    with pytest.raises(WrongStatus) as finished:
        abandon_game(store, family[0], household=HOME_HOUSEHOLD)
    assert finished.value.status == "finished"

    delete_game(store, game_id, household=HOME_HOUSEHOLD)
    delete_game(store, family[0], household=HOME_HOUSEHOLD)
    assert load_game(store, game_id, household=HOME_HOUSEHOLD) is None
    assert load_game(store, family[0], household=HOME_HOUSEHOLD) is None
    # Players stay: Zoé has no game left, Alix none finished.
    assert names(store) == [("Alix", 0), ("Mag", 0), ("maggie", 2), ("Zoé", 0)]
    assert_cache_matches_replay(store)


@pytest.mark.parametrize("action", [abandon_game, resume_game, delete_game])
def test_actions_on_an_unknown_game(store, action):
    with pytest.raises(GameNotFound):
        action(store, 404, household=HOME_HOUSEHOLD)
