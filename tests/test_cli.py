"""The `scorekeeper` command and what create_app does on first start."""

import ipaddress
import socket
import stat
import subprocess
import sys

import click
import pytest
import waitress
from click.testing import CliRunner

from scorekeeper import cli, workers
from scorekeeper.app import DATABASE_FILE, DATABASE_URL_ENV, SECRET_KEY_FILE, create_app
from scorekeeper.config import BY_NAME
from scorekeeper.net import lan_address
from scorekeeper.web.transfer import largest_body
from tests.support.databases import ON_POSTGRESQL


def test_serve_help_lists_its_options():
    result = CliRunner().invoke(cli.main, ["serve", "--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--instance"):
        assert option in result.output


def test_serve_prints_the_instance_and_the_addresses_then_serves(tmp_path, monkeypatch):
    served = {}

    class Server:
        def run(self):
            served["run"] = True

    def create_server(app, **options):
        served.update(options)
        return Server()

    monkeypatch.setattr(waitress, "create_server", create_server)
    monkeypatch.setattr(cli, "lan_address", lambda: "192.168.1.20")
    # Serving in this process, whose pools of workers (the PDFs', the imports') the tests
    # after it share: its stop ends no pool here, and says that it would.
    stopped = []
    monkeypatch.setattr(workers, "stop_workers", lambda: stopped.append(True))
    instance = tmp_path / "home"

    result = CliRunner().invoke(cli.main, ["serve", "--port", "8123", "--instance", str(instance)])

    assert result.exit_code == 0, result.output
    assert stopped == [True]
    assert str(instance.resolve()) in result.output
    assert "http://localhost:8123" in result.output
    assert "http://192.168.1.20:8123" in result.output
    # Waitress refuses a body larger than the largest the app takes (an import's).
    assert served == {
        "host": "0.0.0.0",
        "port": 8123,
        # The request threads, and one for each open sheet's stream of changes.
        "threads": BY_NAME["SERVER_THREADS"].value(instance)
        + BY_NAME["LIVE_STREAMS"].value(instance),
        # As many connections as the open files allow, up to the setting's; poll() watches
        # them all, and one idle past the setting's time is closed, looked for every 15 s.
        "connection_limit": cli.connection_limit(BY_NAME["SERVER_CONNECTION_LIMIT"].default),
        "asyncore_use_poll": True,
        "channel_timeout": BY_NAME["SERVER_IDLE_SECONDS"].default,
        "cleanup_interval": BY_NAME["SERVER_IDLE_SECONDS"].default // 4,
        "max_request_body_size": BY_NAME["IMPORT_MAX_BYTES"].default,
        "run": True,
    }
    if not ON_POSTGRESQL:  # there the database is the test's, named by the environment
        assert (instance / DATABASE_FILE).is_file()


@pytest.mark.parametrize(
    ("hard", "most", "limit"),
    [
        (300, 10_000, 150),  # a small limit: half of it kept for the server's own files
        (2_000, 10_000, 2_000 - cli.FILES_KEPT),
        (2_000, 1_000, 1_000),
    ],
)
def test_serve_sizes_its_connections_from_the_files_it_may_open(hard, most, limit):
    """In a process of its own, whose hard limit on open files is lowered (for good) and its
    soft one lower still: the soft one is raised to the hard one, and the connections fit in
    it with room for the server's own files."""
    code = (
        "import resource, sys; from scorekeeper import cli; "
        f"resource.setrlimit(resource.RLIMIT_NOFILE, (64, {hard})); "
        f"print(cli.connection_limit({most}), resource.getrlimit(resource.RLIMIT_NOFILE)[0])"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(limit), str(hard)]


def test_waitress_limit_follows_the_larger_of_the_app_and_import_limits(tmp_path):
    small = create_app({"IMPORT_MAX_BYTES": 1000}, instance_path=tmp_path / "a")
    assert largest_body(small) == small.config["MAX_CONTENT_LENGTH"] == 1024 * 1024
    large = create_app({"IMPORT_MAX_BYTES": 50_000_000}, instance_path=tmp_path / "b")
    assert largest_body(large) == 50_000_000


@pytest.mark.parametrize("name", sorted(cli.LAZY_COMMANDS))
def test_each_lazy_command_is_listed_with_its_own_summary(name):
    command = cli.main.get_command(click.Context(cli.main), name)
    assert command.name == name
    assert command.get_short_help_str(limit=1000) == cli.LAZY_COMMANDS[name][2]
    if cli.LAZY_COMMANDS[name][1]:
        assert "--instance" in CliRunner().invoke(cli.main, [name, "--help"]).output


def test_help_lists_every_command_without_importing_them():
    code = (
        "import sys; from scorekeeper.cli import main; main(['--help'], standalone_mode=False);"
        "print(sorted(name for name in sys.modules if name.split('.')[0] in "
        "('flask', 'sqlalchemy', 'weasyprint', 'numpy', 'alembic', 'waitress')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    for name in [*cli.LAZY_COMMANDS, "replay", "serve"]:
        assert f"\n  {name} " in result.stdout
    assert result.stdout.strip().endswith("[]")


def test_a_start_imports_neither_weasyprint_nor_alembic(tmp_path):
    # WeasyPrint belongs to the PDF workers; Alembic to a start that has a migration to run.
    code = (
        "import sys; from scorekeeper.app import create_app; "
        "create_app(instance_path=sys.argv[1]); "
        "print(sorted({name.split('.')[0] for name in sys.modules} "
        "& {'weasyprint', 'alembic'}))"
    )
    first = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True
    )
    # A test's PostgreSQL database comes migrated already (tests/support/databases.py).
    assert first.stdout.strip() == ("[]" if ON_POSTGRESQL else "['alembic']")
    again = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert again.stdout.strip() == "[]"


def test_numpy_waits_for_the_first_advice(tmp_path):
    # The tables are numpy arrays: a server whose players never ask for advice starts and
    # idles without it, sheets and the review page included.
    code = """if True:
        import sys
        from scorekeeper.app import create_app
        from scorekeeper.rules import Rules
        from scorekeeper.store import HOME_HOUSEHOLD
        from scorekeeper.play import start_game
        from scorekeeper.store.quotas import NO_QUOTAS
        from scorekeeper.web.store import STORE_EXTENSION
        app = create_app(instance_path=sys.argv[1])
        game = start_game(app.extensions[STORE_EXTENSION], Rules(), ["Mag", "Alix"],
                          household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
        client = app.test_client()
        for page in ("/", f"/games/{game}", f"/games/{game}/review"):
            assert client.get(page).status_code == 200, page
        print("numpy" in sys.modules)
        client.get(f"/games/{game}/advice/progress")  # looks for the table, builds none
        print("numpy" in sys.modules)
    """
    result = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["False", "True"]


# What the server process never imports for the pages a household opens every evening:
# WeasyPrint and what it draws with (the PDF workers' fork server has them), numpy (the
# first advice asked for, a finished game's review included), Alembic (a start with a
# migration to run). Each would take the idle server past its goal of 2.5 times a bare
# Flask app's memory (bench/startup.py, docs/performance.md), which only a run of the bench
# measures: this keeps the cause out, cheaply and every time.
HEAVY_MODULES = {"weasyprint", "pydyf", "fontTools", "PIL", "tinycss2", "numpy", "alembic"}
EVERYDAY_PAGES = """if True:
    import sys
    from scorekeeper.app import create_app
    from scorekeeper.rules import Rules
    from scorekeeper.store import HOME_HOUSEHOLD
    from scorekeeper.play import play_turn, start_game
    from scorekeeper.store.players import players_of_game
    from scorekeeper.store.quotas import NO_QUOTAS
    from scorekeeper.web.store import STORE_EXTENSION

    app = create_app(instance_path=sys.argv[1])

    def imported(when):
        heavy = sorted({name.split(".")[0] for name in sys.modules} & set(sys.argv[2:]))
        print(when, heavy)

    imported("start")
    store = app.extensions[STORE_EXTENSION]
    game = start_game(store, Rules(), ["Mag", "Alix"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    boxes = ["ones", "twos", "threes", "fours", "fives", "sixes", "three_kind", "four_kind",
             "full_house", "small_straight", "large_straight", "yams", "chance"]
    for seq in range(2 * len(boxes)):
        play_turn(store, game, seq, "free", boxes[seq // 2], "12345", household=HOME_HOUSEHOLD)
    player = players_of_game(store, game, household=HOME_HOUSEHOLD)[0].id
    client = app.test_client()
    for page in ("/", f"/games/{game}", "/hall-of-fame", f"/players/{player}"):
        assert client.get(page).status_code == 200, page
        imported(page.split("/")[1] or "home")
"""


def test_the_everyday_pages_import_no_heavy_module(tmp_path):
    # The first start migrates, with Alembic: the next ones are measured.
    run = [sys.executable, "-c", EVERYDAY_PAGES, str(tmp_path), *HEAVY_MODULES]
    subprocess.run(run, capture_output=True, text=True, check=True)
    result = subprocess.run(run, capture_output=True, text=True, check=True)
    assert result.stdout.splitlines() == [
        "start []",
        "home []",
        "games []",
        "hall-of-fame []",
        "players []",
    ]


def test_addresses_follow_the_listening_host(monkeypatch):
    monkeypatch.setattr(cli, "lan_address", lambda: "10.0.0.7")
    assert cli.addresses_to_open("0.0.0.0", 80) == ["http://localhost:80", "http://10.0.0.7:80"]
    assert cli.addresses_to_open("127.0.0.1", 80) == ["http://localhost:80"]
    assert cli.addresses_to_open("10.0.0.9", 80) == ["http://10.0.0.9:80"]


def test_lan_address_is_an_ipv4_address():
    assert isinstance(ipaddress.ip_address(lan_address()), ipaddress.IPv4Address)


def test_lan_address_without_a_route_falls_back_to_the_host_name(monkeypatch):
    class Unroutable(socket.socket):
        def connect(self, address):
            raise OSError("network is unreachable")

    monkeypatch.setattr(socket, "socket", Unroutable)
    assert isinstance(ipaddress.ip_address(lan_address()), ipaddress.IPv4Address)


def test_first_start_creates_instance_secret_key_and_database(tmp_path, monkeypatch):
    monkeypatch.delenv(DATABASE_URL_ENV, raising=False)
    instance = tmp_path / "not" / "there" / "yet"

    app = create_app(instance_path=instance)

    assert app.instance_path == str(instance.resolve())
    key_file = instance / SECRET_KEY_FILE
    assert key_file.is_file()
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert app.secret_key == key_file.read_text().strip()
    assert len(app.secret_key) >= 64
    assert (instance / DATABASE_FILE).is_file()
    assert app.config["BABEL_DEFAULT_LOCALE"] == "fr"
    assert app.config["MAX_CONTENT_LENGTH"] == 1024 * 1024


def test_a_second_start_reuses_the_secret_key(instance_path):
    first = create_app(instance_path=instance_path)
    second = create_app({"INSTANCE_PATH": instance_path})
    assert first.secret_key == second.secret_key


def test_each_instance_gets_its_own_secret_key(tmp_path):
    assert (
        create_app(instance_path=tmp_path / "a").secret_key
        != create_app(instance_path=tmp_path / "b").secret_key
    )


def test_instance_config_then_environment_choose_the_database(instance_path, monkeypatch):
    monkeypatch.delenv(DATABASE_URL_ENV, raising=False)
    instance_path.mkdir()
    from_config = instance_path / "from_config.sqlite3"
    (instance_path / "config.py").write_text(f'DATABASE_URL = "sqlite:///{from_config}"\n')
    assert (
        create_app(instance_path=instance_path)
        .config["DATABASE_URL"]
        .endswith("from_config.sqlite3")
    )
    assert from_config.is_file()

    from_env = instance_path / "from_env.sqlite3"
    monkeypatch.setenv(DATABASE_URL_ENV, f"sqlite:///{from_env}")
    create_app(instance_path=instance_path)
    assert from_env.is_file()
    assert not (instance_path / DATABASE_FILE).exists()


def test_app_keeps_csrf_on_and_serves_the_stylesheet(app, client):
    assert app.config.get("WTF_CSRF_ENABLED", True)
    response = client.get("/static/css/app.css")
    assert response.status_code == 200
    assert b".sheet" in response.data


def test_base_template_compiles(app):
    assert app.jinja_env.get_template("base.html") is not None
