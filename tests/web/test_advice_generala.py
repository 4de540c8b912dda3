"""« Pour gagner » at Generala through the web: the chances beside each keep and box, the
servida's instant win among them, estimated early and exact at the end
(docs/advisor-winning.md, « Generala »). Generala's table and spreads build in a second:
the real ones, in the app's instance folder."""

import re
from html import unescape

import pytest
from babel.numbers import format_percent

from scorekeeper.advisor.spreads import load_or_build_spreads
from scorekeeper.advisor.strategy import load_or_build
from scorekeeper.play import load
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.web.conseil import ADVISOR_EXTENSION

GENERALA = Rules.from_dict({"preset": "generala"})
NOT_ALIKE = "12346"


@pytest.fixture
def generala_tables(app):
    strategy = load_or_build(GENERALA, app.instance_path)
    load_or_build_spreads(GENERALA, strategy.tables["free"], app.instance_path)


def _state(app, game_id):
    return load(app.extensions["scorekeeper.store"], game_id, household=HOME_HOUSEHOLD)[1]


def _chance_cells(page):
    return [
        unescape(re.sub(r"<[^>]+>", "", cell)).strip()
        for cell in re.findall(r'<td class="num chance">(.*?)</td>', page, re.S)
    ]


def _kept(page, dice):
    """The keep of each row: « garder 4 4 4 4 », « tout garder et marquer » (all the dice),
    or nothing."""
    heads = re.findall(r"<tr[^>]*>\s*<th scope=\"row\">(.*?)</th>", page, re.S)
    return [
        tuple(sorted(dice))
        if "tout" in head
        else tuple(int(face) for face in re.findall(r"\d", head))
        for head in heads
    ]


def _words(chance):
    """A chance as the page writes it in French: no rounded certainty, and the chance of a
    tie from half a point."""
    if 0 < chance.share < 0.005:
        return "< 1 %"
    if 0.995 <= chance.share < 1:
        return "> 99 %"
    tie = f" ex æquo : {format_percent(chance.tie, locale='fr')}" if chance.tie >= 0.005 else ""
    return format_percent(chance.share, locale="fr") + tie


def _play(table, game_id, boxes):
    seq = 0
    for box in boxes:
        response = table.play(game_id, seq, NOT_ALIKE, f"free:{box}", confirm=True)
        assert response.status_code == 303, response.get_data(as_text=True)
        seq += 1


def test_a_two_player_generala_game_shows_its_chances_to_win(table, app, generala_tables):
    game_id = table.new_game(["Mag", "Alix"], preset="generala")
    _play(table, game_id, ["sixes", "fives"])
    state = _state(app, game_id)
    chances = app.extensions[ADVISOR_EXTENSION].chances(GENERALA)
    assert chances is not None
    assert sum(chance.share for chance in chances.standings(state)) == pytest.approx(1)
    advice = chances.advise(state, "44441", 1)
    assert not advice.exact
    chance_of = {option.keep: option.chance for option in advice.options}

    response = table.client.get(f"/games/{game_id}/advice?dice=44441&throw=1&mode=win")
    page = response.get_data(as_text=True)
    assert response.status_code == 200 and 'aria-current="page">Pour gagner<' in page
    assert "Chances de gagner estimées" in page
    shown = _chance_cells(page)
    assert shown and shown == [_words(chance_of[keep]) for keep in _kept(page, (4, 4, 4, 4, 1))]


def test_the_end_of_a_generala_game_is_exact_and_a_servida_wins_it(table, app, generala_tables):
    """Mag's Generala box is free, two boxes from the end: five alike on her first throw
    win the game at once, which keeping them all says; after the third throw they do not."""
    game_id = table.new_game(["Alix", "Mag"], preset="generala")
    boxes = [box for box in GENERALA.boxes if box not in ("generala", "double_generala")]
    _play(table, game_id, [box for box in boxes for _ in range(2)] + ["double_generala"])
    state = _state(app, game_id)
    assert state.active_player == 1
    page = table.client.get(f"/games/{game_id}/advice?dice=22222&throw=1&mode=win").get_data(
        as_text=True
    )
    assert "Chances de gagner exactes" in page
    # A certain win: the game ends on these dice.
    certain = format_percent(1, locale="fr")
    assert _kept(page, (2,) * 5)[0] == (2, 2, 2, 2, 2) and _chance_cells(page)[0] == certain
    assert "Garde tout et mets 50 en Generala." in unescape(page)
    chances = app.extensions[ADVISOR_EXTENSION].chances(GENERALA)
    later = {option.box: option.chance for option in chances.advise(state, "22222", 3).options}
    assert later["generala"].share < 0.99
    page = table.client.get(f"/games/{game_id}/advice?dice=22222&mode=win").get_data(as_text=True)
    assert certain not in _chance_cells(page)


def test_the_box_to_win_after_the_first_throw_scores_a_servida(table, app, generala_tables):
    """Alix is out of Mag's reach by points: only a Generala servida wins Mag the game. After
    the last throw her best chance is then the Fours (her Generala box left free for it);
    after the first, the Generala at once. The box the sentence names ranks by the chances
    of the dice scored on their own throw."""
    game_id = table.new_game(["Alix", "Mag"], preset="generala")
    alix = [
        ("generala", "22222"),  # 50, on no throw said: no win at once
        ("double_generala", "33333"),  # 100
        ("four_kind", "66665"),
        ("full_house", "66655"),
        ("straight", "12345"),
        ("sixes", "66612"),
        ("fives", "55512"),
        ("fours", "44412"),
        ("threes", "33312"),
        ("ones", "11123"),
    ]
    mag = ["ones", "twos", "threes", "fives", "sixes", "straight", "full_house", "four_kind"]
    mag.append("double_generala")  # barred: her Generala box is free
    entries = [alix[0]]  # in turn: Alix, Mag, Alix, ..., Alix, then Mag's to play
    for box, written in zip(mag, alix[1:], strict=True):
        entries += [(box, NOT_ALIKE), written]
    for seq, (box, dice) in enumerate(entries):
        response = table.play(game_id, seq, dice, f"free:{box}", confirm=True)
        assert response.status_code == 303, response.get_data(as_text=True)
    state = _state(app, game_id)
    alix_total, mag_total = (sheet.total for sheet in state.sheets)
    assert state.active_player == 1 and alix_total > mag_total + 50 + 20
    chances = app.extensions[ADVISOR_EXTENSION].chances(GENERALA)
    last = max(chances.advise(state, "44444", 3).options, key=lambda option: option.chance.share)
    assert last.box == "fours"

    page = unescape(
        table.client.get(f"/games/{game_id}/advice?dice=44444&throw=1&mode=win").get_data(
            as_text=True
        )
    )
    assert "Garde tout et mets 50 en Generala." in page
    assert "Generala servida : la partie est gagnée sur-le-champ." in page
