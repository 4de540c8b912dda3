"""The layers of the package hold (tests/support/layers.py): no import up a floor or beside
a part, every module stands on a floor, so that a new one is placed at once; no modules
import one another round a circle, and no blueprint imports another."""

from tests.support.layers import (
    PACKAGE,
    blueprint_imports,
    import_circles,
    imports_up,
    modules,
    part_of_path,
)


def test_every_module_stands_on_a_floor():
    unplaced = [
        module
        for module in modules(PACKAGE)
        if module != "__init__.py" and part_of_path(module) is None
    ]
    assert not unplaced, f"modules on no floor (add them to FLOORS): {unplaced}"


def test_no_module_imports_a_higher_floor_or_a_part_beside_it():
    found = imports_up(PACKAGE)
    assert not found, "imports up the layers:\n" + "\n".join(map(str, found))


def test_an_import_is_found_wherever_it_is_written(tmp_path):
    for folder in ("store", "cli", "web"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "app.py").write_text("")
    (tmp_path / "store" / "copy.py").write_text(
        "import scorekeeper.web.games\n"
        "from scorekeeper.store import schema\n"
        "from . import schema as also_ours\n"
        "from scorekeeper import app\n"
        "def command():\n"
        "    if True:\n"
        "        from ..cli import main\n"
        "class Later:\n"
        "    def method(self):\n"
        "        import scorekeeper.advisor.tables as tables\n"
        "from testing.samples import random_document\n"
        'workers.preload("scorekeeper.sheets.render", __name__)\n'
    )
    (tmp_path / "cli" / "__init__.py").write_text("from scorekeeper.store.copy import command\n")
    assert [str(found) for found in imports_up(tmp_path)] == [
        "scorekeeper/store/copy.py:1 (store, floor 1) imports scorekeeper.web.games (web, floor 3)",
        "scorekeeper/store/copy.py:4 (store, floor 1) imports scorekeeper.app (app, floor 4)",
        "scorekeeper/store/copy.py:7 (store, floor 1) imports scorekeeper.cli (cli, floor 5)",
        "scorekeeper/store/copy.py:10 (store, floor 1) imports scorekeeper.advisor.tables "
        "(advisor, floor 1)",
        "scorekeeper/store/copy.py:11 (store, floor 1) imports testing.samples "
        "(a checkout's only, not installed)",
        "scorekeeper/store/copy.py:12 (store, floor 1) imports scorekeeper.sheets.render "
        "(sheets, floor 2)",
    ]


def test_no_modules_import_one_another_round_a_circle():
    circles = import_circles(PACKAGE)
    assert not circles, "modules importing one another: " + "; ".join(map(" <-> ".join, circles))


def test_a_circle_of_imports_is_found(tmp_path):
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "__init__.py").write_text("")
    (tmp_path / "store" / "a.py").write_text("from scorekeeper.store.b import B\n")
    (tmp_path / "store" / "b.py").write_text("def f():\n    from scorekeeper.store import c\n")
    (tmp_path / "store" / "c.py").write_text("import scorekeeper.store.a\n")
    (tmp_path / "store" / "d.py").write_text("import scorekeeper.store.a\n")
    assert import_circles(tmp_path) == [["store/a.py", "store/b.py", "store/c.py"]]


def test_no_blueprint_imports_another():
    found = blueprint_imports(PACKAGE)
    assert not found, "blueprints importing one another:\n" + "\n".join(map(str, found))


def test_a_blueprint_importing_another_is_found(tmp_path):
    (tmp_path / "web").mkdir()
    (tmp_path / "web" / "__init__.py").write_text("")
    (tmp_path / "web" / "helpers.py").write_text("def helper(): ...\n")
    (tmp_path / "web" / "a.py").write_text(
        "from scorekeeper.web.helpers import helper\nbp = Blueprint('a', __name__)\n"
    )
    (tmp_path / "web" / "b.py").write_text(
        "from scorekeeper.web import a\nbp = Blueprint('b', __name__)\n"
    )
    assert [str(found) for found in blueprint_imports(tmp_path)] == [
        "scorekeeper/web/b.py:1 (web, floor 3) imports scorekeeper.web.a (web, floor 3)"
    ]
