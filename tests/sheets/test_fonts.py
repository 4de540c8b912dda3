"""Names in emoji or in Chinese, Japanese and Korean letters print as written, not as boxes.

WeasyPrint draws a character no installed font has as the .notdef glyph: an empty box, the
same for every such character. With Debian's fonts-noto-color-emoji and fonts-noto-cjk
installed (.ci/run installs them), fontconfig finds those letters behind DejaVu.
"""

import io
import os
import shutil
import subprocess
from contextlib import nullcontext

import numpy as np
import pytest
from PIL import Image, ImageChops

from scorekeeper.play import load, play_turn, start_game
from scorekeeper.rules import Rules
from scorekeeper.sheets import PAPERS
from scorekeeper.sheets.pdf import STYLESHEET, game_pdf
from scorekeeper.sheets.render import render_pdf
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.quotas import NO_QUOTAS
from tests.support.prints import read

NAMES = ["Zoé 🎲🐄", "王小明", "さくら", "김민준"]
# Pairs of different letters of each script: drawn as .notdef they would be the same box.
DIFFERENT_LETTERS = [("王", "明"), ("さ", "く"), ("김", "민"), ("🎲", "🐄")]


def _fonts_installed() -> bool:
    if shutil.which("fc-list") is None:
        return False
    families = subprocess.run(
        ["fc-list", ":", "family"], capture_output=True, text=True, check=False
    ).stdout
    return "Noto Color Emoji" in families and "Noto Sans CJK" in families


pytestmark = pytest.mark.skipif(
    not _fonts_installed() and os.environ.get("SCOREKEEPER_REQUIRE_FONTS") != "1",
    reason="fonts-noto-color-emoji and fonts-noto-cjk are not installed",
)


def _png(pdf: bytes, dpi: int = 100) -> Image.Image:
    png = subprocess.run(
        ["pdftoppm", "-r", str(dpi), "-png", "-f", "1", "-l", "1", "-"],
        input=pdf,
        capture_output=True,
        check=True,
    ).stdout
    return Image.open(io.BytesIO(png)).convert("RGB")


def _colourful_pixels(image: Image.Image) -> int:
    """Pixels far from any grey: the sheets are black on white, a colour emoji is not."""
    pixels = np.asarray(image, dtype=int)
    return int((pixels.max(axis=2) - pixels.min(axis=2) > 60).sum())


def _letter(app, text: str) -> Image.Image:
    """One piece of text, large, with the sheets' stylesheet and so their fonts."""
    html = (
        f'<html><head><link rel="stylesheet" href="{STYLESHEET}"></head>'
        f'<body><p style="font-size: 60pt">{text}</p></body></html>'
    )
    return _png(render_pdf(html, app.static_folder))


@pytest.fixture
def ctx(app):
    with app.test_request_context("/"):
        yield app


def test_a_sheet_prints_emoji_and_cjk_names_as_written(ctx, store):
    game_id = start_game(store, Rules(), NAMES, household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    play_turn(store, game_id, 0, "free", "sixes", "66621", household=HOME_HOUSEHOLD)
    _key, pdf = game_pdf(
        *load(store, game_id, household=HOME_HOUSEHOLD),
        PAPERS["a4"],
        household=HOME_HOUSEHOLD,
        paying=nullcontext,
    )
    text = read(pdf).pages[0].text
    for name in NAMES:
        assert name in text
    # The dice and the cow are drawn in colour, where .notdef would be a black outline.
    assert _colourful_pixels(_png(pdf, dpi=200)) > 20


@pytest.mark.parametrize(("first", "second"), DIFFERENT_LETTERS)
def test_each_letter_has_its_own_glyph(ctx, first, second):
    one, other = _letter(ctx, first), _letter(ctx, second)
    assert ImageChops.invert(one.convert("L")).getbbox() is not None, "nothing was drawn"
    assert one.tobytes() != other.tobytes(), (
        f"{first} and {second} print as the same glyph: the font is missing"
    )
