"""Alembic migrations, run from code so that no alembic.ini is needed anywhere."""

import re
from pathlib import Path

MIGRATIONS_DIR = Path(__file__).resolve().parent
VERSIONS_DIR = MIGRATIONS_DIR / "versions"
_REVISION = re.compile(r'^revision\b[^=]*=\s*["\']([^"\']+)["\']', re.MULTILINE)
_DOWN_REVISION = re.compile(r'^down_revision\b[^=]*=\s*["\']([^"\']+)["\']', re.MULTILINE)


def alembic_config():
    """An Alembic Config whose scripts are the ones shipped inside the package.

    Callers put an open SQLAlchemy connection in ``cfg.attributes["connection"]``;
    env.py runs the migrations on it.
    """
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    return cfg


def head_revision() -> str:
    """The newest migration, read from the scripts' text: a start on an up-to-date database
    then needs no Alembic at all (a quarter of a second of imports). Each script names its
    revision and the one it follows; the head is the one no script follows."""
    revisions, followed = set(), set()
    for script in VERSIONS_DIR.glob("*.py"):
        text = script.read_text(encoding="utf-8")
        revisions.update(_REVISION.findall(text))
        followed.update(_DOWN_REVISION.findall(text))
    heads = revisions - followed
    if len(heads) != 1:
        raise RuntimeError(f"the migrations have {len(heads)} heads: {sorted(heads)}")
    return heads.pop()
