"""The result card's drawing (sheets/card.py): CPU per card, in this process, as a ratio to
a fair floor measured in the same run. Figures, not a test.

    python -m bench.card [--runs 15]

- **card**: a finished game's card HTML drawn to PNG by ``render_png`` (WeasyPrint's PDF of
  one page 1080 px wide, then PDFium at one pixel per CSS pixel), the usual case (2 players)
  and the worst (8 players, names in emoji and CJK letters, which bring the Noto fonts in);
- **floor**: the least the same two libraries do for a picture of that size: WeasyPrint's
  PDF of a one-line page of the card's size, rendered by PDFium to PNG alike.

CPU of this process (``time.process_time``), median of ``--runs`` each, the card and its
floor alternating so that the machine's other work weighs on both. Goal: a card in ≤ 300 ms
of CPU (issue: shared from the ranking in one tap).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from scorekeeper.app import STORE_EXTENSION, create_app
from scorekeeper.play import load
from scorekeeper.sheets.card import CARD_WIDTH_PX, card_html
from scorekeeper.sheets.render import render_png
from scorekeeper.store import HOME_HOUSEHOLD
from tests.support.games import duo_document, import_documents

CASES = {
    "usual: 2 players": ["Papa", "Léa"],
    "worst: 8 players, emoji and CJK": [
        "Zoé 🎲🐄",
        "王小明",
        "さくら",
        "김민준",
        "Marie-Christine",
        "Bertrand",
        "Chloé",
        "Sam",
    ],
}
FLOOR_HTML = "<style>@page {{ size: {width}px {height}px; margin: 0 }}</style><p>Yams</p>"


def game_of(names: list[str]) -> dict:
    document = duo_document(names[0], names[1])
    document["players"] = names
    document["entries"] = [
        dict(entry, player=name)
        for entry in duo_document("a", "b")["entries"][::2]
        for name in names
    ]
    return document


def cpu(html: str, static: Path) -> float:
    """CPU seconds of one card (or floor) drawn to PNG."""
    started = time.process_time()
    render_png(html, static, CARD_WIDTH_PX)
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory(prefix="bench-card-") as folder:
        app = create_app({"TESTING": True}, instance_path=folder)
        store = app.extensions[STORE_EXTENSION]
        print(f"CPU per card, median of {runs} (ms): card, floor, card / floor")
        for case, names in CASES.items():
            (game_id,) = import_documents(store, game_of(names))
            with app.test_request_context(headers={"Accept-Language": "fr"}):
                record, state = load(store, game_id, household=HOME_HOUSEHOLD)
                html = card_html(record, state)
            height = int(html.split("size: 1080px ")[1].split("px")[0])
            floor = FLOOR_HTML.format(width=CARD_WIDTH_PX, height=height)
            static = Path(app.static_folder)
            render_png(html, static, CARD_WIDTH_PX)  # fonts found and loaded once, as a worker does
            cards, floors = [], []
            for _ in range(runs):
                cards.append(cpu(html, static))
                floors.append(cpu(floor, static))
            card, bare = statistics.median(cards) * 1000, statistics.median(floors) * 1000
            worst = max(cards) * 1000
            ratio = card / bare
            print(f"{case:<34} {card:6.0f} {bare:6.0f} {ratio:5.2f}x   (worst run {worst:.0f} ms)")


if __name__ == "__main__":
    main()
