"""The hall of fame page: best totals per rule set, records, latest games, pages."""

import random
import re

import pytest

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.rules import Rules
from scorekeeper.rules.results import rules_key
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.lifecycle import abandon_game
from scorekeeper.web.rule_labels import rule_set_label
from testing.samples import random_document
from tests.support.forms import page, totals_shown
from tests.support.games import GAME, import_documents, solo_document


def play_the_flow_game(table):
    game_id = table.new_game(["Mag", "Alix"])
    seq = 0
    for turn in GAME:
        for dice, box in turn:
            assert table.play(game_id, seq, dice, f"free:{box}").status_code == 303
            seq += 1
    return game_id


def test_an_empty_hall_of_fame_says_how_it_fills(client):
    html = page(client, "/hall-of-fame")
    assert "Aucune partie terminée pour l'instant" in html


def test_a_game_played_at_the_table_enters_the_hall_of_fame(table):
    game_id = play_the_flow_game(table)

    html = page(table.client, "/hall-of-fame")

    assert totals_shown(html) == [413, 332]
    assert html.index("Alix") < html.index("Mag")
    assert f'href="/games/{game_id}/review"' in html
    assert 'href="/players/2"' in html
    assert "Plus gros total" in html and "413 points" in html
    assert "Le plus de Yams dans une partie" in html and "2 Yams" in html
    assert "Parties récentes" in html and "<strong>Alix 413</strong> · Mag 332" in html


def test_totals_are_grouped_by_rule_set_the_most_played_first(app, client):
    rng = random.Random(8)
    import_documents(
        app.extensions[STORE_EXTENSION],
        solo_document("Mag"),
        solo_document("Alix", bonus=False),
        random_document(Rules.from_dict({"preset": "triple"}), ["Bob"], rng),
        random_document(Rules.from_dict({"vache": True, "four_kind": "fixed40"}), ["Zoé"], rng),
    )

    html = page(client, "/hall-of-fame")
    assert "Meilleurs totaux · Classique</h2>" in html
    assert totals_shown(html) == [319, 221]
    assert "Triple" in html and "Classique · vache · Carré 40" in html

    key = rules_key({"preset": "triple"})
    html = page(client, f"/hall-of-fame?rules={key}")
    assert "Meilleurs totaux · Triple</h2>" in html
    assert len(totals_shown(html)) == 1 and "Bob" in html


def test_games_not_finished_stay_out(app, client, table):
    game_id = table.new_game(["Mag", "Alix"])
    table.play(game_id, 0, "66662", "free:sixes")
    abandoned = table.new_game(["Bob"])
    abandon_game(app.extensions[STORE_EXTENSION], abandoned, household=HOME_HOUSEHOLD)

    html = page(client, "/hall-of-fame")
    assert "Aucune partie terminée" in html
    assert f"/games/{game_id}/review" not in html and f"/games/{abandoned}/" not in html


def test_long_lists_come_in_pages(app, client):
    import_documents(
        app.extensions[STORE_EXTENSION],
        *(solo_document(f"Joueur {n}", finished_at=f"2024-01-{n + 1:02d}") for n in range(12)),
    )

    first = page(client, "/hall-of-fame")
    second = page(client, "/hall-of-fame?page=2")
    assert len(totals_shown(first)) == 10 and len(totals_shown(second)) == 2
    assert "Page 1 sur 2" in first and 'href="/hall-of-fame?page=2"' in first
    recent = page(client, "/hall-of-fame?recent=2")
    assert "Joueur 1 319" in recent and "Joueur 11 319" not in recent


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("page=0", "La page « 0 » n'existe pas : choisissez entre 1 et 1."),
        ("page=2", "La page « 2 » n'existe pas"),
        ("page=-1", "La page « -1 » n'existe pas"),
        ("page=deux", "La page « deux » n'existe pas"),
        ("recent=3", "La page « 3 » n'existe pas"),
        ("rules=nope", "Aucune partie terminée n'a été jouée avec ces règles."),
    ],
)
def test_bad_queries_get_a_french_404(app, client, query, message):
    import_documents(app.extensions[STORE_EXTENSION], solo_document("Mag"))
    assert message in page(client, f"/hall-of-fame?{query}", 404)


