"""scorekeeper/config.py is the one list of settings: every setting the code reads is there,
with a default and what it does."""

import re
from pathlib import Path

from scorekeeper.config import SETTINGS

PACKAGE = Path(__file__).resolve().parent.parent / "scorekeeper"
# `config["NAME"]`, `config.get("NAME"...)` and `config[NAME_SETTING]` with the constant's value.
READ = re.compile(r"""config(?:\[|\.get\()\s*["']([A-Z][A-Z0-9_]+)["']""")
CONSTANT = re.compile(r"""^[A-Z_]+_SETTING\s*=\s*["']([A-Z][A-Z0-9_]+)["']""", re.MULTILINE)


def _read_by_the_code() -> set[str]:
    names = set()
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        names.update(READ.findall(text))
        names.update(CONSTANT.findall(text))
    return names


def test_every_setting_the_code_reads_is_listed_with_a_default_and_a_meaning():
    listed = {setting.name for setting in SETTINGS}
    read = _read_by_the_code()
    assert read, "the pattern found no setting at all"
    # Flask's own TESTING, and create_app's INSTANCE_PATH, which picks the folder the
    # settings are read from and is no setting itself.
    not_settings = {"TESTING", "INSTANCE_PATH"}
    assert read - listed - not_settings == set()
    for setting in SETTINGS:
        assert setting.meaning.strip().endswith((".", ")")), setting.name


def test_the_names_are_unique():
    names = [setting.name for setting in SETTINGS]
    assert len(names) == len(set(names))


def test_the_readme_settings_table_is_the_one_generated_from_the_list():
    from scripts.settings_table import README, readme_table, table

    assert readme_table(README.read_text(encoding="utf-8")) == table(), (
        "README.md's settings table differs from scorekeeper/config.py: "
        "run python -m scripts.settings_table --write"
    )


def test_the_readme_settings_table_lists_every_setting_once_with_its_default():
    from scripts.settings_table import README, default_text, readme_table

    rows = readme_table(README.read_text(encoding="utf-8")).splitlines()[2:]
    cells = [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows]
    assert [name for name, _default, _meaning in cells] == [
        f"`{setting.name}`" for setting in SETTINGS
    ]
    assert [default for _name, default, _meaning in cells] == [
        default_text(setting) for setting in SETTINGS
    ]
