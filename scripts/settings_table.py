"""The README's settings table, generated from scorekeeper/config.py's SETTINGS.

    python -m scripts.settings_table            # print the table
    python -m scripts.settings_table --write    # replace the table in README.md

The README holds the table between two marker lines; tests/test_config.py fails when it is
not what this script makes, so a setting added or changed in config.py reaches the README.
"""

import argparse
from datetime import timedelta
from pathlib import Path

from scorekeeper.config import SETTINGS, Setting

README = Path(__file__).resolve().parent.parent / "README.md"
BEGIN = (
    "<!-- The settings table is generated from scorekeeper/config.py: "
    "python -m scripts.settings_table --write -->"
)
END = "<!-- End of the settings table. -->"

# Defaults computed at start, from the instance folder or the machine, said in words.
COMPUTED_DEFAULTS = {
    "DATABASE_URL": "SQLite: `scorekeeper.sqlite3` in the instance folder",
    "TEMPLATE_CACHE_FOLDER": "`compiled-templates` in the instance folder",
    "BABEL_DEFAULT_TIMEZONE": "the machine's time zone (UTC when it has none)",
    "BABEL_TRANSLATION_DIRECTORIES": "the package's `translations` folder",
    "SERVER_WORKERS": "`$SCOREKEEPER_WORKERS`, else `1`",
    "SERVER_THREADS": "`$SCOREKEEPER_THREADS`, else `4`",
    "LIVE_STREAMS": "`$SCOREKEEPER_LIVE_STREAMS`, else `32`",
    "PASSPHRASE_HASHERS": "half the machine's cores, at least `1`",
}


def default_text(setting: Setting) -> str:
    """A setting's default as a reader writes it in config.py, or in words when computed."""
    value = setting.default
    if callable(value):
        if setting.name not in COMPUTED_DEFAULTS:
            raise KeyError(
                f"{setting.name}: its default is computed; say it in words in "
                "scripts/settings_table.py's COMPUTED_DEFAULTS"
            )
        return COMPUTED_DEFAULTS[setting.name]
    if isinstance(value, timedelta):
        return f"`timedelta(days={value.days})`"
    if isinstance(value, int) and not isinstance(value, bool) and value >= 10_000:
        return f"`{value:_}`"
    return f"`{value!r}`"


def table() -> str:
    rows = ["| setting | default | what it does |", "|---|---|---|"]
    rows += [
        f"| `{setting.name}` | {default_text(setting)} | {setting.meaning} |"
        for setting in SETTINGS
    ]
    return "\n".join(rows)


def _between_markers(readme: str) -> tuple[int, int]:
    start = readme.index(BEGIN) + len(BEGIN)
    return start, readme.index(END, start)


def readme_table(readme: str) -> str:
    """The table the README holds between its markers."""
    start, end = _between_markers(readme)
    return readme[start:end].strip("\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="replace the table in README.md")
    if not parser.parse_args().write:
        print(table())
        return
    readme = README.read_text(encoding="utf-8")
    start, end = _between_markers(readme)
    README.write_text(f"{readme[:start]}\n{table()}\n{readme[end:]}", encoding="utf-8")


if __name__ == "__main__":
    main()
