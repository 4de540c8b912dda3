"""Every setting of the score keeper, with its default and what it does: the one list.

`create_app` starts from these defaults; the instance's config.py, then the environment
(SCOREKEEPER_DATABASE_URL, SCOREKEEPER_SECRET_KEY), then `create_app`'s own argument override
them, the last one winning. Modules read `app.config[NAME]`, never a default of their own.
README's settings table is checked against this list (tests/test_config.py).
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytz
import tzlocal

PACKAGE_DIR = Path(__file__).resolve().parent
DATABASE_FILE = "scorekeeper.sqlite3"
# The instance's folder of the templates compiled by the previous starts.
TEMPLATE_CACHE_DIR = "compiled-templates"


class SettingError(RuntimeError):
    """A setting that cannot be used as given: said in one line at start, not a traceback in
    every request's log."""


@dataclass(frozen=True)
class Setting:
    name: str
    # The value, or a function of the instance folder that gives it.
    default: Any
    meaning: str

    def value(self, instance: Path) -> Any:
        # A copy: an app that changes its list or dict leaves the next app's alone.
        return self.default(instance) if callable(self.default) else copy.deepcopy(self.default)


def _household_timezone(_instance: Path) -> str:
    """The machine's time zone: the server sits in the house, and its dates and times are
    shown in the house's zone (the database keeps UTC). UTC when the machine has none that
    Flask-Babel (pytz) knows."""
    try:
        name = tzlocal.get_localzone_name()
    except Exception:  # tzlocal raises its own errors for a misconfigured machine
        return "UTC"
    return name if name in pytz.all_timezones_set else "UTC"


def _sqlite_in(instance: Path) -> str:
    return f"sqlite:///{instance / DATABASE_FILE}"


def _compiled_templates_in(instance: Path) -> str:
    return str(instance / TEMPLATE_CACHE_DIR)


def _from_environment(name: str, default: int):
    """A count that the WSGI server's configuration hands to the app it starts."""

    def value(_instance: Path) -> int:
        return int(os.environ.get(name) or default)

    return value


