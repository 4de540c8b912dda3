"""PDF sheets: HTML from the Jinja templates, drawn by the PDF workers with the locked fetcher.

Call these inside a request (or a test request) context: the templates translate with
Flask-Babel, whose locale comes from the request. The HTML is made here, in the request; the
drawing happens in a worker process (workers.py), in the household's turn, and PrintersBusy
says when there is no place for it. A PDF drawn is paid for by the caller, its pages counted
within `paying` (the web counts them in the household's quota); one served from a cache
costs nothing.
"""

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from importlib.metadata import version as package_version
from pathlib import Path

from flask import current_app, render_template
from flask_babel import get_locale

import scorekeeper.rules
from scorekeeper.rules import GameState
from scorekeeper.sheets.cache import PdfCache, fingerprint
from scorekeeper.sheets.hints import box_hint
from scorekeeper.sheets.layout import BlankGrid, Paper, game_layout, grid_rows
from scorekeeper.sheets.workers import PdfWorkers, WorkerSettings, pdf_workers
from scorekeeper.store.records import GameRecord

# Where the app keeps its caches among its extensions, and where the blank grids' one writes.
EXTENSION = "scorekeeper.sheets"
GAMES_EXTENSION = "scorekeeper.sheets.games"
CACHE_FOLDER = "sheets-cache"
# Filled sheets stay in memory only (about 40 kB each): the few tablets of a game ask for the
# same version, and a game's next turn makes another.
GAMES_CACHE_BYTES = 4 * 1024 * 1024
# The print stylesheet, relative to the static folder (and so to fetcher.STATIC_BASE_URL).
STYLESHEET = "css/print.css"

_cache_lock = threading.Lock()

# What pays for the pages a PDF draws: given their number, a context around the drawing that
# counts them, and gives them back when the drawing fails (PrintersBusy).
Paying = Callable[[int], AbstractContextManager]


def app_pdf_workers() -> PdfWorkers:
    """The workers of the app's settings: PDF_WORKERS, PDF_QUEUE, PDF_RENDERS_PER_WORKER and
    PDF_TIMEOUT_SECONDS (scorekeeper/config.py)."""
    config = current_app.config
    return pdf_workers(
        WorkerSettings(
            workers=config["PDF_WORKERS"],
            queue=config["PDF_QUEUE"],
            jobs_per_worker=config["PDF_RENDERS_PER_WORKER"],
            timeout_seconds=config["PDF_TIMEOUT_SECONDS"],
        )
    )


def _drawn(html: str, pages: int, *, household: int, paying: Paying, copies: int = 1) -> bytes:
    """``html`` drawn in ``household``'s turn (``copies`` times over), its ``pages`` paid."""
    with paying(pages):
        return app_pdf_workers().render(
            html, current_app.static_folder, copies=copies, household=household
        )


def sheets_cache() -> PdfCache:
    """The app's blank-grid cache, made on first use in its instance folder."""
    app = current_app._get_current_object()
    return _cache(
        EXTENSION, lambda: PdfCache(Path(app.instance_path) / CACHE_FOLDER, _app_fingerprint())
    )


def games_cache() -> PdfCache:
    """The app's filled-sheet cache, in memory, keyed by each game's version."""
    return _cache(
        GAMES_EXTENSION,
        lambda: PdfCache(None, _app_fingerprint(), max_memory_bytes=GAMES_CACHE_BYTES),
    )


def _cache(extension: str, make) -> PdfCache:
    app = current_app._get_current_object()
    cache = app.extensions.get(extension)
    if cache is None:
        with _cache_lock:
            cache = app.extensions.get(extension)
            if cache is None:
                cache = app.extensions[extension] = make()
    return cache


def _app_fingerprint() -> str:
    """What a sheet's drawing depends on, besides its options: templates, print CSS,
    this package and the rules (labels, hints), translations, and WeasyPrint itself."""
    app = current_app
    sources = [
        Path(app.root_path, app.template_folder),
        Path(app.static_folder, STYLESHEET),
        Path(__file__).parent,
        Path(scorekeeper.rules.__file__).parent,
    ]
    translations = app.config.get("BABEL_TRANSLATION_DIRECTORIES", "")
    sources += [Path(folder) for folder in translations.split(";") if Path(folder).is_dir()]
    # The installed version, read without importing WeasyPrint into the server.
    return fingerprint(sources, extra=f"weasyprint {package_version('weasyprint')}")


def blank_html(grid: BlankGrid) -> str:
    rules = grid.rules
    return render_template(
        "sheets/blank.html",
        grid=grid,
        rules=rules,
        rows=grid.rows,
        hints={box: box_hint(rules, box) for box in rules.boxes},
        bonus_threshold=rules.upper_bonus_threshold,
        stylesheet=STYLESHEET,
    )


def blank_pdf(grid: BlankGrid, *, household: int, paying: Paying) -> tuple[str, bytes]:
    """The grid's PDF and its cache key, fit for an ETag: each key is rendered once, for
    the household that asks first.

    Raises PrintersBusy when it must be drawn and there is no place for it, and whatever
    `paying` raises (QuotaExceeded past the household's pages).
    """
    cache = sheets_cache()
    key = cache.key({**grid.identity(), "locale": str(get_locale())})
    pdf = cache.get(key)
    if pdf is None:
        html = blank_html(grid)
        pdf = _drawn(html, grid.pages, household=household, paying=paying, copies=grid.pages)
        cache.put(key, pdf)
    return key, pdf


def game_html(record: GameRecord, state: GameState, paper: Paper) -> str:
    return render_template(
        "sheets/game.html",
        record=record,
        state=state,
        rules=state.rules,
        rows=grid_rows(state.rules),
        layout=game_layout(state.rules, len(state.players), paper),
        stylesheet=STYLESHEET,
    )


def game_pdf(
    record: GameRecord, state: GameState, paper: Paper, *, household: int, paying: Paying
) -> tuple[str, bytes]:
    """A game's sheet as the screen shows it, from the same replay of its log, and its cache
    key: drawn once per version of the game, paper and language.

    Raises PrintersBusy when there is no place to draw it, and whatever `paying` raises
    (QuotaExceeded when the household may have no more pages drawn now).
    """
    game_id = record.id
    cache = games_cache()
    version = record.version
    key = cache.key(
        {
            "game": game_id,
            "paper": paper.key,
            "locale": str(get_locale()),
            "version": [version.entry_count, version.status, version.updated_at.isoformat()],
        }
    )
    pdf = cache.get(key)
    if pdf is None:
        # A page for each table of players the sheet spreads over.
        pages = len(game_layout(state.rules, len(state.players), paper).tables)
        pdf = _drawn(game_html(record, state, paper), pages, household=household, paying=paying)
        cache.put(key, pdf)
    return key, pdf
