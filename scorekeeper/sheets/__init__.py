"""PDF sheets: blank grids to print and the sheet of any game, from Jinja templates by WeasyPrint.

May import the rules and the store, never the web layer. Resources load through a fetcher
locked to the app's static files; blank grids are cached in memory and in the instance folder.
"""

from scorekeeper.sheets.cache import BlankCache
from scorekeeper.sheets.fetcher import STATIC_BASE_URL, RefusedURL, StaticFilesFetcher
from scorekeeper.sheets.layout import (
    MAX_PAGES,
    PAPERS,
    BlankGrid,
    Paper,
    PrintOptionError,
    blank_grid_from_query,
    paper_from_query,
)
from scorekeeper.sheets.pdf import blank_pdf, game_html, game_pdf, render_pdf, sheets_cache

__all__ = [
    "MAX_PAGES", "PAPERS", "STATIC_BASE_URL", "BlankCache", "BlankGrid", "Paper",
    "PrintOptionError", "RefusedURL", "StaticFilesFetcher", "blank_grid_from_query", "blank_pdf",
    "game_html", "game_pdf", "paper_from_query", "render_pdf", "sheets_cache",
]
