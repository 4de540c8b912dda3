"""The instance folder: where it is, and that only its owner can read it."""

import stat

import platformdirs
import pytest

from scorekeeper import app as app_module
from scorekeeper.app import (
    CONFIG_FILE,
    DATABASE_FILE,
    SECRET_KEY_FILE,
    STORE_EXTENSION,
    create_app,
    default_instance_path,
)
from scorekeeper.config import SETTINGS, TEMPLATE_CACHE_DIR
from scorekeeper.play import start_game
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.quotas import NO_QUOTAS
from tests.support.databases import ON_POSTGRESQL

# The database's own files, when it is SQLite's file in the instance folder.
DATABASE_FILES = () if ON_POSTGRESQL else (DATABASE_FILE,)


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_instance_is_its_owners_only(tmp_path):
    instance = tmp_path / "instance"
    app = create_app({"TESTING": True}, instance_path=instance)
    store = app.extensions[STORE_EXTENSION]
    try:
        start_game(store, Rules(), ["Mag"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
        with store.engine.connect():
            # An open connection keeps SQLite's -wal and -shm files on disk.
            assert _mode(instance) == 0o700
            wal = () if ON_POSTGRESQL else (f"{DATABASE_FILE}-wal", f"{DATABASE_FILE}-shm")
            for name in (*DATABASE_FILES, *wal, SECRET_KEY_FILE):
                assert _mode(instance / name) == 0o600, name
    finally:
        store.dispose()


def test_the_next_start_reads_the_templates_compiled(tmp_path, monkeypatch):
    instance = tmp_path / "instance"
    # A server's default, its instance folder (the tests' apps share one folder instead).
    (default,) = (setting for setting in SETTINGS if setting.name == "TEMPLATE_CACHE_FOLDER")
    assert default.value(instance) == str(instance / TEMPLATE_CACHE_DIR)
    settings = {"TESTING": True, "TEMPLATE_CACHE_FOLDER": default.value(instance)}
    assert create_app(settings, instance_path=instance).test_client().get("/").status_code == 200
    compiled = list((instance / TEMPLATE_CACHE_DIR).iterdir())
    assert compiled and all(_mode(path) == 0o600 for path in compiled)
    assert _mode(instance / TEMPLATE_CACHE_DIR) == 0o700
    again = create_app(settings, instance_path=instance)

    def compile_again(*_args, **_kwargs):
        raise AssertionError("a template was compiled again")

    monkeypatch.setattr(again.jinja_env, "compile", compile_again)
    assert again.test_client().get("/").status_code == 200


def test_an_older_instance_is_closed_on_start(tmp_path):
    """Instances made before: a 0755 folder, and a 0644 database and config.py with the PIN."""
    instance = tmp_path / "instance"
    create_app({"TESTING": True}, instance_path=instance).extensions[STORE_EXTENSION].dispose()
    (instance / CONFIG_FILE).write_text('HOUSEHOLD_PIN = "2580"\n', encoding="utf-8")
    instance.chmod(0o755)
    for name in (*DATABASE_FILES, CONFIG_FILE, SECRET_KEY_FILE):
        (instance / name).chmod(0o644)
    create_app({"TESTING": True}, instance_path=instance).extensions[STORE_EXTENSION].dispose()
    assert _mode(instance) == 0o700
    for name in (*DATABASE_FILES, CONFIG_FILE, SECRET_KEY_FILE):
        assert _mode(instance / name) == 0o600, name


def test_a_checkout_keeps_its_instance_folder():
    assert default_instance_path() == app_module.PACKAGE_DIR.parent / "instance"


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """This code as if installed by `pip install .`: a package in site-packages of a venv,
    and a user data folder of its own."""
    venv = tmp_path / "venv"
    package = venv / "lib" / "site-packages" / "scorekeeper"
    package.mkdir(parents=True)
    user_data = tmp_path / "home" / ".local" / "share" / "scorekeeper"
    monkeypatch.setattr(app_module, "PACKAGE_DIR", package)
    monkeypatch.setattr(app_module.sys, "prefix", str(venv))
    monkeypatch.setattr(platformdirs, "user_data_dir", lambda name, appauthor: str(user_data))
    return venv, user_data


def test_an_installed_copy_keeps_its_games_out_of_the_venv(installed):
    venv, user_data = installed
    assert default_instance_path() == user_data
    assert venv not in default_instance_path().parents


def test_games_already_in_the_venv_are_not_left_behind(installed):
    """An install of an earlier version kept them in Flask's $PREFIX/var folder."""
    venv, user_data = installed
    old = venv / "var" / "scorekeeper-instance"
    old.mkdir(parents=True)
    (old / DATABASE_FILE).touch()
    assert default_instance_path() == old
    user_data.mkdir(parents=True)
    assert default_instance_path() == user_data
