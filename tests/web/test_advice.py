"""The "Conseil" page and the review's précision, on the real optimal-strategy table.

The table is built once for the whole session (3 to 6 s on a quiet core), by the server's
own worker process: these tests check the advisor the web shows against the published start
value of the classique game.
"""

import re
import shutil
import time
from collections import Counter
from html import unescape
from itertools import product
from pathlib import Path

import pytest
from babel.numbers import format_decimal, format_percent

from scorekeeper.advisor.builds import Strategies
from scorekeeper.advisor.maxi import MaxiStrategy
from scorekeeper.advisor.maxi_simulation import play
from scorekeeper.advisor.review import review_game
from scorekeeper.advisor.strategy import load_or_build
from scorekeeper.advisor.tables import CACHE_GLOB, cache_path, quality_figures, spreads_path
from scorekeeper.advisor.turn import ROLLS
from scorekeeper.play import load, play_turn, start_game
from scorekeeper.rules import BOX_LABELS, COLUMN_LABELS, GameState, Rules
from scorekeeper.rules.options import OPTIONS, PRESETS, SEC
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.web.advice import KEEPS_SHOWN
from scorekeeper.web.conseil import ADVISOR_EXTENSION
from tests.support.build_workers import RELEASE, held_half_way
from tests.support.games import PLAIN_DICE
from tests.support.threads import WAIT_SECONDS


@pytest.fixture(scope="session")
def classique_table(shared_tables):
    """The classique table, built by the server's own worker process, beside its spreads and
    the tables of advisor_tables.MORE_RULES: once for the whole run."""
    strategies = Strategies(str(shared_tables))
    assert strategies.chances(Rules()) is not None
    assert round(strategies.get(Rules()).start_value, 4) == 254.5877
    return cache_path(Rules(), shared_tables)


@pytest.fixture
def with_table(classique_table, app):
    """The classique table and its spreads in the app's instance folder."""
    shutil.copy(classique_table, cache_path(Rules(), app.instance_path))
    shutil.copy(spreads_path(Rules(), classique_table.parent), app.instance_path)


@pytest.fixture
def with_tables(classique_table, app):
    """Every shared table in the app's instance folder: the classique one, its spreads, and
    those of advisor_tables.MORE_RULES."""
    for path in classique_table.parent.glob(CACHE_GLOB):
        shutil.copy(path, Path(app.instance_path) / path.name)


def _state(app, game_id):
    return load(app.extensions["scorekeeper.store"], game_id, household=HOME_HOUSEHOLD)[1]


