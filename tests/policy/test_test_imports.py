"""No module of tests/ imports a test module (`test_*.py`) or a conftest: what tests share
lives in tests/support/ or in a helper module beside them (tests/browser/checks.py), and
fixtures in a conftest, which pytest loads by itself. A test module imported by another runs
its module-level code twice under two names, ties the two files' fates together, and hides
which tests a change touches. Read from the sources with ast, imports inside functions
included."""

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def _is_test_module(dotted: str) -> bool:
    last = dotted.rsplit(".", 1)[-1]
    return last.startswith("test_") or last == "conftest"


def _imported(node: ast.AST, package: list[str]) -> list[str]:
    """The dotted names of the modules an import statement may load, relative ones resolved
    from ``package`` (the importing module's own package)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:
        anchor = package[: len(package) - node.level + 1]
        base = ".".join([*anchor, base] if base else anchor)
    # `from tests.web import test_live` loads the module tests.web.test_live.
    return [base, *(f"{base}.{alias.name}" for alias in node.names)]


def imports_of_test_modules(root: Path) -> list[str]:
    """Where a module under ``root`` (a folder named tests) imports a test module."""
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root.parent)
        package = list(relative.parent.parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for target in _imported(node, package):
                if target.split(".")[0] == root.name and _is_test_module(target):
                    found.append((relative.as_posix(), node.lineno, target))
    return [f"{path}:{line} imports {target}" for path, line, target in sorted(set(found))]


def test_no_test_module_is_imported_by_another_module_of_the_tests():
    found = imports_of_test_modules(TESTS)
    assert found == [], "move what is shared to tests/support/:\n" + "\n".join(found)


def test_the_check_finds_every_way_to_import_a_test_module(tmp_path):
    tests = tmp_path / "tests"
    (tests / "web").mkdir(parents=True)
    (tests / "support").mkdir()
    (tests / "web" / "test_one.py").write_text(
        "from tests.web.test_two import GAME\n"
        "from .conftest import csrf_token\n"
        "from . import test_two\n"
        "import tests.web.test_two\n"
        "from tests.support.games import GAME\n"
        "from .helpers import cell\n"
        "def test_it():\n"
        "    from ..support.test_data import ROWS\n"
    )
    (tests / "support" / "games.py").write_text("from tests.web.test_one import GAME\n")
    assert imports_of_test_modules(tests) == [
        "tests/support/games.py:1 imports tests.web.test_one",
        "tests/web/test_one.py:1 imports tests.web.test_two",
        "tests/web/test_one.py:2 imports tests.web.conftest",
        "tests/web/test_one.py:3 imports tests.web.test_two",
        "tests/web/test_one.py:4 imports tests.web.test_two",
        "tests/web/test_one.py:8 imports tests.support.test_data",
    ]
