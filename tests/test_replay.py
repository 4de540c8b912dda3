"""`scorekeeper replay`: the engine's face on the command line."""

import json

from click.testing import CliRunner

from scorekeeper.cli import main


def write(tmp_path, name, document):
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return str(path)


def run(*files):
    result = CliRunner().invoke(main, ["replay", *files])
    return result.exit_code, [json.loads(line) for line in result.output.splitlines()]


def test_legal_game_prints_every_total(tmp_path):
    path = write(
        tmp_path,
        "game.json",
        {
            "rules": {"preset": "classique"},
            "players": ["Mag", "Alix"],
            "entries": [
                {"player": "Mag", "box": "yams", "dice": [6, 6, 6, 6, 6]},
                {"player": "Alix", "box": "chance", "dice": [1, 2, 3, 4, 6], "column": "free"},
                {"player": "Mag", "box": "fours", "dice": [4, 4, 4, 4, 4]},
            ],
        },
    )
    code, lines = run(path)
    assert code == 0
    assert lines == [
        {
            "file": path,
            "players": [
                {
                    "name": "Mag",
                    "total": 170,
                    "upper": 20,
                    "upper_bonus": 0,
                    "lower": 50,
                    "yams_bonus": 100,
                },
                {
                    "name": "Alix",
                    "total": 16,
                    "upper": 0,
                    "upper_bonus": 0,
                    "lower": 16,
                    "yams_bonus": 0,
                },
            ],
        }
    ]


def test_first_illegal_entry_is_named_and_exit_is_2(tmp_path):
    good = write(tmp_path, "good.json", {"players": ["Mag"], "entries": []})
    bad = write(
        tmp_path,
        "bad.json",
        {
            "rules": {},
            "players": ["Mag"],
            "entries": [
                {"player": "Mag", "box": "yams", "dice": [6, 6, 6, 6, 6]},
                {"player": "Mag", "box": "chance", "dice": [4, 4, 4, 4, 4]},
            ],
        },
    )
    code, lines = run(good, bad)
    assert code == 2
    assert lines[0]["players"][0]["total"] == 0
    assert lines[1] == {
        "file": bad,
        "error": "entry 2: Joker : ce Yams doit aller dans la case Quatre.",
    }


def test_every_kind_of_illegal_entry(tmp_path):
    cases = {
        "wrong player": (
            {"player": "Alix", "box": "ones", "dice": [1, 1, 1, 1, 1]},
            "entry 1: Ce n'est pas le tour de Alix",
        ),
        "unknown box": (
            {"player": "Mag", "box": "kniffel", "dice": [1, 1, 1, 1, 1]},
            "entry 1: Cette partie n'a pas de case « kniffel ».",
        ),
        "bad dice": (
            {"player": "Mag", "box": "ones", "dice": [1, 1, 1, 7, 1]},
            "entry 1: « 7 » n'est pas un dé",
        ),
        "unknown player": (
            {"player": "Eve", "box": "ones", "dice": [1, 1, 1, 1, 1]},
            "entry 1: joueur inconnu « Eve ».",
        ),
    }
    for name, (entry, message) in cases.items():
        path = write(tmp_path, f"{name}.json", {"players": ["Mag", "Alix"], "entries": [entry]})
        code, lines = run(path)
        assert code == 2 and lines[0]["error"].startswith(message), name


def test_box_already_filled(tmp_path):
    path = write(
        tmp_path,
        "filled.json",
        {
            "players": ["Mag"],
            "entries": [
                {"player": "Mag", "box": "ones", "dice": [1, 2, 3, 4, 5]},
                {"player": "Mag", "box": "ones", "dice": [1, 1, 3, 4, 5]},
            ],
        },
    )
    assert run(path)[1][0]["error"] == "entry 2: La case As est déjà remplie."


def test_house_rules_and_columns(tmp_path):
    path = write(
        tmp_path,
        "triple.json",
        {
            "rules": {"preset": "triple", "vache": True, "four_kind": "fixed40"},
            "players": ["Mag", "Alix"],
            "entries": [
                {"player": "Mag", "column": "down", "box": "ones", "dice": [1, 1, 1, 2, 3]},
                {"player": "Alix", "column": "up", "box": "chance", "dice": [6, 6, 6, 6, 5]},
                {"player": "Mag", "column": "free", "box": "four_kind", "dice": [2, 2, 2, 2, 3]},
            ],
        },
    )
    code, lines = run(path)
    assert code == 0
    assert [p["total"] for p in lines[0]["players"]] == [43, 29]
    missing_column = write(
        tmp_path,
        "nocolumn.json",
        {
            "rules": {"preset": "triple"},
            "players": ["Mag"],
            "entries": [{"player": "Mag", "box": "ones", "dice": [1, 1, 1, 2, 3]}],
        },
    )
    assert "précisez la colonne" in run(missing_column)[1][0]["error"]
    out_of_order = write(
        tmp_path,
        "order.json",
        {
            "rules": {"preset": "triple"},
            "players": ["Mag"],
            "entries": [{"player": "Mag", "column": "down", "box": "sixes", "dice": [6] * 5}],
        },
    )
    assert run(out_of_order)[1][0]["error"] == (
        "entry 1: La colonne Descendante se remplit dans l'ordre : la prochaine case est As."
    )


def test_unknown_option_and_unreadable_file(tmp_path):
    path = write(tmp_path, "option.json", {"rules": {"wild": True}, "players": ["Mag"]})
    assert run(path)[1][0]["error"] == "Option de règle inconnue : « wild »."
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    code, lines = run(str(broken))
    assert code == 2 and lines[0]["error"].startswith("document illisible")


def test_instance_option_is_accepted(tmp_path):
    path = write(tmp_path, "game.json", {"players": ["Mag"]})
    result = CliRunner().invoke(main, ["replay", "--instance", str(tmp_path / "i"), path])
    assert result.exit_code == 0