def _half_the_cores(_instance: Path) -> int:
    """Half the machine's cores, at least one: the other half stays the turns'."""
    return max(1, (os.cpu_count() or 1) // 2)


def _translations(_instance: Path) -> str:
    return str(PACKAGE_DIR / "translations")


SETTINGS: tuple[Setting, ...] = (
    # The database and the server.
    Setting(
        "DATABASE_URL",
        _sqlite_in,
        "Where the games are kept: SQLite in the instance folder, or postgresql://...",
    ),
    Setting(
        "DATABASE_ENGINE_OPTIONS",
        {},
        "Passed to SQLAlchemy's create_engine (pool_size, max_overflow, pool_timeout...), "
        "over the pool sized from SERVER_THREADS.",
    ),
    Setting(
        "DATABASE_LOCK_TIMEOUT_SECONDS",
        3.0,
        "PostgreSQL, the longest a request waits for a lock (a game's row another request "
        "holds) or for a pooled connection; then a 503, and other games never wait behind it.",
    ),
    Setting(
        "DATABASE_STATEMENT_TIMEOUT_SECONDS",
        10.0,
        "PostgreSQL, the longest one statement of a request may run; then a 503.",
    ),
    Setting(
        "DATABASE_IDLE_SECONDS",
        60,
        "PostgreSQL, how long a pooled connection may stay idle before the server closes it, "
        "leaving the room to other clients (psql, pg_dump, migrate).",
    ),
    Setting(
        "SERVER_WORKERS",
        _from_environment("SCOREKEEPER_WORKERS", 1),
        "Server processes of this group on the database (set by gunicorn's configurations): the "
        "start-up check of PostgreSQL's max_connections counts them.",
    ),
    Setting(
        "SERVER_THREADS",
        _from_environment("SCOREKEEPER_THREADS", 4),
        "Request threads of a server process (set by gunicorn's configurations): on "
        "PostgreSQL its pool holds as many connections, no more.",
    ),
    Setting(
        "LIVE_STREAMS",
        _from_environment("SCOREKEEPER_LIVE_STREAMS", 32),
        "Open sheets a server process keeps live by push: at home each holds one of "
        "waitress's threads besides SERVER_THREADS; hosted, gunicorn's configurations set it "
        "(gunicorn_streams_conf.py: 10,000 a gevent worker, where each is a socket; "
        "gunicorn_conf.py: none). A sheet beyond them gets a 503 and asks again 5 s later.",
    ),
    Setting(
        "LIVE_STREAMS_PER_DEVICE",
        3,
        "Hosted, open sheets a household keeps live by push in each server process, for each "
        "device it has: a stream past them ends the household's own oldest (that sheet then "
        "asks every 5 s), never another household's.",
    ),
    Setting(
        "LIVE_STREAMS_PER_SPECTATOR_LINK",
        3,
        "Hosted, spectator pages of one link kept live by push in each server process: a "
        "stream past them ends the link's own oldest.",
    ),
    Setting(
        "LIVE_STREAM_SECONDS",
        1800,
        "How long one open sheet's stream of changes lasts before the browser opens another "
        "(at once): a tablet gone without a word, or a proxy's idle connection, is let go "
        "within it, and each new stream is a request (10,000 open sheets: 6 a second). 0: the "
        "version, then the end (a poll).",
    ),
    Setting(
        "SERVER_CONNECTION_LIMIT",
        10_000,
        "scorekeeper serve: the most connections held at once (waitress's connection_limit), "
        "fewer when the process may not open that many files (its soft limit is raised to "
        "the hard one at start, room kept for the database and the workers). An idle or slow "
        "connection costs a socket and about 2 KiB, no thread.",
    ),
    Setting(
        "SERVER_IDLE_SECONDS",
        60,
        "scorekeeper serve: a connection that sends nothing this long, with no answer under "
        "way, is closed (waitress's channel_timeout); an open sheet's stream is an answer "
        "under way and stays.",
    ),
    Setting(
        "SECRET_KEY",
        None,
        "Signs sessions and cookies; generated into the instance folder when not set.",
    ),
    Setting(
        "TRUSTED_PROXIES",
        0,
        "How many reverse proxies stand in front of the app: their X-Forwarded-For and "
        "X-Forwarded-Proto headers are believed, nobody else's (0: none are).",
    ),
    Setting(
        "MAX_CONTENT_LENGTH",
        1024 * 1024,
        "The largest request body, in bytes, of every form but the import.",
    ),
    Setting(
        "IMPORT_MAX_BYTES",
        16 * 1024 * 1024,
        "The largest file, in bytes, that an import accepts (about 2 kB a game).",
    ),
    # Languages and dates.
    Setting(
        "LANGUAGES",
        ["fr", "en", "de", "es", "sv"],
        "The languages offered, the first one the default.",
    ),
    Setting("BABEL_DEFAULT_LOCALE", "fr", "The language of a browser that asks for none."),
    Setting(
        "BABEL_DEFAULT_TIMEZONE",
        _household_timezone,
        "The time zone dates are shown in: the machine's.",
    ),
    Setting("BABEL_TRANSLATION_DIRECTORIES", _translations, "Where the catalogues are."),
    # Households.
    Setting(
        "HOUSEHOLD_PIN", None, "At home, a code asked before destructive actions (None: not asked)."
    ),
    Setting(
        "HOUSEHOLDS",
        False,
        "Hosted for many households: devices join theirs by name and passphrase.",
    ),
    Setting("HOUSEHOLD_SIGNUP", True, "Hosted, whether strangers may create a household."),
    Setting(
        "SIGNUPS_PER_ADDRESS",
        5,
        "Hosted, sign-ups one address (an IPv6 /64) may try an hour, taken names too; "
        "beyond, a 429 before any passphrase is hashed.",
    ),
    Setting(
        "SIGNUPS_PER_HOUR",
        60,
        "Hosted, households all addresses together may create an hour: only those created "
        "count, a refused try counting against its own address alone (the same 429).",
    ),
    Setting(
        "EXTERNAL_URL",
        None,
        "The address devices open, scheme://host[:port] (https://yams.example): join and "
        "spectator links and their QR codes are built from it. Required when HOUSEHOLDS "
        "= True; at home, when not set, the address each page was asked on. When it is "
        "https, the session and device cookies are sent over HTTPS only (Secure).",
    ),
    Setting(
        "TRUSTED_HOSTS",
        None,
        "Hosted, the host names a request may ask for, any other a 400 (Flask's setting; "
        "None: EXTERNAL_URL's host).",
    ),
    Setting("SESSION_COOKIE_SAMESITE", "Lax", "The session cookie's SameSite."),
    Setting(
        "SESSION_COOKIE_SECURE",
        False,
        "The session cookie (which holds the CSRF token) only over HTTPS: True by itself "
        "when EXTERNAL_URL is https.",
    ),
    Setting(
        "REMEMBER_COOKIE_DURATION",
        timedelta(days=400),
        "Hosted, how long a device stays joined without coming back.",
    ),
    Setting("REMEMBER_COOKIE_HTTPONLY", True, "The device cookie is out of scripts' reach."),
    Setting("REMEMBER_COOKIE_SAMESITE", "Lax", "The device cookie's SameSite."),
    Setting(
        "REMEMBER_COOKIE_SECURE",
        False,
        "The device cookie only over HTTPS: True by itself when EXTERNAL_URL is https.",
    ),
    # Printing.
    Setting("PDF_WORKERS", 2, "Processes that draw PDFs, outside the request threads."),
    Setting(
        "PDF_QUEUE",
        1,
        "PDFs that may wait for a worker (one household's draw one at a time) before a "
        "print gets a 503: kept short, so that workers + queue stay below the server's "
        "threads and a print storm leaves one.",
    ),
    Setting(
        "PDF_RENDERS_PER_WORKER",
        25,
        "PDFs a worker draws before it is replaced (about 5 MiB leaked each).",
    ),
    Setting(
        "PDF_TIMEOUT_SECONDS",
        120.0,
        "The longest a PDF may wait and take; then the print gets a 503.",
    ),
    Setting(
        "TEMPLATE_CACHE_FOLDER",
        _compiled_templates_in,
        "Where the templates are kept compiled from one start to the next, each file "
        "keyed by its template's source: a cache, which several servers of one version may "
        "share and deleting is always safe.",
    ),
    Setting(
        "FORK_SERVER_AT_START",
        False,
        "Start the PDF and import workers' fork server (WeasyPrint imported, about 70 MiB) "
        "in the background with the server (each gunicorn worker), so that the first print "
        "or import after a start does not wait about 1 s for it; "
        "False: at the first of those jobs, and its memory only then.",
    ),
    Setting(
        "ADVISOR_TABLES_AHEAD",
        True,
        "Build the Conseil's tables before they are asked for, in the background at a low "
        "priority: a new game's missing ones as soon as it is created, and classique's and "
        "Yatzy's after the server starts (one process of it), so that the first Conseil of "
        "a game answers at once; False: at the first Conseil asked.",
    ),
    Setting(
        "COACH_AFTER_GAMES",
        True,
        "Count, after each finished game, the points each player left to the Conseil (for "
        "the player pages and the hall of fame), in the background in a worker process at a "
        "low priority, and after a start those of the games finished before (one process of "
        "the server); a game whose Conseil tables are missing is counted once they are built. "
        "False: nothing is counted.",
    ),
    # Heavy work shared fairly: worker processes and threads, households in turn.
    Setting(
        "IMPORT_WORKERS",
        1,
        "Processes that check and write imports, outside the request threads (one "
        "household's imports one at a time).",
    ),
    Setting("IMPORT_QUEUE", 1, "Imports that may wait for a worker before one gets a 503."),
    Setting(
        "PASSPHRASE_HASHERS",
        _half_the_cores,
        "Passphrases hashed or checked at once by a server process, in its request threads "
        "(each about 0.1 s of a core): the others wait their turn.",
    ),
    Setting(
        "PASSPHRASE_QUEUE",
        1,
        "Passphrases that may wait their turn before a sign-up or a join gets a 503.",
    ),
    # Hosted, what each household may store and ask for (None: no limit). At home, nothing
    # is limited: the family owns the machine.
    Setting(
        "QUOTA_GAMES_STORED",
        20_000,
        "Hosted, the games a household keeps at most (in progress, finished or abandoned).",
    ),
    Setting("QUOTA_IMPORTS_PER_DAY", 10, "Hosted, the imports a household makes in any 24 hours."),
    Setting(
        "QUOTA_PDF_PAGES_PER_MINUTE",
        100,
        "Hosted, the PDF pages drawn for a household in any minute (a PDF drawn before "
        "costs nothing).",
    ),
    Setting(
        "QUOTA_ADVISOR_BUILDS_PER_DAY",
        4,
        "Hosted, the advisor's tables built for a household in any 24 hours.",
    ),
)

BY_NAME: dict[str, Setting] = {setting.name: setting for setting in SETTINGS}


def defaults(instance: Path) -> dict[str, Any]:
    """Every setting's default for the app of this instance folder."""
    return {setting.name: setting.value(instance) for setting in SETTINGS}


def check_time_zone(name: str) -> None:
    """Said at start, rather than a 500 on every page that shows a date."""
    if name not in pytz.all_timezones_set:
        raise SettingError(
            f"BABEL_DEFAULT_TIMEZONE: unknown time zone {name!r} (try 'Europe/Paris')"
        )


def served_over_https(config: dict[str, Any]) -> bool:
    """Whether EXTERNAL_URL says devices open the server over HTTPS."""
    return urlsplit(str(config["EXTERNAL_URL"] or "")).scheme == "https"


def external_host(config: dict[str, Any]) -> str | None:
    """EXTERNAL_URL's host name, None when it is not set.

    Hosted, the links a household hands to another device must not depend on what a request
    says its host is, so the setting is required there. Said at start: missing when hosted,
    or anything but scheme, host and port (the app's own path comes from the server).
    """
    url = config["EXTERNAL_URL"]
    if url is None:
        if config["HOUSEHOLDS"]:
            raise SettingError(
                "HOUSEHOLDS = True needs EXTERNAL_URL, the address devices "
                "open (for instance EXTERNAL_URL = 'https://yams.example')"
            )
        return None
    try:
        parts = urlsplit(str(url))
        parts.port  # noqa: B018 - reading it checks it
    except ValueError:
        parts = None
    if (
        parts is None
        or parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or parts.username
        or parts.password
    ):
        raise SettingError(
            f"EXTERNAL_URL: {url!r} is not scheme://host[:port] "
            "(for instance 'https://yams.example')"
        )
    return parts.hostname
