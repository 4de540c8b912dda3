"""The layers of the package hold (tests/support/layers.py): no import up a floor or beside
a part, and every module stands on a floor, so that a new one is placed at once."""

from tests.support.layers import PACKAGE, imports_up, modules, part_of_path


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
    ]
