"""The locked URL fetcher: a sheet may load the app's own static files and nothing else.

Sheets are rendered from HTML strings whose base URL is ``STATIC_BASE_URL``, an address under
the reserved ``.invalid`` domain that can never resolve. The fetcher answers that prefix from
the static folder on disk and refuses every other URL (``file://``, ``http(s)://``, ``data:``,
paths that climb out of the folder) before urllib ever sees it: nothing in a player's name, nor
a bug in a template, can make a PDF read a local file or reach the network.
"""

import logging
import mimetypes
from pathlib import Path
from urllib.parse import unquote, urlsplit

from weasyprint.urls import URLFetcher, URLFetcherResponse
from werkzeug.security import safe_join

ORIGIN = "https://sheets.scorekeeper.invalid"
STATIC_PREFIX = "/static/"
STATIC_BASE_URL = ORIGIN + STATIC_PREFIX

LOGGER = logging.getLogger(__name__)


class RefusedURL(ValueError):
    """A URL outside the app's static files. WeasyPrint skips the resource and logs it."""


class StaticFilesFetcher(URLFetcher):
    """Serve ``STATIC_BASE_URL/...`` from ``static_folder``; refuse everything else."""

    def __init__(self, static_folder: str | Path) -> None:
        # fetch() below never calls the base class's, so its urllib handlers (file, http, ftp,
        # data) are never used; the empty protocol list keeps it so should anyone call it.
        super().__init__(allowed_protocols=(), allow_redirects=False, fail_on_errors=False)
        self.root = Path(static_folder).resolve()

    def fetch(self, url: str, headers: dict | None = None) -> URLFetcherResponse:
        path = self.local_path(url)
        if path is None:
            LOGGER.warning("sheet resource refused: %.200s", url)
            raise RefusedURL(f"only the app's static files may be loaded, not {url[:200]}")
        content_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return URLFetcherResponse(url, path.read_bytes(), {"Content-Type": content_type})

    def local_path(self, url: str) -> Path | None:
        """The static file a URL names, or None when the URL is not one of ours."""
        parts = urlsplit(url)
        if f"{parts.scheme}://{parts.netloc}" != ORIGIN:
            return None
        if not parts.path.startswith(STATIC_PREFIX):
            return None
        joined = safe_join(str(self.root), unquote(parts.path[len(STATIC_PREFIX) :]))
        if joined is None:
            return None
        path = Path(joined).resolve()
        # A symbolic link inside the folder must not lead out of it either.
        if not path.is_relative_to(self.root) or not path.is_file():
            return None
        return path
