"""The coach in the pages: the turn that finishes a game is answered before its count, which
the coach does in its own thread and which equals the review page's figures; a player's page shows
their points left to the Conseil game by game with the trend, the hall of fame the most
precise player of the rule set; rules the Conseil only estimates say so; another household
sees none of it."""

import io
import json
import random
import re
import threading
from datetime import UTC, datetime, timedelta

import pytest

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.coach import Coach, review_games
from scorekeeper.rules import Rules
from scorekeeper.rules.results import rules_key
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.coach import SeatFigure, record_coach_figures
from scorekeeper.store.documents import check_files
from scorekeeper.store.games import game_version
from scorekeeper.store.households import create_household
from scorekeeper.store.players import list_players
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.store.transfer import import_games
from scorekeeper.web.conseil import COACH_EXTENSION
from scorekeeper.web.passphrases import passphrase_hash
from testing.samples import random_document
from tests.support.apps import HOSTED, PASSPHRASE, app_on
from tests.support.coach import assert_same, copy_tables, recomputed, stored_figures
from tests.support.forms import csrf_token, page
from tests.support.games import duo_document, import_documents, solo_document
from tests.support.threads import WAIT_SECONDS
from tests.support.walk import join_household

START = datetime(2026, 3, 2, 20, 0, tzinfo=UTC)


@pytest.fixture
def app(instance_path, database_url):
    """The app of the `client` and `table` fixtures, counting finished games as a server."""
    with app_on(instance_path, database_url, COACH_AFTER_GAMES=True) as app:
        yield app


@pytest.fixture
def store(app):
    return app.extensions[STORE_EXTENSION]


class HeldWorkers:
    """The coach's workers as the test holds them: a review waits for ``release``, in the
    thread that asked for it (named in ``threads``)."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.threads: list[str] = []

    def run(self, household, job, *args):
        assert job is review_games
        self.threads.append(threading.current_thread().name)
        self.started.set()
        assert self.release.wait(WAIT_SECONDS)
        return job(*args)


def points_left_shown(html: str) -> list[float]:
    """The review's « Points laissés », one a player, in seat order (French: « 2,5 »)."""
    table = html.split('id="precision-title"', 1)[1].split("</table>", 1)[0]
    return [float(value.replace(",", ".")) for value in re.findall(r"<td>(\d+,\d)</td>", table)]


def test_the_last_turn_answers_first_and_the_coach_counts_the_game_after_it(
    app, store, table, shared_tables
):
    copy_tables(shared_tables, app.instance_path)
    held = HeldWorkers()
    coach = app.extensions[COACH_EXTENSION] = Coach(store, app.instance_path, held)
    game_id = table.new_game(["Mag", "Alix"])

    for seq, entry in enumerate(duo_document("Mag", "Alix")["entries"]):
        dice = "".join(str(die) for die in entry["dice"])
        response = table.play(game_id, seq, dice, f"free:{entry['box']}")
        assert response.status_code == 303

    # The last turn has answered, and the coach is not asked before its answer is sent
    # (which closes it, as a server does); then its review runs in the coach's own thread.
    assert not held.started.is_set()
    response.close()
    assert held.started.wait(WAIT_SECONDS)
    assert held.threads == ["coach"]
    assert stored_figures(store) == {}
    held.release.set()
    assert coach.wait_idle(WAIT_SECONDS)
    figures = stored_figures(store)[game_id]
    assert_same(figures, recomputed(app, game_id, household=HOME_HOUSEHOLD))
    shown = points_left_shown(page(table.client, f"/games/{game_id}/review"))
    assert shown == [round(given_away, 1) for given_away, _turns, _best in figures]


def test_games_imported_through_the_page_are_counted_after_its_answer(
    app, store, client, shared_tables
):
    copy_tables(shared_tables, app.instance_path)
    upload = (io.BytesIO(json.dumps([duo_document("Mag", "Alix")]).encode()), "games.json")

    response = client.post(
        "/import-export/import",
        data={"file": upload, "csrf_token": csrf_token(client, "/import-export")},
        content_type="multipart/form-data",
    )

    assert response.status_code == 303
    coach = app.extensions[COACH_EXTENSION]
    assert coach.wait_idle(0)  # nothing asked before the answer is sent
    response.close()
    assert coach.wait_idle(WAIT_SECONDS)
    (game_id,) = stored_figures(store)
    assert_same(stored_figures(store)[game_id], recomputed(app, game_id, household=HOME_HOUSEHOLD))


