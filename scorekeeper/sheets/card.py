"""A finished game's result as an image to share with the family that was not there: the
ranking as the screen shows it (the same Jinja macros), drawn by WeasyPrint as a one-page
PDF 1080 px wide and rendered to PNG by PDFium, in a PDF worker (render.py).

A card is paid for as one page of PDF when it is drawn; each version of a game is drawn once
per language, then served from the filled sheets' cache.
"""

from flask import current_app, render_template
from flask_babel import get_locale

from scorekeeper.rules import GameState
from scorekeeper.rules.results import seat_results
from scorekeeper.sheets.pdf import Paying, app_pdf_workers, games_cache
from scorekeeper.store.records import GameRecord

# The width social networks and messaging apps show an image at without scaling it.
CARD_WIDTH_PX = 1080
CARD_STYLESHEET = "css/card.css"
# The card's height: its head and foot, and a row for each player, so that two players
# leave no empty half and eight still fit.
CARD_BASE_HEIGHT_PX = 520
CARD_ROW_HEIGHT_PX = 124


class GameNotOver(Exception):
    """A card is drawn for a finished game only."""


def card_html(record: GameRecord, state: GameState) -> str:
    return render_template(
        "sheets/card.html",
        record=record,
        state=state,
        standings=state.ranking(),
        yams_made=sum(result.yams_count for result in seat_results(state)),
        stylesheet=CARD_STYLESHEET,
        width=CARD_WIDTH_PX,
        height=CARD_BASE_HEIGHT_PX + CARD_ROW_HEIGHT_PX * len(state.players),
    )


def game_card(
    record: GameRecord, state: GameState, *, household: int, paying: Paying
) -> tuple[str, bytes]:
    """A finished game's card as PNG, and its cache key (an ETag).

    Raises GameNotOver for a game not finished, PrintersBusy when there is no place to draw
    it, and whatever `paying` raises (QuotaExceeded past the household's pages).
    """
    game_id = record.id
    if not state.is_over:
        raise GameNotOver(game_id)
    cache = games_cache()
    version = record.version
    key = cache.key(
        {
            "card": game_id,
            "locale": str(get_locale()),
            "version": [version.entry_count, version.status, version.updated_at.isoformat()],
        }
    )
    png = cache.get(key)
    if png is None:
        html = card_html(record, state)
        with paying(1):
            png = app_pdf_workers().render_png(
                html, current_app.static_folder, CARD_WIDTH_PX, household=household
            )
        cache.put(key, png)
    return key, png
