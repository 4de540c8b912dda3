"""Reading the PDFs the app prints."""

import io

from pypdf import PdfReader

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
