"""PDF workers: the worker processes that draw PDFs (scorekeeper/workers.py), so that a
print never holds a request thread's CPU nor grows the server.

A PDF takes 0.1 to 1.5 s of CPU, and WeasyPrint never gives back the 0.2 MiB it keeps after
each: renders run in workers replaced after a number of PDFs. One household's prints run
one at a time, the households in turn; a print that finds every worker busy and the queue
full is refused at once with PrintersBusy (a 503 that says to try again).
"""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path

from scorekeeper.workers import (
    Busy,
    WorkerFailed,
    Workers,
    WorkerSettings,
    preload,
    shared_workers,
)

__all__ = ["PdfWorkers", "PrintersBusy", "WorkerSettings", "pdf_workers"]

# The drawing (render.py, WeasyPrint with it), imported by the fork server for every PDF
# worker; named, not imported: the server process itself never loads WeasyPrint.
preload("scorekeeper.sheets.render")


class PrintersBusy(Exception):
    """Every PDF worker is busy and the queue is full, or a worker failed: nothing was drawn,
    and the same request a few seconds later will be."""


class PdfWorkers(Workers):
    """The workers that render HTML into PDF."""

    def render(
        self, html: str, static_folder: str | Path, copies: int = 1, *, household: Hashable
    ) -> bytes:
        """The PDF of ``html`` drawn by a worker in ``household``'s turn (see
        render.render_pdf); PrintersBusy when there is no place for it."""
        try:
            return self.run(household, _render, html, str(static_folder), copies)
        except (Busy, WorkerFailed):
            raise PrintersBusy from None

    def render_png(
        self, html: str, static_folder: str | Path, width_px: int, *, household: Hashable
    ) -> bytes:
        """The PNG of ``html``'s first page, ``width_px`` wide, drawn by a worker in
        ``household``'s turn (see render.render_png); PrintersBusy when there is no place."""
        try:
            return self.run(household, _render_png, html, str(static_folder), width_px)
        except (Busy, WorkerFailed):
            raise PrintersBusy from None


def _render_png(html: str, static_folder: str, width_px: int) -> bytes:
    from scorekeeper.sheets.render import render_png

    return render_png(html, static_folder, width_px)


def _render(html: str, static_folder: str, copies: int) -> bytes:
    from scorekeeper.sheets.render import render_pdf

    return render_pdf(html, static_folder, copies)


def pdf_workers(settings: WorkerSettings) -> PdfWorkers:
    """The process's PDF workers for these settings."""
    return shared_workers(PdfWorkers, settings)
