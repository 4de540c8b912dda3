"""What goes on a printed page: paper, orientation, games a page, rows and their heights.

Pure values, so the layout of every rule set can be tested without rendering. The query of
``/sheets/blank.pdf`` is read here into a ``BlankGrid``; the rules themselves come from
``rules_from_query``, which the option descriptions drive.
"""

from collections.abc import Iterable
from dataclasses import dataclass

from scorekeeper.rules import RuleError, Rules
from scorekeeper.rules.labels import N_
from scorekeeper.rules.numbers import read_whole
from scorekeeper.rules.options import UPPER_BOXES
from scorekeeper.rules.rule_set import rules_from_query
from scorekeeper.sheets.hints import Hint, footnotes

MAX_PAGES = 50

# Home printers cannot print the last few millimetres of a sheet; 10 mm is safe on all of them.
MARGIN_MM = 10
# Heights of what surrounds the grid on a blank page: title line, legend, game header rows.
TITLE_MM = 11
GAME_HEAD_MM = 15
# A game of several columns is wide enough for its name and date side by side.
WIDE_GAME_HEAD_MM = 10
KINDS_HEAD_MM = 6
LABEL_COLUMN_MM = 40
# A blank grid's labels also say when each box scores and what: one line of 6.5 pt under the
# name needs a wider column (print.css sets the same width).
BLANK_LABEL_COLUMN_MM = 46
# The footnotes under a blank grid, one running paragraph (7 pt, print.css): the gap above
# them, the height of a line, the width of a character taken wide enough that an English
# note, often a few letters longer than the French one, fits the lines counted for it, and
# the characters a line may lose to a word sent to the next one.
FOOTNOTE_GAP_MM = 2.0
FOOTNOTE_LINE_MM = 3.0
FOOTNOTE_CHAR_MM = 1.4
FOOTNOTE_WRAP_LOSS = 10
# Tick boxes for extra Yams: each takes about 5 mm with its spacing; never fewer than three.
TICK_MM = 5
MAX_TICKS = 4
# Taller than this, a row only wastes paper; shorter than this, a pencil does not fit.
MAX_ROW_MM = 14.0
MIN_ROW_MM = 6.5

# Games side by side on a blank page, by number of columns in a game. One column: six games,
# like the grids families print; wider games get fewer, and landscape from three columns on.
GAMES_PER_PAGE = {1: 6, 2: 4, 3: 3, 4: 2}
LANDSCAPE_FROM_COLUMNS = 3
# A Kniffel block's page belongs to one player, who writes the name once and plays its games
# one after the other (docs/rules.md §12); other grids have a name above each game.
ONE_PLAYER_PRESETS = frozenset({"kniffel"})

# Data columns of a filled sheet's table that still read well across the page.
PORTRAIT_DATA_COLUMNS = 8
LANDSCAPE_DATA_COLUMNS = 12

_GRID_PARAMS = ("paper", "pages")


class PrintOptionError(RuleError):
    """A print parameter that makes no sense (paper, pages, a repeated or unknown parameter).

    A RuleError so that the views show it like any other option error: a French template
    and its parameters, translated when rendered.
    """


@dataclass(frozen=True)
class Paper:
    key: str
    css_size: str
    width_mm: float
    height_mm: float


PAPERS = {
    "a4": Paper("a4", "A4", 210.0, 297.0),
    "letter": Paper("letter", "letter", 215.9, 279.4),
}


@dataclass(frozen=True)
class Row:
    """One row of a grid: a box, or a line of totals (``kind`` names which)."""

    kind: str
    box: str | None = None

    @property
    def is_box(self) -> bool:
        return self.kind == "box"


def grid_rows(rules: Rules) -> tuple[Row, ...]:
    """The rows of a sheet in the order the screen shows them."""
    rows = [Row("box", box) for box in UPPER_BOXES]
    rows.append(Row("upper_total"))
    if rules.has_upper_bonus:
        rows.append(Row("upper_bonus"))
    rows += [Row("box", box) for box in rules.lower_boxes]
    rows.append(Row("lower_total"))
    if rules.yams_bonus_points:
        rows.append(Row("yams_bonus"))
    if len(rules.columns) > 1:
        rows.append(Row("column_total"))
    rows.append(Row("total"))
    if rules.saves_throws:
        # Maxi Yatzy: each player's throws saved for later turns (docs/rules.md §15).
        rows.append(Row("saved_throws"))
    return tuple(rows)


def _page_mm(paper: Paper, landscape: bool) -> tuple[float, float]:
    if landscape:
        return paper.height_mm, paper.width_mm
    return paper.width_mm, paper.height_mm


