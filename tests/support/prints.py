"""Reading the PDFs the app prints, with PDFium (the app's own PDF reader, which draws the
result card): its text and page sizes, a few milliseconds a PDF."""

from dataclasses import dataclass

import pypdfium2 as pdfium
from weasyprint import HTML
from weasyprint.formatting_structure.boxes import BlockBox

from scorekeeper.sheets.fetcher import STATIC_BASE_URL, StaticFilesFetcher

# Each paper's page size in points.
SIZES = {"a4": (595, 842), "letter": (612, 792)}


@dataclass(frozen=True)
class Page:
    text: str  # as PDFium reads it, a line break between lines
    size: tuple[int, int]  # width and height, in points

    def words(self) -> str:
        """The page's text with every run of spaces and line breaks as one space."""
        return " ".join(self.text.split())


@dataclass(frozen=True)
class Pdf:
    pages: list[Page]


def read(pdf: bytes) -> Pdf:
    """A whole PDF (its header and its end), page by page."""
    assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
    document = pdfium.PdfDocument(pdf)
    try:
        return Pdf(
            [
                Page(
                    page.get_textpage().get_text_bounded(),
                    tuple(round(length) for length in page.get_size()),
                )
                for page in document
            ]
        )
    finally:
        document.close()


def pdf_of(response) -> Pdf:
    assert response.status_code == 200, response.get_data(as_text=True)[-800:]
    assert response.mimetype == "application/pdf"
    return read(response.data)


def sizes(pdf: Pdf) -> set[tuple[int, int]]:
    return {page.size for page in pdf.pages}


def text(pdf: Pdf) -> str:
    return " ".join(page.words() for page in pdf.pages)


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
