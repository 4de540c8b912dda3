"""The locked fetcher: the app's static files, and nothing else, whatever the URL says."""

import pytest
from weasyprint import HTML

from scorekeeper.sheets.fetcher import STATIC_BASE_URL, RefusedURL, StaticFilesFetcher


@pytest.fixture
def static(tmp_path):
    folder = tmp_path / "static"
    (folder / "css").mkdir(parents=True)
    (folder / "css" / "print.css").write_text("body { color: #000 }")
    (tmp_path / "secret.txt").write_text("not for sheets")
    return folder


def test_serves_a_static_file_with_its_type(static):
    response = StaticFilesFetcher(static).fetch(STATIC_BASE_URL + "css/print.css")
    assert response.read() == b"body { color: #000 }"
    assert response.content_type == "text/css"


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "FILE:///etc/passwd",
        "http://example.com/static/css/print.css",
        "https://example.com/",
        "ftp://example.com/file",
        "data:text/plain,hello",
        "https://sheets.scorekeeper.invalid.example.com/static/css/print.css",
        "https://user@sheets.scorekeeper.invalid/static/css/print.css",
        "http://sheets.scorekeeper.invalid/static/css/print.css",
        STATIC_BASE_URL.replace("/static/", "/games/1"),
        STATIC_BASE_URL + "../secret.txt",
        STATIC_BASE_URL + "%2e%2e/secret.txt",
        STATIC_BASE_URL + "css/..%2f..%2fsecret.txt",
        STATIC_BASE_URL + "/etc/passwd",
        STATIC_BASE_URL + "css/missing.css",
        STATIC_BASE_URL + "css",
    ],
)
def test_refuses_everything_else(static, url):
    with pytest.raises(RefusedURL):
        StaticFilesFetcher(static).fetch(url)


def test_refuses_a_link_out_of_the_static_folder(static):
    (static / "css" / "escape.txt").symlink_to(static.parent / "secret.txt")
    with pytest.raises(RefusedURL):
        StaticFilesFetcher(static).fetch(STATIC_BASE_URL + "css/escape.txt")


def test_a_document_cannot_reach_local_files_or_the_network(static, caplog):
    """Markup that asks for local files and remote images renders without any of them."""
    html = """<link rel="stylesheet" href="file:///etc/passwd">
      <img src="/etc/passwd"><img src="file:///etc/hostname"><img src="http://192.0.2.1/x.png">
      <p style="background: url(../secret.txt)">text</p>"""
    fetcher = StaticFilesFetcher(static)
    asked = []
    original = fetcher.fetch

    def spy(url, headers=None):
        asked.append(url)
        return original(url, headers)

    fetcher.fetch = spy
    pdf = HTML(string=html, base_url=STATIC_BASE_URL, url_fetcher=fetcher).write_pdf()
    assert pdf.startswith(b"%PDF-")
    assert asked, "the document asked for nothing: the test proves nothing"
    assert b"not for sheets" not in pdf
