"""The import and replay parsers over arbitrary JSON: a legal game or a message, never a crash.

Documents are arbitrary JSON values, and legal documents with one part replaced by
arbitrary JSON (the likelier mistakes of a hand-edited file). Both the import check
(`check_files`, used by the browser upload and the `import` command) and the `replay`
command's reader (`replay_file`) must answer with a result or a RuleError.
"""

import json
from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekeeper.cli import replay_file
from scorekeeper.rules import RuleError
from scorekeeper.rules.document import MAX_JSON_DEPTH, read_json
from scorekeeper.store.documents import ImportRefused, check_files

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.sampled_from(
        [
            "classique",
            "triple",
            "yatzy",
            "free",
            "down",
            "up",
            "sec",
            "ones",
            "sixes",
            "yams",
            "chance",
            "Mag",
            "Alix",
            "finished",
            "in_progress",
            "abandoned",
            "2024-07-14T20:30:00+02:00",
            "0001-01-01T00:00:00+01:00",
            "9999-12-31T23:59:59-01:00",
            5,
            6,
            5.0,
            True,
            "66666",
        ]
    ),
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=6),
        st.dictionaries(
            st.text(max_size=10)
            | st.sampled_from(
                [
                    "rules",
                    "players",
                    "entries",
                    "player",
                    "box",
                    "dice",
                    "column",
                    "preset",
                    "status",
                    "created_at",
                    "finished_at",
                    "identities",
                ]
            ),
            children,
            max_size=6,
        ),
    ),
    max_leaves=30,
)

LEGAL = {
    "rules": {"preset": "classique", "dice": 5, "vache": False},
    "players": ["Mag", "Alix"],
    "entries": [
        {"player": "Mag", "box": "sixes", "dice": [6, 6, 6, 6, 2]},
        {"player": "Alix", "box": "ones", "dice": [1, 1, 2, 3, 4]},
    ],
    "status": "in_progress",
    "created_at": "2024-07-14T20:30:00+02:00",
    "identities": ["Mag", "Alix"],
}
PATHS = [
    ("rules",),
    ("rules", "preset"),
    ("rules", "dice"),
    ("rules", "vache"),
    ("players",),
    ("players", 0),
    ("entries",),
    ("entries", 0),
    ("entries", 0, "player"),
    ("entries", 0, "box"),
    ("entries", 0, "dice"),
    ("entries", 0, "dice", 1),
    ("entries", 1, "column"),
    ("status",),
    ("created_at",),
    ("finished_at",),
    ("identities",),
    ("identities", 1),
]


def _replaced(path: tuple, value: object) -> dict:
    document = json.loads(json.dumps(LEGAL))
    holder = document
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = value
    return document


documents = st.one_of(
    json_values,
    st.builds(_replaced, st.sampled_from(PATHS), json_values),
    st.lists(st.builds(_replaced, st.sampled_from(PATHS), json_values), max_size=3),
)


def _both_parsers(text: str, tmp_path) -> None:
    try:
        check_files([("game.json", text.encode())])
    except ImportRefused as refused:
        assert all(problem.render() for problem in refused.problems)
    path = tmp_path / "game.json"
    path.write_text(text, encoding="utf-8")
    result = replay_file(path)
    assert "players" in result or result["error"]


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(documents)
def test_arbitrary_json_is_a_game_or_a_message(tmp_path, document):
    _both_parsers(json.dumps(document), tmp_path)


NOT_GAMES = [
    "[" * 3000 + "]" * 3000,
    '{"rules": ' + "[" * 3000 + "]" * 3000 + "}",
    '{"rules": {"dice": ' + "9" * 5000 + "}}",
    '{"rules": {"dice": 1e999}}',
    '{"rules": {"dice": NaN}}',
    json.dumps({**LEGAL, "entries": [{"player": "Mag", "box": {"a": 1}, "dice": [6] * 5}]}),
]
# Legal games with import data (dates, status) that only the import reads.
BAD_IMPORT_DATA = [
    json.dumps({**LEGAL, "created_at": "0001-01-01T00:00:00+01:00"}),
    json.dumps({**LEGAL, "created_at": "9999-12-31T23:59:59-01:00"}),
    json.dumps({**LEGAL, "status": ["finished"]}),
]


@pytest.mark.parametrize("text", NOT_GAMES + BAD_IMPORT_DATA)
def test_hostile_documents_are_refused_with_a_message(tmp_path, text):
    with pytest.raises(ImportRefused):
        check_files([("game.json", text)])
    path = tmp_path / "game.json"
    path.write_text(text, encoding="utf-8")
    result = replay_file(path)
    assert ("error" in result) == (text in NOT_GAMES)


@pytest.mark.parametrize(
    ("replace", "value"),
    [
        (("rules", "dice"), 5.0),
        (("rules", "dice"), "5"),
        (("rules", "dice"), True),
        (("rules", "vache"), 0),
        (("rules", "vache"), "true"),
        (("entries", 0, "dice"), [6.0, 6, 6, 6, 2]),
        (("entries", 0, "dice"), "66662"),
        (("entries", 0, "dice"), [True, 6, 6, 6, 2]),
        (("entries", 0, "dice"), ["6", 6, 6, 6, 2]),
        (("entries", 0, "box"), 3),
        (("entries", 0, "column"), ["free"]),
    ],
)
def test_types_are_strict(replace, value):
    """A die, a count is an int; a flag is a bool: 5.0, "5" or 1 are refused, not read as
    the same game (a "dice": 5.0 game used to make its sheet a 500 for ever)."""
    with pytest.raises(ImportRefused):
        check_files([("game.json", json.dumps(_replaced(replace, value)))])


def test_depth_is_limited():
    within = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert read_json(within) is not None
    with pytest.raises(RuleError):
        read_json("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1))


def test_a_legal_document_still_imports():
    (game,) = check_files([("game.json", json.dumps(LEGAL))])
    assert game.created_at == datetime(2024, 7, 14, 18, 30, tzinfo=UTC)