def test_an_unknown_rule_set_on_an_empty_hall_of_fame_is_a_404(client):
    page(client, "/hall-of-fame?rules=nope", 404)


def test_the_bonus_streak_record(app, client):
    import_documents(
        app.extensions[STORE_EXTENSION],
        *(solo_document("Mag", finished_at=f"2024-01-0{n}") for n in (1, 2, 3)),
        solo_document("Alix", bonus=False),
    )
    html = page(client, "/hall-of-fame")
    assert "Plus longue série de primes du haut" in html and "3 parties de suite" in html


@pytest.mark.parametrize(
    ("rules", "label"),
    [
        ({}, "Classique"),
        ({"preset": "triple"}, "Triple"),
        ({"preset": "triple", "columns": ["free", "down", "up", "sec"]}, "Triple · Sec"),
        ({"preset": "yatzy", "vache": True}, "Yatzy · vache"),
        ({"vache": True, "four_kind": "fixed40"}, "Classique · vache · Carré 40"),
        ({"columns": ["down"]}, "Classique · colonnes Descendante"),
        ({"columns": ["free", "down"]}, "Classique · colonnes Descendante, Libre"),
        (
            {"three_kind": "matching", "four_kind": "matching"},
            "Classique · Carré dés identiques · Brelan dés identiques",
        ),
        (
            {
                "three_kind": "base",
                "full_house": "base",
                "joker": "free",
                "yams_bonus": False,
                "plus_minus": True,
                "dice": 6,
                "four_kind": "base",
            },
            "Classique · Carré 20 + dés · Brelan 10 + dés · Full 10 + somme · joker libre · "
            "sans prime Yams · Plus et Moins · Yams 6",
        ),
    ],
)
def test_rule_set_labels(app, rules, label):
    with app.test_request_context():
        assert rule_set_label(Rules.from_dict(rules)) == label


def records_shown(html):
    """Each record's line as a reader sees it: its text, spaces folded."""
    section = html[html.index('id="records-title"') : html.index('id="recent-title"')]
    lines = re.findall(r"<dd[^>]*>(.*?)</dd>", section, re.S)
    return [" ".join(re.sub(r"<[^>]+>", "", line).split()) for line in lines]


def test_a_record_shared_names_every_player_who_holds_it(table):
    """The same game played twice, seats swapped: Alix and Mag each hold 413 points and
    2 Yams in one game; each is named once, with the game, the earliest first."""
    first = play_the_flow_game(table)
    second = table.new_game(["Alix", "Mag"])
    for seq, (dice, box) in enumerate(turn for pair in GAME for turn in pair):
        assert table.play(second, seq, dice, f"free:{box}").status_code == 303

    html = page(table.client, "/hall-of-fame")

    # The last line, the most precise player, is the coach's (tests/web/test_coach.py).
    total, yams, upper, streak, _most_precise = records_shown(html)
    assert re.fullmatch(r"413 points — Alix, .+ · Mag, .+", total), total
    assert re.fullmatch(r"2 Yams — Alix, .+ · Mag, .+", yams), yams
    assert re.fullmatch(r"78 points — Mag, .+ · Alix, .+", upper), upper
    # Both had the upper bonus in both games: the streak is both players' at the second.
    assert re.fullmatch(r"2 parties de suite — (Alix|Mag), .+ · (Alix|Mag), .+", streak), streak
    assert "Alix" in streak and "Mag" in streak
    section = html[html.index('id="records-title"') : html.index('id="recent-title"')]
    assert section.count(f'href="/games/{first}/review"') == 3
    assert section.count(f'href="/games/{second}/review"') == 3 + 2


def test_a_record_held_by_many_names_some_and_says_there_are_others(app, client):
    from scorekeeper.store.halloffame import RECORD_HOLDERS_NAMED

    names = [f"Joueur {number}" for number in range(RECORD_HOLDERS_NAMED + 1)]
    import_documents(app.extensions[STORE_EXTENSION], *map(solo_document, names))

    total, *_rest = records_shown(page(client, "/hall-of-fame"))

    named = re.findall(r"Joueur \d", total)
    assert len(named) == RECORD_HOLDERS_NAMED and len(set(named)) == RECORD_HOLDERS_NAMED
    assert total.endswith("· et d'autres")
