"""The drawing of a PDF by WeasyPrint (and of the result card's PNG from its PDF, by
PDFium): what the PDF workers run, away from the request threads.

The only module of the package that imports WeasyPrint and PDFium (with the fetcher): the
server loads them in its worker processes, never in its own.
"""

import io
from pathlib import Path

import pydyf
from weasyprint import HTML

from scorekeeper.sheets.fetcher import STATIC_BASE_URL, StaticFilesFetcher


def render_pdf(html: str, static_folder: str | Path, copies: int = 1) -> bytes:
    """The PDF of ``html``, its pages repeated ``copies`` times.

    Repeated pages share the first ones' content streams: a twenty-page blank print costs the
    layout and painting of one page, plus a few bytes per page.
    """
    document = HTML(
        string=html, base_url=STATIC_BASE_URL, url_fetcher=StaticFilesFetcher(static_folder)
    ).render()
    if copies == 1:
        return document.write_pdf()
    return document.write_pdf(finisher=_repeat_pages(copies))


# CSS pixels to PDF points: 96 of one to 72 of the other in an inch.
POINTS_PER_PIXEL = 72 / 96


def render_png(html: str, static_folder: str | Path, width_px: int) -> bytes:
    """The first page of ``html``'s PDF as a PNG ``width_px`` wide (a page that is
    ``width_px`` CSS pixels wide is drawn at one PNG pixel per CSS pixel)."""
    import pypdfium2

    pdf = pypdfium2.PdfDocument(render_pdf(html, static_folder))
    try:
        page = pdf[0]
        scale = width_px / page.get_width()
        image = page.render(scale=scale).to_pil()
    finally:
        pdf.close()
    png = io.BytesIO()
    image.save(png, format="PNG")
    return png.getvalue()


def _repeat_pages(copies: int):
    def finisher(_document, pdf: pydyf.PDF) -> None:
        # Kids holds "number 0 R" triples: every third item is a page object's number.
        originals = [pdf.objects[number] for number in pdf.pages["Kids"][::3]]
        for _ in range(copies - 1):
            for page in originals:
                pdf.add_page(pydyf.Dictionary(page))

    return finisher