def counted_games(store, name, values, household=HOME_HOUSEHOLD):
    """One-player classique games of ``name`` a day apart, each counted with the next of
    ``values``."""
    documents = [
        solo_document(name, finished_at=(START + timedelta(days=day)).isoformat())
        for day in range(len(values))
    ]
    ids = import_games(
        store,
        check_files([("games.json", json.dumps(documents))]),
        household=household,
        quotas=NO_QUOTAS,
    )
    for game_id, value in zip(ids, values, strict=True):
        version = game_version(store, game_id, household=household)
        figures = [SeatFigure(value, 13, 9)]
        assert record_coach_figures(store, game_id, version, figures, household=household)
    return ids


def player(store, name, household=HOME_HOUSEHOLD):
    return next(p for p in list_players(store, household=household) if p.name == name)


def test_a_player_s_page_charts_their_points_left_game_by_game_with_the_trend(client, store):
    counted_games(store, "Mag", [20.0, 16.0, 12.0, 8.0])
    mag = player(store, "Mag")

    html = page(client, f"/players/{mag.id}")

    chart = html.split('id="coach-title"', 1)[1].split("</section>", 1)[0]
    assert "Points laissés au Conseil par Mag, Classique" in chart
    assert chart.count("<circle") == 4
    assert "4 parties, de la plus ancienne à la plus récente." in chart
    assert "En moyenne 14,0 points laissés par partie." in chart
    assert "Tendance : de 20,0 à 8,0." in chart
    assert "pas encore comptée" not in chart

    english = client.get(f"/players/{mag.id}", headers={"Accept-Language": "en"})
    text = english.get_data(as_text=True)
    assert "Trend: from 20.0 to 8.0." in text


def test_games_not_counted_yet_are_said(client, store):
    counted_games(store, "Mag", [5.0])
    import_documents(store, solo_document("Mag"))

    html = page(client, f"/players/{player(store, 'Mag').id}")

    coach = html.split('id="coach-title"', 1)[1].split("</section>", 1)[0]
    assert "1 partie pas encore comptée" in coach
    assert coach.count("<circle") == 1


def test_rules_the_conseil_only_estimates_say_they_are_not_counted(client, store):
    triple = Rules.from_dict({"preset": "triple"})
    import_documents(store, random_document(triple, ["Mag"], random.Random(1)))
    key = rules_key(triple.to_dict())

    player_page = page(client, f"/players/{player(store, 'Mag').id}")
    fame = page(client, f"/hall-of-fame?rules={key}")

    said = "le Conseil n'est qu'estimé : les points laissés ne sont pas comptés"
    assert said in player_page and 'id="coach-chart-title"' not in player_page
    assert "pas compté pour ces règles : le Conseil n'y est qu'estimé" in fame


def test_the_hall_of_fame_names_the_most_precise_player_of_the_rule_set(client, store):
    counted_games(store, "Mag", [9.0, 7.0])
    counted_games(store, "Alix", [3.0, 5.0, 4.0])
    alix = player(store, "Alix")

    html = page(client, "/hall-of-fame")

    precise = html.split("Le plus précis", 1)[1].split("</dd>", 1)[0]
    assert f'href="/players/{alix.id}?rules=' in precise and "Alix" in precise
    assert "4,0 points laissés au Conseil par partie" in precise
    assert "3 parties sur les 5 dernières comptées" in precise


def test_before_any_game_is_counted_the_hall_of_fame_says_not_yet(client, store):
    import_documents(store, solo_document("Mag"))

    precise = page(client, "/hall-of-fame").split("Le plus précis", 1)[1].split("</dd>", 1)[0]

    assert "pas encore" in precise


@pytest.fixture
def hosted(instance_path, database_url):
    with app_on(instance_path, database_url, **HOSTED, COACH_AFTER_GAMES=True) as app:
        yield app


def test_another_household_sees_nothing_of_the_coach_s_figures(hosted):
    store = hosted.extensions[STORE_EXTENSION]
    ours = create_household(store, "Les A", passphrase_hash(PASSPHRASE))
    theirs = create_household(store, "Les B", passphrase_hash(PASSPHRASE))
    counted_games(store, "Aglaé", [2.0, 3.0], household=ours)
    counted_games(store, "Barnabé", [1.0], household=theirs)
    aglae = player(store, "Aglaé", household=ours)
    client = hosted.test_client()
    join_household(client, "Les B", PASSPHRASE)

    assert client.get(f"/players/{aglae.id}").status_code == 404
    fame = page(client, "/hall-of-fame")
    assert "Aglaé" not in fame and "Barnabé" in fame.split("Le plus précis", 1)[1]
