"""Write nginx's own error pages (deploy/nginx/errors/<language>/<status>.html) from
templates/front/error.html, in each language of the app, with the app's catalogues.

    python -m scripts.front_errors

nginx answers these without the app (a body too large, a client too slow, the app away),
so they are files; their words are the app's messages, translated like every other one.
Run it after changing the template or a translation: tests/test_front.py fails while a
file differs from what this writes.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from flask import render_template

from scorekeeper.app import STORE_EXTENSION, create_app
from scorekeeper.web.language import COOKIE

ERRORS_FOLDER = Path(__file__).resolve().parent.parent / "deploy" / "nginx" / "errors"
STATUSES = ("408", "413", "429", "502", "503")


def error_pages() -> dict[Path, str]:
    """Each page's path and its text."""
    with tempfile.TemporaryDirectory() as instance:
        app = create_app({"TESTING": True}, instance_path=instance)
        try:
            pages = {}
            for language in app.config["LANGUAGES"]:
                headers = {"Cookie": f"{COOKIE}={language}"}
                with app.test_request_context("/", headers=headers):
                    for status in STATUSES:
                        text = render_template("front/error.html", status=status, language=language)
                        pages[ERRORS_FOLDER / language / f"{status}.html"] = text + "\n"
            return pages
        finally:
            app.extensions[STORE_EXTENSION].dispose()


def main() -> None:
    for path, text in error_pages().items():
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(path.relative_to(ERRORS_FOLDER.parent.parent.parent))


if __name__ == "__main__":
    main()
