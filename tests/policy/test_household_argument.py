"""No function of the app has a default household: what a household owns is reached with its
household given, the home one like any other, so that a forgotten argument is a TypeError
rather than a write into the home household. Read from the source, so that a function added
later is held to it without anyone remembering to."""

import ast
from pathlib import Path

import scorekeeper

PACKAGE = Path(scorekeeper.__file__).parent
# Functions whose household may be left out, and what leaving it out means.
MAY_BE_LEFT_OUT = {
    "store/backup.py:backup": "no household: the whole database is copied",
}


def household_defaults(source: str, module: str):
    """(where, default) of every parameter called `household` that has a default."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        arguments = node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        defaults = [None] * (len(positional) - len(arguments.defaults)) + arguments.defaults
        pairs = [
            *zip(positional, defaults, strict=True),
            *zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True),
        ]
        for argument, default in pairs:
            if argument.arg == "household" and default is not None:
                yield f"{module}:{node.name}", ast.unparse(default)


def test_no_function_of_the_app_defaults_its_household():
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        found.update(household_defaults(path.read_text(encoding="utf-8"), module))
    assert set(found) == set(MAY_BE_LEFT_OUT), (
        f"household arguments with a default: {sorted(set(found) - set(MAY_BE_LEFT_OUT))}"
    )
    assert set(found.values()) == {"None"}


def test_a_default_household_is_found_wherever_it_is_written():
    source = """
def positional(store, game_id, household=HOME_HOUSEHOLD): ...
def keyword_only(store, *, household=1): ...
class Store:
    def method(self, household: int = HOME_HOUSEHOLD, limit=None): ...
def required(store, *, household: int, limit=None): ...
def other_names(store, households=2, household_id=3): ...
"""
    assert dict(household_defaults(source, "m.py")) == {
        "m.py:positional": "HOME_HOUSEHOLD",
        "m.py:keyword_only": "1",
        "m.py:method": "HOME_HOUSEHOLD",
    }
