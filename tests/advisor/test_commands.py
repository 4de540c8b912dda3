"""``scorekeeper strategy`` and ``scorekeeper advise``, on the sub-game table (fake_build)."""

import io
import json

import pytest
from click.testing import CliRunner

from scorekeeper.advisor.solver import SheetIndex
from scorekeeper.advisor.spreads import build_spreads
from scorekeeper.advisor.strategy import Strategy, save_array
from scorekeeper.advisor.tables import cache_path, spreads_path
from scorekeeper.advisor.winning import WinChances
from scorekeeper.cli import advisor as commands
from scorekeeper.rules import Rules, read_document
from tests.advisor.helpers import END_GAME_FILLED

# The boxes of END_GAME_FILLED, with dice that score them.
OPENING = [
    ("ones", [1, 1, 1, 2, 3]),
    ("twos", [2, 2, 3, 4, 5]),
    ("full_house", [2, 2, 3, 3, 3]),
    ("small_straight", [1, 2, 3, 4, 6]),
    ("chance", [6, 6, 5, 5, 4]),
    ("three_kind", [4, 4, 4, 1, 2]),
]


def _document(players=("Mag",), turns=None, rules=None):
    turns = [(box, dice) for box, dice in OPENING for _ in players] if turns is None else turns
    entries = [
        {"player": players[number % len(players)], "box": box, "dice": dice}
        for number, (box, dice) in enumerate(turns)
    ]
    return {"rules": rules or {"preset": "classique"}, "players": list(players), "entries": entries}


def _run(command, *args):
    result = CliRunner().invoke(command, [str(arg) for arg in args])
    assert "Traceback" not in result.output
    return result


@pytest.fixture
def game_file(tmp_path):
    def write(document):
        path = tmp_path / "game.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        return path

    return write


def test_strategy_builds_once_quietly_off_a_terminal_then_loads(tmp_path, fake_build):
    first = _run(commands.strategy, "--instance", tmp_path)
    assert first.exit_code == 0, first.output
    assert first.stdout.splitlines()[-1] == "254.5000"
    assert first.stderr == ""  # CliRunner's stderr is not a terminal
    assert cache_path(Rules(), tmp_path).exists()

    second = _run(commands.strategy, "--instance", tmp_path, "--rules", '{"preset": "classique"}')
    assert second.exit_code == 0
    assert second.stdout.splitlines()[-1] == "254.5000"
    assert second.stderr == ""
    assert len(fake_build) == 1


def test_strategy_default_instance_and_rules(tmp_path, monkeypatch, fake_build):
    monkeypatch.setattr(commands, "default_instance", lambda: tmp_path / "default")
    result = _run(commands.strategy, "--rules", '{"joker": "free", "yams_bonus": false}')
    assert result.exit_code == 0, result.output
    assert fake_build == [Rules(joker="free", yams_bonus=False)]
    assert cache_path(fake_build[0], tmp_path / "default").exists()


def test_strategy_builds_every_column_of_the_rules(tmp_path, fake_build):
    # Triple: a table for each of its columns; the value printed is their sum.
    result = _run(commands.strategy, "--instance", tmp_path, "--rules", '{"preset": "triple"}')
    assert result.exit_code == 0, result.output
    assert len(fake_build) == 3
    lines = result.stdout.splitlines()
    assert lines[:3] == [
        f"Table : {cache_path(Rules.from_dict({'preset': 'triple'}), tmp_path, kind)}"
        for kind in ("down", "up", "free")
    ]
    assert lines[-1] == f"{3 * 254.5:.4f}"