def _rows(page):
    """Each row of the page's table: its first cell and the others, as text."""
    rows = re.findall(r"<tr[^>]*>\s*<th scope=\"row\">(.*?)</th>(.*?)</tr>", page, re.S)
    return [
        (unescape(head), [unescape(cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", rest)])
        for head, rest in rows
    ]


def _verdict(page):
    return unescape(re.search(r'<p class="advice-verdict">(.*?)</p>', page, re.S).group(1))


def _total(value):
    return f"{value:.1f}".replace(".", ",")


def test_advice_ranks_every_allowed_box(table, app, with_table):
    game_id = table.new_game(["Mag", "Alix"])
    table.play(game_id, 0, "66662", "free:sixes")
    response = table.client.get(f"/games/{game_id}/advice?dice=66653")
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    ranked = load_or_build(Rules(), app.instance_path).advise(_state(app, game_id), "66653")
    # First what to do, with the points it scores now, then every free box.
    assert _verdict(page) == f"Mets {ranked[0].points} en {BOX_LABELS[ranked[0].box]}."
    assert page.index("advice-verdict") < page.index("<table")
    # The figures of the Conseil (the chance to win follows: tests below).
    assert [(head, cells[:3]) for head, cells in _rows(page)] == [
        (
            BOX_LABELS[item.box],
            [
                str(item.points),
                _total(item.expected_total),
                "" if number == 0 else "−" + _total(ranked[0].expected_total - item.expected_total),
            ],
        )
        for number, item in enumerate(ranked)
    ]
    assert len(ranked) == 13 and {"yams": 0, "sixes": 18} == {
        item.box: item.points for item in ranked if item.box in ("yams", "sixes")
    }
    totals = [item.expected_total for item in ranked]
    assert totals == sorted(totals, reverse=True) and totals[0] > totals[-1]
    assert "Pour Alix, qui a la main, avec les dés 66653 du 3e lancer." in page
    assert "Conseil exact : la meilleure stratégie en solitaire." in page


def test_advice_refuses_bad_dice_and_says_why_when_the_game_is_over(table, with_table):
    game_id = table.new_game(["Mag"])
    response = table.client.get(f"/games/{game_id}/advice?dice=6665")
    assert response.status_code == 422
    assert "Pas assez de dés : il en faut 5, pas 4." in response.get_data(as_text=True)
    for seq, box in enumerate(Rules().boxes):
        table.play(game_id, seq, "12346", f"free:{box}", confirm=True)
    response = table.client.get(f"/games/{game_id}/advice?dice=66653")
    page = unescape(response.get_data(as_text=True))
    assert response.status_code == 422
    assert "La partie est terminée : il n'y a plus rien à conseiller." in page
    assert "advice-verdict" not in page
    assert table.client.get("/games/999/advice?dice=66653").status_code == 404


def test_advice_shows_the_build_filling_then_the_advice(table, app, classique_table):
    app.extensions[ADVISOR_EXTENSION] = Strategies(app.instance_path, worker=held_half_way)
    game_id = table.new_game(["Mag"])
    response = table.client.get(f"/games/{game_id}/advice?dice=66653&throw=1")
    page = response.get_data(as_text=True)
    assert response.status_code == 503 and response.headers["Retry-After"] == "2"
    assert "Le conseil se prépare" in page and "<progress" in page
    assert '<noscript><meta http-equiv="refresh" content="2"></noscript>' in page
    assert "js/advice.js" in page
    # The build process's start, and later its end, in the time a busy machine gives them.
    deadline = time.monotonic() + WAIT_SECONDS
    while (progress := table.client.get(f"/games/{game_id}/advice/progress").json)[
        "progress"
    ] != 0.5:
        assert time.monotonic() < deadline and not progress["ready"]
        time.sleep(0.05)
    page = table.client.get(f"/games/{game_id}/advice?dice=66653").get_data(as_text=True)
    assert 'value="50"' in page and "50 %" in page
    aside = Path(app.instance_path) / "release.tmp"  # renamed: the worker reads it whole
    aside.write_text(str(classique_table))
    aside.replace(Path(app.instance_path) / RELEASE)
    while not (progress := table.client.get(f"/games/{game_id}/advice/progress").json)["ready"]:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert progress["progress"] == 1.0
    response = table.client.get(f"/games/{game_id}/advice?dice=66653&throw=1")
    assert response.status_code == 200 and "garder 6 6 6" in response.get_data(as_text=True)


def test_advice_after_the_first_throw_lists_the_best_keeps(table, app, with_table):
    game_id = table.new_game(["Mag"])
    response = table.client.get(f"/games/{game_id}/advice?dice=52551&throw=1")
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    state = load(app.extensions["scorekeeper.store"], game_id, household=HOME_HOUSEHOLD)[1]
    keeps = load_or_build(Rules(), app.instance_path).advise_keeps(state, "52551", 1)
    assert keeps[0].keep == (5, 5, 5)
    assert _verdict(page) == "Garde 5 5 5 et relance deux dés."
    assert _rows(page) == [
        (
            ("garder " + " ".join(map(str, item.keep))) if item.keep else "tout relancer",
            [
                _total(item.expected_total),
                "" if number == 0 else "−" + _total(keeps[0].expected_total - item.expected_total),
            ],
        )
        for number, item in enumerate(keeps[:3])
    ]
    # The three fives stand out in the tray, in the order typed; the 2 and the 1 do not.
    marks = re.findall(r'<span class="advice-die( kept)?"><span class="die face-(\d)', page)
    assert marks == [(" kept", "5"), ("", "2"), (" kept", "5"), (" kept", "5"), ("", "1")]
    assert 'aria-current="page">1er lancer' in page


def test_advice_in_english_after_the_second_throw(table, app, with_table):
    game_id = table.new_game(["Mag"])
    page = table.client.get(
        f"/games/{game_id}/advice?dice=66666&throw=2", headers={"Accept-Language": "en"}
    ).get_data(as_text=True)
    assert "Keep them all and score " in page and "2nd throw" in page


def test_best_first_keep_of_a_fresh_sheet_averages_to_the_published_value(classique_table):
    # The keep advice and the solver agree on the whole first turn: averaged over every
    # first roll, the best keep's total is the table's value of a fresh sheet.
    strategy = load_or_build(Rules(), classique_table.parent)
    state = GameState.start(Rules(), ["Solo"])
    chances = Counter(tuple(sorted(throw)) for throw in product(range(1, 7), repeat=5))
    average = (
        sum(
            chances[roll] * strategy.advise_keeps(state, roll, 1)[0].expected_total
            for roll in ROLLS
        )
        / 6**5
    )
    assert average == pytest.approx(strategy.start_value, abs=1e-9)
    assert round(average, 4) == 254.5877


def test_advice_refuses_a_bad_throw(table, with_table):
    game_id = table.new_game(["Mag"])
    response = table.client.get(f"/games/{game_id}/advice?dice=66653&throw=4")
    assert response.status_code == 422
    assert "n&#39;est pas un lancer : choisissez 1, 2 ou 3" in response.get_data(as_text=True)


def test_review_shows_precision_per_player(table, app, with_table):
    game_id = table.new_game(["Mag"])
    turns = [
        ("66662", "sixes"),
        ("55553", "fives"),
        ("44441", "fours"),
        ("33361", "threes"),
        ("22216", "twos"),
        ("11156", "ones"),
        ("66655", "three_kind"),
        ("55552", "four_kind"),
        ("22233", "full_house"),
        ("12346", "small_straight"),
        ("23456", "large_straight"),
        ("44444", "yams"),
        ("66543", "chance"),
    ]
    for seq, (dice, box) in enumerate(turns):
        table.play(game_id, seq, dice, f"free:{box}")
    page = table.client.get(f"/games/{game_id}/review").get_data(as_text=True)
    assert "Précision" in page and "meilleur choix" in page
    assert "Points laissés" in page


def test_review_counts_points_given_away(table, app, with_table):
    game_id = table.new_game(["Mag"])
    # Five sixes written in Chance while the Yams box is free gives away a lot.
    table.play(game_id, 0, "66666", "free:chance")
    for seq, box in enumerate([box for box in Rules().boxes if box != "chance"], start=1):
        table.play(game_id, seq, "12346", f"free:{box}", confirm=True)
    page = table.client.get(f"/games/{game_id}/review").get_data(as_text=True)
    # The points given away and the précision in the page's language's forms (Flask-Babel).
    assert re.search(r"mieux : Yams, \d+,\d points laissés", page)
    assert re.search(r"<td>\d+[\u00a0\u202f]%</td>", page)  # CLDR's space, not a typed one


def test_the_sheet_asks_for_advice_with_the_throw(table):
    game_id = table.new_game(["Mag"])
    sheet = table.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert 'name="advice"' in sheet
    # The throw the dice come from: one tap, the 3rd unless changed.
    assert re.findall(r'name="throw" value="(\d)"( checked)?', sheet) == [
        ("1", ""),
        ("2", ""),
        ("3", " checked"),
    ]
    response = table.entry_form(game_id, 0, dice="66653", advice="Conseil")
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"/games/{game_id}/advice?dice=66653")
    response = table.entry_form(game_id, 0, dice="66653", throw="2", advice="Conseil")
    assert response.headers["Location"].endswith(f"/games/{game_id}/advice?dice=66653&throw=2")


class RecordedStrategies(Strategies):
    """No table, and every build asked for recorded instead of run; Maxi Yatzy's policy,
    which has no table, as the app has it."""

    def __init__(self, instance_path):
        super().__init__(instance_path)
        self.asked = []

    def get(self, rules):
        return super().get(rules) if rules.saves_throws else None

    def build(self, rules, *, household, with_chances=True, ahead=False):
        self.asked.append(rules)
        return True


def new_game_choices():
    """Every preset, with and without Sec, with every value of each option that changes the
    state of the game (the others, which only change scores, take each of their values in
    turn): the form data, as the new-game form sends it."""
    changing = [option for option in OPTIONS if not option.scores_only]
    scoring = [option for option in OPTIONS if option.scores_only]
    number = 0
    for preset in PRESETS:
        mine = [option for option in changing if option.applies_to(preset)]
        # Generala and Maxi Yatzy are played on their one free column: no Sec.
        sec = (False,) if preset in ("generala", "maxi_yatzy") else (False, True)
        for values in product(sec, *(option.values for option in mine)):
            chosen = {SEC.name: values[0]} | {
                option.name: value for option, value in zip(mine, values[1:], strict=True)
            }
            for option in scoring:
                if option.applies_to(preset):
                    chosen[option.name] = option.values[number % len(option.values)]
            number += 1
            yield {"preset": preset} | {
                name: ("y" if value is True else value if value is False else str(value))
                for name, value in chosen.items()
            }


def test_every_game_the_new_game_form_can_start_gets_the_conseil(table, app):
    strategies = RecordedStrategies(app.instance_path)
    app.extensions[ADVISOR_EXTENSION] = strategies
    seen = set()
    for data in new_game_choices():
        game_id = table.new_game(["Mag", "Alix"], **data)
        rules = _state(app, game_id).rules
        seen.add(rules)
        sheet = table.client.get(f"/games/{game_id}").get_data(as_text=True)
        assert 'name="advice"' in sheet and 'name="throw"' in sheet, data
        dice = "6" * rules.dice
        for throw in (1, 2, 3):
            response = table.client.get(f"/games/{game_id}/advice?dice={dice}&throw={throw}")
            page = response.get_data(as_text=True)
            if rules.saves_throws:
                # Maxi Yatzy's policy has no table: the advice at once, nothing built.
                assert response.status_code == 200 and "advice-verdict" in page, data
                assert rules not in strategies.asked
                continue
            # The tables are asked for, and the page shows the build, not a refusal.
            assert response.status_code == 503 and "Le conseil se prépare" in page, data
            assert strategies.asked[-1] == rules
    # Every preset, Sec, la vache, Plus et Moins, six dice and each scoring value were met.
    assert {rules.preset for rules in seen} == set(PRESETS) - {"triple"} | {"classique"}
    assert {rules.columns for rules in seen} >= {
        ("free",),
        ("free", "sec"),
        ("down", "up", "free"),
        ("down", "up", "free", "sec"),
    }
    for option in OPTIONS:
        assert {getattr(rules, option.name) for rules in seen} == set(option.values)


@pytest.mark.parametrize(
    ("options", "players", "dice", "quality"),
    [
        (
            {"vache": "y"},
            ["Mag", "Alix"],
            "66653",
            "Conseil exact pour ce tour, planchers de la vache compris",
        ),
        ({"preset": "triple"}, ["Mag"], "66653", "Conseil estimé : chaque colonne jouée au mieux"),
        ({"dice": "6"}, ["Mag"], "666532", "Conseil exact : la meilleure stratégie"),
        ({"sec": "y"}, ["Mag"], "66653", "Conseil estimé : chaque colonne jouée au mieux"),
    ],
)
def test_advice_for_every_kind_of_rule_set(
    table, app, with_tables, options, players, dice, quality
):
    game_id = table.new_game(players, **options)
    if len(players) > 1:  # la vache: Mag's 24 in Sixes bars Alix's 18 there
        table.play(game_id, 0, "66664", "free:sixes")
    state = _state(app, game_id)
    strategy = load_or_build(state.rules, app.instance_path)
    several = len(state.rules.columns) > 1

    def box(item):
        name = BOX_LABELS[item.box]
        return f"{name} ({COLUMN_LABELS[item.column]})" if several else name

    page = table.client.get(f"/games/{game_id}/advice?dice={dice}").get_data(as_text=True)
    ranked = strategy.advise(state, dice, 3)
    assert _verdict(page) == f"Mets {ranked[0].points} en {box(ranked[0])}."
    # The Conseil's figures, without the chance to win that a game of several players
    # with one free column gets last (tests below).
    chances = "Chance de gagner" in page
    shown = [(head, cells[:-1] if chances else cells) for head, cells in _rows(page)]
    assert chances == (len(players) > 1 and not several)
    assert [row[0] for row in shown] == [BOX_LABELS[item.box] for item in ranked]
    assert [row[1][-3:-1] for row in shown] == [
        [str(item.points), _total(item.expected_total)] for item in ranked
    ]
    if several:
        assert [row[1][0] for row in shown] == [COLUMN_LABELS[item.column] for item in ranked]
    assert "sec" not in {item.column for item in ranked}  # Sec takes the 1st throw's dice
    assert quality in unescape(page)
    if len(players) > 1:
        assert {item.box: item.points for item in ranked}["sixes"] == 0

    page = table.client.get(f"/games/{game_id}/advice?dice={dice}&throw=1").get_data(as_text=True)
    keeps = strategy.advise_keeps(state, dice, 1)
    best = keeps[0]
    if len(best.keep) == len(dice):
        now = strategy.advise(state, dice, 1)[0]
        assert _verdict(page) == f"Garde tout et mets {now.points} en {box(now)}."
    else:
        assert _verdict(page).startswith(f"Garde {' '.join(map(str, best.keep))} et relance ")
    assert list(best.keep) == sorted(best.keep)
    assert [row[1][0] for row in _rows(page)] == [_total(item.expected_total) for item in keeps[:3]]
    assert quality in unescape(page)


def test_review_without_the_table_says_how_to_get_it_and_builds_nothing(table, app):
    game_id = table.new_game(["Mag"])
    for seq, box in enumerate(Rules().boxes):
        table.play(game_id, seq, "12346", f"free:{box}", confirm=True)
    page = table.client.get(f"/games/{game_id}/review").get_data(as_text=True)
    assert "une fois la table de conseil calculée" in page
    assert not app.extensions[ADVISOR_EXTENSION].building


# -- « Pour gagner » -------------------------------------------------------------------------


def _play_boxes(table, game_id, seq, boxes):
    """Each of ``boxes`` in turn, with its plain dice; the next sequence number."""
    for box in boxes:
        response = table.play(game_id, seq, PLAIN_DICE[box], f"free:{box}", confirm=True)
        assert response.status_code == 303, response.get_data(as_text=True)
        seq += 1
    return seq


def _end_game(table):
    """Alix and Mag on the same total (33), Alix with Chance left, Mag with Chance and Yams
    and to play: the end game is solved exactly."""
    game_id = table.new_game(["Alix", "Mag"])
    common = [box for box in Rules().boxes if box not in ("chance", "yams")]
    seq = _play_boxes(table, game_id, 0, [box for box in common for _ in range(2)])
    _play_boxes(table, game_id, seq, ["yams"])
    return game_id


def _percent(share):
    return format_percent(share, locale="fr")


def _chance_text(chance):
    """A chance as the page writes it in French: its share, and the chance of a tie."""
    tie = f" ex æquo : {_percent(chance.tie)}" if chance.tie >= 0.005 else ""
    return _percent(chance.share) + tie


def _chance_cells(page):
    return [
        unescape(re.sub(r"<[^>]+>", "", cell)).strip()
        for cell in re.findall(r'<td class="num chance">(.*?)</td>', page, re.S)
    ]


def test_each_keep_shows_its_chance_to_win_and_one_tap_ranks_them_to_win(table, app, with_table):
    game_id = _end_game(table)
    state = _state(app, game_id)
    chances = app.extensions[ADVISOR_EXTENSION].chances(Rules())
    advice = chances.advise(state, "66653", 1)
    assert advice.exact
    share = {option.keep: option.chance.share for option in advice.options}
    chance_of = {option.keep: option.chance for option in advice.options}
    # Level with Alix: Mag keeps the 5 too, for a Chance that beats hers, Yams or not.
    assert advice.options[0].keep == (5, 6, 6, 6) and advice.for_best_score.keep == (6, 6, 6)
    assert share[(5, 6, 6, 6)] - share[(6, 6, 6)] > 0.05

    page = table.client.get(f"/games/{game_id}/advice?dice=66653&throw=1").get_data(as_text=True)
    assert _verdict(page) == "Garde 6 6 6 et relance deux dés."
    assert unescape(re.search(r'<p class="advice-other">(.*?)</p>', page, re.S).group(1)) == (
        f"Pour gagner, garde plutôt 5 6 6 6 : {_percent(share[(5, 6, 6, 6)])} au lieu de "
        f"{_percent(share[(6, 6, 6)])}."
    )
    kept = [tuple(int(face) for face in head.split()[1:]) for head, _ in _rows(page)]
    assert _chance_cells(page) == [_chance_text(chance_of[keep]) for keep in kept]
    assert "Chances de gagner exactes" in page
    assert 'aria-current="page">Pour le meilleur score<' in page

    to_win = table.client.get(f"/games/{game_id}/advice?dice=66653&throw=1&mode=win")
    page = to_win.get_data(as_text=True)
    assert to_win.status_code == 200 and 'aria-current="page">Pour gagner<' in page
    assert _verdict(page) == "Garde 5 6 6 6 et relance un dé."
    totals = {option.keep: option.expected_total for option in advice.options}
    assert unescape(re.search(r'<p class="advice-other">(.*?)</p>', page, re.S).group(1)) == (
        f"Pour le meilleur score, garde plutôt 6 6 6 : {_total(totals[(6, 6, 6)])} points "
        f"espérés au lieu de {_total(totals[(5, 6, 6, 6)])}."
    )
    shown = _chance_cells(page)
    assert shown[0] == _chance_text(chance_of[(5, 6, 6, 6)]) and len(shown) == KEEPS_SHOWN
    # The other throws keep the mode.
    assert f"/games/{game_id}/advice?dice=66653&amp;throw=2&amp;mode=win" in page


def test_each_box_shows_its_estimated_chance_in_french_and_english(table, app, with_table):
    game_id = table.new_game(["Mag", "Alix", "Zoé"])
    _play_boxes(table, game_id, 0, ["sixes", "fives", "chance"])
    state = _state(app, game_id)
    chances = app.extensions[ADVISOR_EXTENSION].chances(Rules())
    advice = chances.advise(state, "66653", 3)
    assert not advice.exact
    share = {option.box: option.chance.share for option in advice.options}
    chance_of = {option.box: option.chance for option in advice.options}
    assert sum(chance.share for chance in chances.standings(state)) == pytest.approx(1)

    page = table.client.get(f"/games/{game_id}/advice?dice=66653").get_data(as_text=True)
    names = {label: box for box, label in BOX_LABELS.items()}
    assert _chance_cells(page) == [_chance_text(chance_of[names[head]]) for head, _ in _rows(page)]
    assert "Chances de gagner estimées" in page
    page = table.client.get(f"/games/{game_id}/advice?dice=66653&mode=win").get_data(as_text=True)
    ranked = [share[names[head]] for head, _ in _rows(page)]
    assert ranked == sorted(ranked, reverse=True) and len(ranked) == 12

    english = table.client.get(
        f"/games/{game_id}/advice?dice=66653&mode=win", headers={"Accept-Language": "en"}
    ).get_data(as_text=True)
    assert "Chance to win" in english and "To win" in english and "For the best score" in english
    assert "Estimated chances to win" in english


def test_games_without_chances_say_so_or_nothing(table, app, with_tables):
    triple = table.new_game(["Mag", "Alix"], preset="triple")
    page = table.client.get(f"/games/{triple}/advice?dice=66653").get_data(as_text=True)
    assert "« Pour gagner » n'est calculé que pour une seule colonne libre" in unescape(page)
    assert "Chance de gagner" not in page and "mode-choice" not in page
    alone = table.new_game(["Mag"])
    page = table.client.get(f"/games/{alone}/advice?dice=66653").get_data(as_text=True)
    assert "Pour gagner" not in unescape(page) and "Chance de gagner" not in page


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("fr", "« best » n'est pas une façon de classer : choisissez score ou win."),
        ("en", "“best” is not a way to rank: choose score or win."),
    ],
)
def test_advice_refuses_a_bad_mode(table, with_table, lang, message):
    game_id = table.new_game(["Mag", "Alix"])
    response = table.client.get(
        f"/games/{game_id}/advice?dice=66653&mode=best", headers={"Accept-Language": lang}
    )
    assert response.status_code == 422
    assert message in unescape(response.get_data(as_text=True))


