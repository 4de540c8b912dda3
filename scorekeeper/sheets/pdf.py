"""PDF sheets: HTML from the Jinja templates, rendered by WeasyPrint with the locked fetcher.

Call these inside a request (or a test request) context: the templates translate with
Flask-Babel, whose locale comes from the request.
"""

import threading
from pathlib import Path

import pydyf
from flask import current_app, render_template
from flask_babel import get_locale
from weasyprint import HTML
from weasyprint import __version__ as weasyprint_version

import scorekeeper.rules
from scorekeeper.rules import GameState
from scorekeeper.rules.options import UPPER_BONUS_THRESHOLD
from scorekeeper.sheets.cache import BlankCache, fingerprint
from scorekeeper.sheets.fetcher import STATIC_BASE_URL, StaticFilesFetcher
from scorekeeper.sheets.layout import BlankGrid, Paper, box_hint, game_layout, grid_rows
from scorekeeper.store import HOME_HOUSEHOLD, Store
from scorekeeper.store.play import load
from scorekeeper.store.records import GameRecord

# Where the app keeps its BlankCache among its extensions, and where the cache writes.
EXTENSION = "scorekeeper.sheets"
CACHE_FOLDER = "sheets-cache"
# The print stylesheet, relative to the static folder (and so to STATIC_BASE_URL).
STYLESHEET = "css/print.css"

_cache_lock = threading.Lock()


def render_pdf(html: str, static_folder: str | Path, copies: int = 1) -> bytes:
    """The PDF of ``html``, its pages repeated ``copies`` times.

    Repeated pages share the first ones' content streams: a twenty-page blank print costs the
    layout and painting of one page, plus a few bytes per page.
    """
    document = HTML(string=html, base_url=STATIC_BASE_URL,
                    url_fetcher=StaticFilesFetcher(static_folder)).render()
    if copies == 1:
        return document.write_pdf()
    return document.write_pdf(finisher=_repeat_pages(copies))


def _repeat_pages(copies: int):
    def finisher(_document, pdf: pydyf.PDF) -> None:
        # Kids holds "number 0 R" triples: every third item is a page object's number.
        originals = [pdf.objects[number] for number in pdf.pages["Kids"][::3]]
        for _ in range(copies - 1):
            for page in originals:
                pdf.add_page(pydyf.Dictionary(page))
    return finisher


def sheets_cache() -> BlankCache:
    """The app's blank-grid cache, made on first use in its instance folder."""
    app = current_app._get_current_object()
    cache = app.extensions.get(EXTENSION)
    if cache is None:
        with _cache_lock:
            cache = app.extensions.get(EXTENSION)
            if cache is None:
                cache = BlankCache(Path(app.instance_path) / CACHE_FOLDER, _app_fingerprint())
                app.extensions[EXTENSION] = cache
    return cache


def _app_fingerprint() -> str:
    """What a blank grid's drawing depends on, besides its options: templates, print CSS,
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
    return fingerprint(sources, extra=f"weasyprint {weasyprint_version}")


def blank_html(grid: BlankGrid) -> str:
    rules = grid.rules
    return render_template(
        "sheets/blank.html", grid=grid, rules=rules, rows=grid.rows,
        hints={box: box_hint(rules, box) for box in rules.boxes},
        bonus_threshold=UPPER_BONUS_THRESHOLD, stylesheet=STYLESHEET,
    )


def blank_pdf(grid: BlankGrid) -> tuple[str, bytes]:
    """The grid's PDF and its cache key, fit for an ETag: each key is rendered once."""
    cache = sheets_cache()
    key = cache.key({**grid.identity(), "locale": str(get_locale())})
    pdf = cache.get(key)
    if pdf is None:
        pdf = render_pdf(blank_html(grid), current_app.static_folder, copies=grid.pages)
        cache.put(key, pdf)
    return key, pdf


def game_html(record: GameRecord, state: GameState, paper: Paper) -> str:
    return render_template(
        "sheets/game.html", record=record, state=state, rules=state.rules,
        rows=grid_rows(state.rules), layout=game_layout(state.rules, len(state.players), paper),
        stylesheet=STYLESHEET,
    )


def game_pdf(store: Store, game_id: int, paper: Paper,
             household: int = HOME_HOUSEHOLD) -> bytes:
    """A game's sheet as the screen shows it, from the same replay of its log.

    Raises GameNotFound for a game the household has not.
    """
    record, state = load(store, game_id, household)
    return render_pdf(game_html(record, state, paper), current_app.static_folder)