@pytest.mark.parametrize(
    ("rules", "players", "quality"),
    [
        ({"preset": "triple", "columns": ["down", "up", "free", "sec"]}, 1, "Conseil estimé"),
        ({"vache": True}, 2, "Conseil exact pour ce tour, planchers de la vache compris"),
        ({"dice": 6, "columns": ["sec"]}, 1, "Conseil exact : la meilleure"),
    ],
)
def test_advise_answers_every_rule_set_and_says_how_exactly(
    tmp_path, game_file, fake_build, rules, players, quality
):
    document = _document(players=("Mag", "Alix")[:players], turns=[], rules=rules)
    state = read_document(document).replay()
    strategy = commands.load_or_build(state.rules, tmp_path)  # the command loads it
    dice = "6,6,6,6,5" + (",1" if state.rules.dice == 6 else "")
    result = _run(commands.advise, "--instance", tmp_path, game_file(document), "--dice", dice)
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith(quality)
    expected = strategy.advise(state, dice, 3)
    assert [
        (item["box"], item["column"], item["points"]) for item in json.loads(result.stdout)
    ] == [(item.box, item.column, item.points) for item in expected]
    # A Sec column takes the first throw's dice only: its boxes are offered on the 1st throw.
    offered = {item.column for item in expected}
    assert ("sec" in offered) == (state.rules.columns == ("sec",))


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ('{"preset": "poker"}', "Règles inconnues"),
        ('{"preset": ', "--rules n'est pas du JSON valide"),
    ],
)
def test_strategy_refuses_bad_rules_in_french(tmp_path, fake_build, rules, message):
    result = _run(commands.strategy, "--instance", tmp_path, "--rules", rules)
    assert result.exit_code == 2
    assert result.stderr.startswith("Erreur : ")
    assert message in result.stderr
    assert fake_build == []


def test_strategy_reports_an_instance_it_cannot_write(tmp_path, fake_build):
    (tmp_path / "file").write_text("")
    result = _run(commands.strategy, "--instance", tmp_path / "file" / "instance")
    assert result.exit_code == 2
    assert "Impossible d'écrire la table de stratégie" in result.stderr


def test_advise_prints_every_allowed_box_best_first(
    tmp_path, game_file, fake_build, end_game_table
):
    document = _document(players=("Mag", "Alix"))
    document["entries"].append({"player": "Mag", "box": "sixes", "dice": [6, 6, 6, 6, 1]})
    path = game_file(document)
    result = _run(commands.advise, "--instance", tmp_path, path, "--dice", "6,6,6,5,3")
    assert result.exit_code == 0, result.output
    advice = json.loads(result.stdout)
    state = read_document(document).replay()
    assert state.active_player == 1
    expected = Strategy(Rules(), {"free": end_game_table}).advise(state, (6, 6, 6, 5, 3))
    assert advice == [
        {
            "box": item.box,
            "column": "free",
            "points": item.points,
            "expected_total": round(item.expected_total, 4),
        }
        for item in expected
    ]
    points = {item["box"]: item["points"] for item in advice}
    assert points["sixes"] == 18 and points["yams"] == 0  # crossed out: points now beside the total
    assert result.stderr == "Conseil exact : la meilleure stratégie en solitaire.\n"
    assert {item["box"] for item in advice} == {
        "threes",
        "fours",
        "fives",
        "sixes",
        "four_kind",
        "large_straight",
        "yams",
    }


@pytest.mark.parametrize(
    ("change", "dice", "message"),
    [
        (lambda document: document, "6,6,6", "Pas assez de dés : il en faut 5, pas 3."),
        (lambda document: document, "6,6,6,5,9", "« 9 » n'est pas un dé"),
        (
            lambda document: document | {"entries": document["entries"] * 2},
            "66653",
            "Entrée n° 7 : La case As est déjà remplie.",
        ),
        (
            lambda document: _document(turns=[(box, [1, 2, 3, 4, 6]) for box in Rules().boxes]),
            "66653",
            "La partie est terminée",
        ),
        (lambda document: {"players": []}, "66653", "Une partie se joue de 1 à 10 joueurs"),
    ],
)
def test_advise_refuses_bad_input_in_french(tmp_path, game_file, fake_build, change, dice, message):
    path = game_file(change(_document()))
    result = _run(commands.advise, "--instance", tmp_path, path, "--dice", dice)
    assert result.exit_code == 2
    assert result.stderr.startswith("Erreur : ")
    assert message in result.stderr
    assert fake_build == []