@dataclass(frozen=True)
class BlankGrid:
    """A blank grid to print: the rules it is for, the paper, and how many identical pages."""

    rules: Rules
    paper: Paper
    pages: int = 1

    @property
    def games_per_page(self) -> int:
        return GAMES_PER_PAGE[len(self.rules.columns)]

    @property
    def one_player(self) -> bool:
        """Whether a page is one player's games (a block), named once in its corner."""
        return self.rules.preset in ONE_PLAYER_PRESETS

    @property
    def landscape(self) -> bool:
        return len(self.rules.columns) >= LANDSCAPE_FROM_COLUMNS

    @property
    def page_size(self) -> str:
        """The CSS ``@page`` size."""
        return f"{self.paper.css_size} {'landscape' if self.landscape else 'portrait'}"

    @property
    def rows(self) -> tuple[Row, ...]:
        return grid_rows(self.rules)

    @property
    def footnotes(self) -> tuple[Hint, ...]:
        return footnotes(self.rules)

    @property
    def footer_mm(self) -> float:
        """The height the footnotes take: as many lines as their length needs across the page."""
        width, _height = _page_mm(self.paper, self.landscape)
        chars_per_line = int((width - 2 * MARGIN_MM) / FOOTNOTE_CHAR_MM) - FOOTNOTE_WRAP_LOSS
        chars = sum(
            len(note.text % note.values(self.rules.box_labels)) + 1 for note in self.footnotes
        )
        return FOOTNOTE_GAP_MM + -(-chars // chars_per_line) * FOOTNOTE_LINE_MM

    @property
    def row_height_mm(self) -> float:
        """Rows share the height the page leaves, within what a pencil needs: the games fill
        the page down to the footnotes."""
        _width, height = _page_mm(self.paper, self.landscape)
        room = height - 2 * MARGIN_MM - TITLE_MM - self.footer_mm
        if len(self.rules.columns) > 1:
            room -= WIDE_GAME_HEAD_MM + KINDS_HEAD_MM
        else:
            room -= GAME_HEAD_MM
        # The extra-Yams tally row is one and a half rows high: ticks need room.
        weight = len(self.rows) + (0.5 if self.rules.yams_bonus_points else 0)
        # Rounded down to a hundredth, so that rounding never pushes the grid onto a second page.
        return max(MIN_ROW_MM, min(MAX_ROW_MM, int(100 * room / weight) / 100))

    @property
    def data_column_mm(self) -> float:
        width, _height = _page_mm(self.paper, self.landscape)
        columns = self.games_per_page * len(self.rules.columns)
        return (width - 2 * MARGIN_MM - BLANK_LABEL_COLUMN_MM) / columns

    @property
    def tally_ticks(self) -> int:
        """Tick boxes that fit on one line of a column, cell padding set aside."""
        return max(3, min(MAX_TICKS, int((self.data_column_mm - 3) // TICK_MM)))

    def identity(self) -> dict:
        """Everything the PDF depends on, besides the templates and the locale."""
        return {"rules": self.rules.to_dict(), "paper": self.paper.key, "pages": self.pages}


def read_paper(value: str | None) -> Paper:
    key = (value or "a4").strip().lower()
    if key not in PAPERS:
        raise PrintOptionError(
            N_("Format de papier inconnu : « {value} » (a4 ou letter)."), value=value
        )
    return PAPERS[key]


def read_pages(value: str | None) -> int:
    pages = read_whole((value or "1").strip(), MAX_PAGES)
    if not pages:
        raise PrintOptionError(
            N_("Le nombre de pages va de 1 à {most} : « {value} » ne convient pas."),
            most=MAX_PAGES,
            value=value,
        )
    return pages


def _single_values(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    values: dict[str, str] = {}
    for key, value in pairs:
        if key in values:
            raise PrintOptionError(N_("Le paramètre « {name} » est donné deux fois."), name=key)
        values[key] = value
    return values


def blank_grid_from_query(pairs: Iterable[tuple[str, str]]) -> BlankGrid:
    """The grid a query asks for: ``paper``, ``pages``, and the rules (``rules_from_query``).

    Raises RuleError (PrintOptionError for paper and pages) with a message to show.
    """
    values = _single_values(pairs)
    paper = read_paper(values.pop("paper", None))
    pages = read_pages(values.pop("pages", None))
    return BlankGrid(rules_from_query(values), paper, pages)


def paper_from_query(pairs: Iterable[tuple[str, str]]) -> Paper:
    """The paper of a filled sheet's query, the only parameter it takes."""
    values = _single_values(pairs)
    for key in values:
        if key != "paper":
            raise PrintOptionError(
                N_("Paramètre inconnu : « {name} » (seul « paper » est possible ici)."), name=key
            )
    return read_paper(values.get("paper"))


@dataclass(frozen=True)
class GameLayout:
    """How a game's sheet spreads over paper: orientation, and the players of each table."""

    paper: Paper
    landscape: bool
    tables: tuple[tuple[int, ...], ...]

    @property
    def page_size(self) -> str:
        return f"{self.paper.css_size} {'landscape' if self.landscape else 'portrait'}"


def game_layout(rules: Rules, players: int, paper: Paper) -> GameLayout:
    """Portrait while every column fits; else landscape, players split into tables that fit."""
    kinds = len(rules.columns)
    if players * kinds <= PORTRAIT_DATA_COLUMNS:
        return GameLayout(paper, False, (tuple(range(players)),))
    per_table = max(1, LANDSCAPE_DATA_COLUMNS // kinds)
    count = -(-players // per_table)
    # Tables of even sizes (3, 3, 2, 2 rather than 3, 3, 3, 1): no player left alone at the end.
    sizes = [players // count + (1 if index < players % count else 0) for index in range(count)]
    tables, start = [], 0
    for size in sizes:
        tables.append(tuple(range(start, start + size)))
        start += size
    return GameLayout(paper, True, tuple(tables))
