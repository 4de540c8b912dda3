"""PDF sheets: blank grids to print and the sheet of any game, from Jinja templates by WeasyPrint.

May import the rules and the store, never the web layer. The server makes the HTML (pdf.py);
worker processes draw it (workers.py, render.py: the only module that imports WeasyPrint),
loading resources through a fetcher locked to the app's static files. PDFs are cached in
memory, and blank grids in the instance folder too.
"""

from scorekeeper.sheets.cache import PdfCache
from scorekeeper.sheets.layout import (
    MAX_PAGES,
    PAPERS,
    BlankGrid,
    Paper,
    PrintOptionError,
    blank_grid_from_query,
    paper_from_query,
)

__all__ = [
    "MAX_PAGES",
    "PAPERS",
    "BlankGrid",
    "Paper",
    "PdfCache",
    "PrintOptionError",
    "blank_grid_from_query",
    "paper_from_query",
]