def test_advise_refuses_unreadable_files_in_french(tmp_path, fake_build):
    missing = _run(
        commands.advise, "--instance", tmp_path, tmp_path / "nope.json", "--dice", "66653"
    )
    assert missing.exit_code == 2
    assert "Impossible de lire" in missing.stderr
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    bad = _run(commands.advise, "--instance", tmp_path, tmp_path / "bad.json", "--dice", "66653")
    assert bad.exit_code == 2
    assert "n'est pas un document de partie en JSON valide" in bad.stderr


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_bar_fills_on_a_terminal_only():
    terminal = _Terminal()
    with commands._progress_bar(terminal) as progress:
        progress(1, 4)
        progress(4, 4)
    assert "Calcul de la stratégie optimale" in terminal.getvalue()
    assert "100%" in terminal.getvalue()
    with commands._progress_bar(io.StringIO()) as progress:
        assert progress is None


@pytest.mark.parametrize("throw", ["1", "2"])
def test_advise_after_the_first_throws_ranks_every_keep(
    tmp_path, game_file, fake_build, end_game_table, throw
):
    document = _document()
    path = game_file(document)
    result = _run(
        commands.advise, "--instance", tmp_path, path, "--dice", "5,5,5,2,1", "--throw", throw
    )
    assert result.exit_code == 0, result.output
    advice = json.loads(result.stdout)
    state = read_document(document).replay()
    expected = Strategy(Rules(), {"free": end_game_table}).advise_keeps(
        state, (5, 5, 5, 2, 1), int(throw)
    )
    assert advice == [
        {"keep": list(item.keep), "expected_total": round(item.expected_total, 4)}
        for item in expected
    ]
    assert len(advice) == 16 and [] in [item["keep"] for item in advice]
    assert [1, 2, 5, 5, 5] in [item["keep"] for item in advice]


def test_advise_third_throw_is_the_default(tmp_path, game_file, fake_build):
    path = game_file(_document())
    default = _run(commands.advise, "--instance", tmp_path, path, "--dice", "55521")
    third = _run(commands.advise, "--instance", tmp_path, path, "--dice", "55521", "--throw", 3)
    assert default.exit_code == 0 and default.stdout == third.stdout
    assert "box" in json.loads(default.stdout)[0]


def test_advise_refuses_a_bad_throw_in_french(tmp_path, game_file, fake_build):
    path = game_file(_document())
    result = _run(commands.advise, "--instance", tmp_path, path, "--dice", "55521", "--throw", "4")
    assert result.exit_code == 2
    assert "« 4 » n'est pas un lancer : choisissez 1, 2 ou 3." in result.stderr
    assert fake_build == []


@pytest.fixture
def end_game_spreads(tmp_path, end_game_table):
    """The sub-game's spreads where the command looks for them (the fresh sheet's given a
    value, as fake_build gives the table's start one)."""
    sheet = SheetIndex(Rules())
    spreads = build_spreads(Rules(), end_game_table, filled=END_GAME_FILLED)
    spreads[:, sheet.place(sheet.state({}))] = 0.0
    save_array(spreads, spreads_path(Rules(), tmp_path))
    return spreads


@pytest.mark.parametrize(("dice", "throw"), [("6,6,6,5,3", "3"), ("6,6,6,5,3", "1")])
def test_advise_to_win_gives_each_option_its_chance_to_win(
    tmp_path, game_file, fake_build, end_game_table, end_game_spreads, dice, throw
):
    document = _document(players=("Mag", "Alix", "Zoé"))
    document["entries"].append({"player": "Mag", "box": "sixes", "dice": [6, 6, 6, 6, 1]})
    path = game_file(document)
    plain = _run(commands.advise, "--instance", tmp_path, path, "--dice", dice, "--throw", throw)
    result = _run(
        commands.advise, "--instance", tmp_path, path, "--dice", dice, "--throw", throw, "--to-win"
    )
    assert result.exit_code == 0, result.output
    advice = json.loads(result.stdout)
    state = read_document(document).replay()
    chances = WinChances(Rules(), end_game_table, end_game_spreads)
    expected = {
        option.box if option.keep is None else option.keep: option.chance
        for option in chances.advise(state, dice, int(throw)).options
    }
    # The same options as without --to-win, each with its chances, the best chance first.
    assert sorted(advice, key=json.dumps) == sorted(
        [
            item
            | {
                "win_chance": round(expected[item.get("box") or tuple(item["keep"])].share, 4),
                "win": round(expected[item.get("box") or tuple(item["keep"])].win, 4),
                "tie": round(expected[item.get("box") or tuple(item["keep"])].tie, 4),
            }
            for item in json.loads(plain.stdout)
        ],
        key=json.dumps,
    )
    shares = [item["win_chance"] for item in advice]
    assert shares == sorted(shares, reverse=True)
    assert 0 < sum(item["win_chance"] > 0 for item in advice)
    assert result.stderr.splitlines() == [
        "Chances de gagner estimées : après ce tour, chacun suit la stratégie en solitaire "
        "(docs/advisor-winning.md).",
        "Conseil exact : la meilleure stratégie en solitaire.",
    ]


