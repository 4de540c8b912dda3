"""Reading the PDFs the app prints."""

import io

from pypdf import PdfReader
from weasyprint import HTML
from weasyprint.formatting_structure.boxes import BlockBox

from scorekeeper.sheets.fetcher import STATIC_BASE_URL, StaticFilesFetcher

# Each paper's page size in points.
SIZES = {"a4": (595, 842), "letter": (612, 792)}


def pdf_of(response) -> PdfReader:
    assert response.status_code == 200, response.get_data(as_text=True)[-800:]
    assert response.mimetype == "application/pdf"
    assert response.data.startswith(b"%PDF-")
    return PdfReader(io.BytesIO(response.data))


def sizes(reader: PdfReader) -> set[tuple[int, int]]:
    return {
        (round(float(page.mediabox.width)), round(float(page.mediabox.height)))
        for page in reader.pages
    }


def text(reader: PdfReader) -> str:
    return " ".join(" ".join(page.extract_text() for page in reader.pages).split())


def laid_out(html: str, static_folder: str):
    """The document as WeasyPrint lays it out, through the app's locked fetcher."""
    return HTML(
        string=html, base_url=STATIC_BASE_URL, url_fetcher=StaticFilesFetcher(static_folder)
    ).render()


def blocks_of_class(page, name: str) -> list:
    """The block boxes of a laid-out page whose element has this class."""
    return [
        box
        for box in page._page_box.descendants()
        if isinstance(box, BlockBox)
        and getattr(box, "element", None) is not None
        and box.element.get("class") == name
    ]