def test_review_draws_each_player_s_chance_to_win_after_each_entry(table, app, with_table):
    game_id = table.new_game(["Alix", "Mag"])
    boxes = list(Rules().boxes)
    seq = 0
    for box in boxes:
        seq = _play_boxes(table, game_id, seq, [box])  # Alix: 15 + 18 + 27
        response = table.play(game_id, seq, "11226", f"free:{box}", confirm=True)  # Mag
        assert response.status_code == 303
        seq += 1
    state = _state(app, game_id)
    assert state.is_over and [sheet.total for sheet in state.sheets] == [61, 24]
    series = app.extensions[ADVISOR_EXTENSION].chances(Rules()).review(state)
    page = unescape(table.client.get(f"/games/{game_id}/review").get_data(as_text=True))
    charts = re.findall(r'<svg role="img".*?</svg>', page, re.S)
    assert len(charts) == 2
    for player, (name, chart) in enumerate(zip(["Alix", "Mag"], charts, strict=True)):
        assert (
            f'<title id="chance-title-{player + 1}">Chance de gagner de {name}, entrée '
            "par entrée</title>" in chart
        )
        points = re.search(r'<polyline points="([^"]+)"', chart).group(1).split()
        assert len(points) == len(state.entries) + 1
        # The line's height is the share: 100 % at the top (y 12), 0 % at the bottom (y 104).
        heights = [float(point.split(",")[1]) for point in points]
        assert heights == pytest.approx(
            [104 - 92 * position[player].share for position in series], abs=0.051
        )
        assert "<desc" in chart and "Le tournant : l'entrée" in chart
    assert heights[-1] == 104.0  # Mag lost
    # The same figures as a table, one row per position.
    rows = re.findall(r"<tr><th scope=\"row\">(.*?)</th>(.*?)</tr>", page.split("chances-table")[1])
    assert len(rows) == len(state.entries) + 1
    assert [cell.strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", rows[-1][1])] == [
        _percent(1),
        _percent(0),
    ]


