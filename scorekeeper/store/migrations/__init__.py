"""Alembic migrations, run from code so that no alembic.ini is needed anywhere."""

from pathlib import Path

from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).resolve().parent


def alembic_config() -> Config:
    """An Alembic Config whose scripts are the ones shipped inside the package.

    Callers put an open SQLAlchemy connection in ``cfg.attributes["connection"]``;
    env.py runs the migrations on it.
    """
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    return cfg