def test_advise_to_win_refuses_rules_without_chances_in_french(tmp_path, game_file, fake_build):
    path = game_file(_document(players=("Mag", "Alix"), turns=[], rules={"preset": "triple"}))
    result = _run(commands.advise, "--instance", tmp_path, path, "--dice", "66653", "--to-win")
    assert result.exit_code == 2
    assert "--to-win : les chances de gagner ne sont calculées que pour une seule colonne" in (
        result.stderr
    )


def test_advise_a_maxi_yatzy_game_past_the_third_throw_builds_nothing(tmp_path, game_file):
    # Mag saved two throws in her first turn: her second has five, the 4th leaves one.
    turns = [("chance", [1, 2, 3, 4, 5, 6])]
    document = _document(turns=turns, rules={"preset": "maxi_yatzy"})
    document["entries"][0]["throws"] = 1
    path = game_file(document)
    result = _run(
        commands.advise, "--instance", tmp_path, path, "--dice", "6,6,6,2,3,4", "--throw", 4
    )
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("Conseil estimé : chaque tour joué au mieux")
    assert "20\u202f000 parties simulées" in result.stderr  # French forms
    keeps = json.loads(result.stdout)
    assert [6, 6, 6] in [item["keep"] for item in keeps]
    assert list(tmp_path.iterdir()) == [path]  # no table
    result = _run(
        commands.advise, "--instance", tmp_path, path, "--dice", "6,6,6,2,3,4", "--throw", 6
    )
    assert result.exit_code == 2 and "choisissez de 1 à 5" in result.stderr


def test_advise_to_win_at_generala_with_the_servida(tmp_path, game_file):
    """Generala's whole table and spreads build in about a second: the real ones. Two
    players two boxes from the end (exact), Mag to play with her Generala box free: five
    alike on the first throw win at once, and keeping them all says so."""
    rules = {"preset": "generala"}
    filled = ["ones", "twos", "threes", "fours", "fives", "sixes", "straight", "full_house"]
    filled.append("four_kind")
    turns = [(box, [1, 2, 3, 4, 6]) for box in filled for _ in range(2)]
    turns.append(("double_generala", [1, 2, 3, 4, 6]))  # Alix bars hers, one box left
    document = _document(players=("Alix", "Mag"), turns=turns, rules=rules)
    path = game_file(document)
    args = ("--instance", tmp_path, path, "--dice", "33333", "--throw", "1", "--to-win")
    result = _run(commands.advise, *args)
    assert result.exit_code == 0, result.output
    advice = json.loads(result.stdout)
    assert advice[0]["keep"] == [3, 3, 3, 3, 3]
    assert (advice[0]["win_chance"], advice[0]["win"]) == (1.0, 1.0)
    assert result.stderr.splitlines()[0] == (
        "Chances de gagner exactes : chacun joue pour gagner jusqu'à la fin."
    )
    state = read_document(document).replay()
    assert state.active_player == 1
    later = _run(commands.advise, *args[:6], "3", "--to-win")
    generala = {item.get("box"): item for item in json.loads(later.stdout)}["generala"]
    assert 0 < generala["win_chance"] < 1  # 50 after the last throw, no win at once