def test_review_without_spreads_says_the_chart_will_come(table, app, classique_table):
    shutil.copy(classique_table, cache_path(Rules(), app.instance_path))
    game_id = table.new_game(["Alix", "Mag"])
    seq = 0
    for box in Rules().boxes:
        seq = _play_boxes(table, game_id, seq, [box, box])
    page = unescape(table.client.get(f"/games/{game_id}/review").get_data(as_text=True))
    assert "La courbe des chances de gagner apparaîtra ici" in page
    assert "<polyline" not in page
    assert not app.extensions[ADVISOR_EXTENSION].building


def _maxi_game(app, saved_by_one_throw):
    """A Maxi Yatzy game of Mag, her first boxes played in one throw each (two saved)."""
    store = app.extensions["scorekeeper.store"]
    rules = Rules.from_dict({"preset": "maxi_yatzy"})
    game_id = start_game(store, rules, ["Mag"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    for seq, box in enumerate(rules.boxes[:saved_by_one_throw]):
        play_turn(store, game_id, seq, "free", box, "123456", household=HOME_HOUSEHOLD, throws=1)
    return game_id


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("fr", ("Conseil estimé : chaque tour joué au mieux", "Mag a 7 lancers en main")),
        ("en", ("Estimated advice: each turn played at its best", "Mag has 7 throws at hand")),
    ],
)
def test_maxi_yatzy_advice_keeps_boxes_and_saved_throws(table, app, lang, words):
    # No table to build: the policy answers at once, with the throws saved said, up to the
    # turn's 3 + 4 saved, the figures of its quality line in the reader's forms.
    game_id = _maxi_game(app, 2)
    table.client.set_cookie("lang", lang)
    state = _state(app, game_id)
    assert state.throws_at_hand(0) == 7
    strategy = MaxiStrategy(state.rules)
    response = table.client.get(f"/games/{game_id}/advice?dice=666666&throw=1")
    page = unescape(response.get_data(as_text=True))
    assert response.status_code == 200
    for word in words:
        assert word in page
    figures = quality_figures(state.rules)
    assert format_decimal(figures["games"], format="#,##0", locale=lang) in page
    assert format_decimal(figures["bound"], format="#,##0.0", locale=lang) in page
    assert "throw=7" in page and "throw=8" not in page
    best = strategy.advise_keeps(state, "666666", 1)[0]
    assert best.keep == (6,) * 6  # stop: score now, save six throws
    box = strategy.advise(state, "666666", 1)[0]
    if lang == "fr":
        assert _verdict(page) == (
            f"Arrête-toi : mets {box.points} en {state.rules.box_labels[box.box]} et garde "
            "tes 6 lancers restants pour la suite."
        )
    response = table.client.get(f"/games/{game_id}/advice?dice=123356&throw=7")
    ranked = strategy.advise(state, "123356", 7)
    rows = _rows(unescape(response.get_data(as_text=True)))
    assert [row[1][0] for row in rows] == [str(item.points) for item in ranked]
    response = table.client.get(f"/games/{game_id}/advice?dice=123356&throw=8")
    assert response.status_code == 422


def test_a_finished_maxi_yatzy_game_is_reviewed_by_the_policy(table, app):
    # A game the policy played, replayed through the app with the throws each turn used:
    # its review judges every turn, the policy's own choices all best.
    rules = Rules.from_dict({"preset": "maxi_yatzy"})
    log = play(MaxiStrategy(rules).model, 1, seed=11, logged=1).logs[0]
    store = app.extensions["scorekeeper.store"]
    game_id = start_game(store, rules, ["Mag"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    for seq, (box, dice, throws) in enumerate(log):
        play_turn(
            store,
            game_id,
            seq,
            "free",
            rules.boxes[box],
            "".join(map(str, dice)),
            household=HOME_HOUSEHOLD,
            throws=throws,
        )
    _turns, players = review_game(MaxiStrategy(rules), _state(app, game_id))
    assert (players[0].turns, players[0].best_turns) == (20, 20)
    page = unescape(table.client.get(f"/games/{game_id}/review").get_data(as_text=True))
    assert "Précision" in page and "Points laissés" in page
