"""A game as an ordered log of entries, and the state its replay gives.

``replay(rules, players, entries)`` is the only way to build a state: every score, total,
preview, floor and ranking the app shows is read from it.
"""

from collections.abc import Iterable, Sequence
from functools import cached_property
from types import MappingProxyType

from scorekeeper.rules.dice import Dice, parse_dice, yams_face
from scorekeeper.rules.errors import RuleError
from scorekeeper.rules.labels import N_
from scorekeeper.rules.options import (
    BOX_OF_FACE,
    KNIFFEL_BONUS,
    ORDERED_COLUMNS,
    UPPER_BOXES,
    YAMS_BONUS,
)
from scorekeeper.rules.players import check_players
from scorekeeper.rules.rule_set import Rules
from scorekeeper.rules.scoring import is_variable, score
from scorekeeper.rules.sheet import (
    BARRED_BY_DICE,
    BARRED_BY_GENERALA,
    BARRED_BY_PLUS_MINUS,
    BARRED_BY_VACHE,
    THROWS,
    Column,
    Entry,
    Placement,
    Score,
    Sheet,
    Standing,
    progress,
)
from scorekeeper.rules.throws import TURN_THROWS, saved_throws


class GameState:
    """The state after some entries. Immutable: ``play`` returns a new state."""

    def __init__(
        self,
        rules: Rules,
        players: Sequence[str],
        sheets: tuple[Sheet, ...],
        entries: tuple[Entry, ...],
    ) -> None:
        self.rules = rules
        self.players = tuple(players)
        self.sheets = sheets
        self.entries = entries

    @classmethod
    def start(cls, rules: Rules, players: Sequence[str]) -> "GameState":
        check_players(players)
        sheets = tuple(
            Sheet(name, MappingProxyType({kind: Column(rules, kind) for kind in rules.columns}))
            for name in players
        )
        return cls(rules, players, sheets, ())

    @cached_property
    def winner(self) -> int | None:
        """The seat whose entry won the game at once (a Generala servida), if one did."""
        for seat, sheet in enumerate(self.sheets):
            for column in sheet.columns.values():
                if any(cell.wins for cell in column.cells.values()):
                    return seat
        return None

    @property
    def is_over(self) -> bool:
        """Every box of every sheet filled, or a Generala servida won the game at once."""
        full = len(self.entries) == len(self.players) * self.rules.turns_per_player
        return full or (self.rules.is_generala and self.winner is not None)

    @property
    def active_player(self) -> int | None:
        """The seat whose turn it is: players play in seat order, one box a turn."""
        return None if self.is_over else progress(len(self.entries), len(self.players))[1]

    @property
    def turn(self) -> int:
        """The round being played, from 1 (every player has played ``turn - 1`` times)."""
        return progress(len(self.entries), len(self.players))[0]

    @cached_property
    def saved_throws(self) -> tuple[int, ...]:
        """Each seat's saved throws (Maxi Yatzy, docs/rules.md §15); 0 in other games."""
        if not self.rules.saves_throws:
            return (0,) * len(self.players)
        return saved_throws(len(self.players), self.entries)

    def throws_at_hand(self, player: int) -> int:
        """The most throws the player's turn may use: the turn's three and those saved."""
        return TURN_THROWS + self.saved_throws[player]

    def placement(self, player: int, kind: str, dice: Dice) -> Placement:
        """The boxes of a column that these dice may fill now (column order, then joker)."""
        column = self.sheets[player].columns[kind]
        open_boxes = column.open_boxes
        if kind in ORDERED_COLUMNS or not self._joker_applies(column, dice):
            return Placement(open_boxes)
        if self.rules.joker in ("free", "free_choice"):
            return Placement(open_boxes)
        # Official joker: the matching upper box, else any lower box, else an upper box at 0.
        face_box = BOX_OF_FACE[yams_face(dice)]
        labels = self.rules.box_labels
        if face_box in open_boxes:
            return Placement(
                (face_box,),
                RuleError(
                    N_("Joker : ce {yams} doit aller dans la case {forced_box}."),
                    labels,
                    forced_box=face_box,
                    yams=self.rules.five_alike_box,
                ),
            )
        lower = tuple(box for box in open_boxes if box in self.rules.lower_boxes)
        if lower:
            return Placement(
                lower,
                RuleError(
                    N_(
                        "Joker : la case {box} est prise, ce {yams} va dans une case libre du "
                        "bas, où Full et suites comptent plein."
                    ),
                    labels,
                    box=face_box,
                    yams=self.rules.five_alike_box,
                ),
            )
        return Placement(
            open_boxes,
            RuleError(
                N_(
                    "Joker : la case {box} et tout le bas sont pris, ce {yams} doit barrer une "
                    "case du haut."
                ),
                labels,
                box=face_box,
                yams=self.rules.five_alike_box,
            ),
        )

    def refusal(
        self, player: int, kind: str, box: str, dice: Dice | None = None
    ) -> RuleError | None:
        """Why a box of the player's sheet may not be tapped now, in a few words for the line
        the sheet shows under a tap (``score`` says it in a sentence); None when it may.

        Without dice only what the sheet already decides is told: filled, or out of order.
        """
        if kind not in self.rules.columns or box not in self.rules.boxes:
            return None  # not a box of this game: score() says so in full
        column = self.sheets[player].columns[kind]
        if box in column.cells:
            return RuleError(N_("{box} : déjà remplie"), self.rules.box_labels, box=box)
        if box not in column.open_boxes:
            return RuleError(
                N_("Colonne {column} : d'abord {next_box}"),
                self.rules.box_labels,
                column=kind,
                next_box=column.open_boxes[0],
            )
        if dice is None:
            return None
        allowed = self.placement(player, kind, dice).boxes
        if box in allowed:
            return None
        if len(allowed) == 1 and allowed[0] in UPPER_BOXES:
            return RuleError(
                N_("Le joker impose la case {forced_box}"),
                self.rules.box_labels,
                forced_box=allowed[0],
            )
        if all(other in self.rules.lower_boxes for other in allowed):
            return RuleError(N_("Le joker impose une case du bas"))
        return RuleError(N_("Le joker impose de barrer une case du haut"))

    def vache_floor(self, player: int, kind: str, box: str) -> int | None:
        """The least a player may write in a box under la vache, or None when no floor holds."""
        if not self.rules.vache or not is_variable(self.rules, box):
            return None
        written = [
            sheet.columns[kind].cells[box].points
            for seat, sheet in enumerate(self.sheets)
            if seat != player and box in sheet.columns[kind].cells
        ]
        best = max(written, default=0)
        return best or None

    def score(self, entry: Entry) -> Score:
        """What the entry would write, or RuleError saying why it is not allowed."""
        if self.is_over:
            raise RuleError(N_("La partie est terminée : toutes les cases sont remplies."))
        active = self.active_player
        if entry.player != active:
            raise RuleError(
                N_("Ce n'est pas le tour de {name} : c'est à {active} de jouer."),
                name=self.players[entry.player]
                if 0 <= entry.player < len(self.players)
                else entry.player,
                active=self.players[active],
            )
        if entry.column not in self.rules.columns:
            raise RuleError(N_("Cette partie n'a pas de colonne « {name} »."), name=entry.column)
        if entry.box not in self.rules.boxes:
            raise RuleError(N_("Cette partie n'a pas de case « {name} »."), name=entry.box)
        dice = parse_dice(entry.dice, self.rules.dice)
        self._check_throw(entry.throw)
        self._check_throws(active, entry.throws)
        column = self.sheets[active].columns[entry.column]
        if entry.box in column.cells:
            raise RuleError(
                N_("La case {box} est déjà remplie."), self.rules.box_labels, box=entry.box
            )
        placement = self.placement(active, entry.column, dice)
        if entry.box not in placement.boxes:
            if placement.forced is not None:
                raise placement.forced
            raise RuleError(
                N_(
                    "La colonne {column} se remplit dans l'ordre : "
                    "la prochaine case est {next_box}."
                ),
                self.rules.box_labels,
                column=entry.column,
                next_box=placement.boxes[0],
            )
        return self._score_allowed(active, column, entry.box, dice, entry.throw)

    def preview(
        self, dice: Dice, player: int | None = None, throw: int | None = None
    ) -> dict[tuple[str, str], Score]:
        """What each box the dice (of ``throw``, when said) may fill would score, keyed by
        (column, box)."""
        player = self.active_player if player is None else player
        if player is None:
            return {}
        dice = parse_dice(dice, self.rules.dice)
        self._check_throw(throw)
        scores = {}
        for kind, column in self.sheets[player].columns.items():
            for box in self.placement(player, kind, dice).boxes:
                scores[kind, box] = self._score_allowed(player, column, box, dice, throw)
        return scores

    def served_changes(self, dice: Dice, player: int | None = None) -> bool:
        """Whether saying that these dice came from the first throw (servida) changes what a
        box the player may fill would score: the sheet asks it only then."""
        if not self.rules.counts_throws:
            return False
        later = self.preview(dice, player)
        first = self.preview(dice, player, 1)
        return any(
            (cell.points, cell.wins) != (first[key].points, first[key].wins)
            for key, cell in later.items()
        )

    def play(self, entry: Entry) -> "GameState":
        return self.apply(entry, self.score(entry))

    def apply(self, entry: Entry, cell: Score) -> "GameState":
        """The state once `entry` wrote `cell`, which ``score(entry)`` gave on this state:
        the state a turn writes, with the cell it showed the player, scored once."""
        sheets = list(self.sheets)
        sheet = sheets[entry.player]
        columns = dict(sheet.columns)
        columns[entry.column] = columns[entry.column].with_score(cell)
        sheets[entry.player] = Sheet(sheet.name, MappingProxyType(columns))
        entry = Entry(entry.player, entry.column, entry.box, cell.dice, cell.throw, entry.throws)
        return GameState(self.rules, self.players, tuple(sheets), self.entries + (entry,))

    def ranking(self) -> list[Standing]:
        """Players by total, best first; equal totals share a rank (1, 1, 3). A player who
        won at once (a Generala servida) is first alone, whatever the totals."""
        winner = self.winner if self.rules.is_generala else None
        order = sorted(
            range(len(self.players)),
            key=lambda seat: (seat != winner, -self.sheets[seat].total),
        )
        standings: list[Standing] = []
        for position, seat in enumerate(order):
            total = self.sheets[seat].total
            tied = (
                standings
                and standings[-1].total == total
                and winner
                not in (
                    seat,
                    standings[-1].player,
                )
            )
            rank = standings[-1].rank if tied else position + 1
            standings.append(Standing(rank, seat, self.players[seat], total))
        return standings

    def _check_throw(self, throw: object) -> None:
        """RuleError unless ``throw`` is None or a throw these rules count (§14)."""
        if throw is None:
            return
        if not self.rules.counts_throws:
            raise RuleError(
                N_(
                    "Le lancer d'où viennent les dés ne compte qu'à la Generala : "
                    "cette partie ne le note pas."
                )
            )
        if isinstance(throw, bool) or throw not in THROWS:
            raise RuleError(
                N_("Un tour a trois lancers : le lancer vaut 1, 2 ou 3, pas « {value} »."),
                value=throw,
            )

    def _check_throws(self, player: int, throws: object) -> None:
        """RuleError unless ``throws`` is None or throws the player has (§15): at least one,
        at most the turn's three and those saved."""
        if throws is None:
            return
        if not self.rules.saves_throws:
            raise RuleError(
                N_(
                    "Les lancers utilisés ne se notent qu'au Maxi Yatzy : cette partie ne "
                    "garde pas de lancers."
                )
            )
        if isinstance(throws, bool) or not isinstance(throws, int) or throws < 1:
            raise RuleError(
                N_(
                    "Un tour fait au moins un lancer : les lancers utilisés ne valent pas "
                    "« {value} »."
                ),
                value=throws,
            )
        at_hand = self.throws_at_hand(player)
        if throws > at_hand:
            raise RuleError(
                N_(
                    "{name} n'a que {count} lancers (les 3 du tour et {saved} gardés), pas {value}."
                ),
                name=self.players[player],
                count=at_hand,
                saved=self.saved_throws[player],
                value=throws,
            )

    def _joker_applies(self, column: Column, dice: Dice) -> bool:
        return self.rules.has_joker and yams_face(dice) is not None and "yams" in column.cells

    def _full_value(self, column: Column, dice: Dice) -> bool:
        """Whether Full and the straights take these dice at their full value (docs/rules.md
        §4): under the joker; with Verhoeff's choice, once the face's upper box is filled."""
        if not self._joker_applies(column, dice):
            return False
        return self.rules.joker != "free_choice" or BOX_OF_FACE[yams_face(dice)] in column.cells

    def _yams_bonus(self, column: Column, box: str, dice: Dice) -> int:
        """What the dice earn beside the box's points (docs/rules.md §3, §12): +100 for a Yams
        once the Yams box holds 50, wherever it goes; in Kniffel, +50 for a Yams written in
        its face's upper box once the Yams box holds anything."""
        if not (self.rules.has_yams_bonus or self.rules.has_kniffel_bonus):
            return 0  # Yatzy's, Generala's: no dice counted (the Conseil scores every cell)
        face = yams_face(dice)
        yams_box = column.cells.get("yams")
        if face is None or yams_box is None:
            return 0
        if self.rules.has_yams_bonus and yams_box.points > 0:
            return YAMS_BONUS
        if self.rules.has_kniffel_bonus and box == BOX_OF_FACE[face]:
            return KNIFFEL_BONUS
        return 0

    def _score_allowed(
        self, player: int, column: Column, box: str, dice: Dice, throw: int | None = None
    ) -> Score:
        # Order of checks (docs/rules.md §10): the box's formula, then Plus/Moins, then la vache;
        # the +100 is earned by the dice whatever happens to the box.
        joker = self._full_value(column, dice)
        served = throw == 1
        points = score(self.rules, box, dice, joker=joker, served=served)
        barred_by = None if points else BARRED_BY_DICE
        if self.rules.is_generala:
            return self._generala_cell(column, box, dice, throw, points, barred_by)
        if points and _breaks_plus_minus(column, box, points):
            points, barred_by = 0, BARRED_BY_PLUS_MINUS
        floor = self.vache_floor(player, column.kind, box)
        if points and floor is not None and points < floor:
            points, barred_by = 0, BARRED_BY_VACHE
        return Score(
            column.kind,
            box,
            dice,
            points,
            barred_by,
            joker,
            self._yams_bonus(column, box, dice),
            throw,
        )

    def _generala_cell(
        self,
        column: Column,
        box: str,
        dice: Dice,
        throw: int | None,
        points: int,
        barred_by: str | None,
    ) -> Score:
        """Generala's cell (docs/rules.md §14): the Doble Generala counts once the Generala
        box holds 50; a Generala servida wins the game at once under ``servida_wins``."""
        generala = column.cells.get("generala")
        if box == "double_generala" and points and (generala is None or not generala.points):
            points, barred_by = 0, BARRED_BY_GENERALA
        wins = box == "generala" and points > 0 and throw == 1 and self.rules.servida_wins
        return Score(column.kind, box, dice, points, barred_by, throw=throw, wins=wins)


def _breaks_plus_minus(column: Column, box: str, points: int) -> bool:
    if box == "plus" and "minus" in column.cells:
        return points <= column.cells["minus"].points
    if box == "minus" and "plus" in column.cells:
        return points >= column.cells["plus"].points
    return False


def replay(rules: Rules, players: Sequence[str], entries: Iterable[Entry]) -> GameState:
    """The state a log of entries gives; RuleError names the first illegal entry (from 1)."""
    state = GameState.start(rules, players)
    for number, entry in enumerate(entries, start=1):
        try:
            state = state.play(entry)
        except RuleError as error:
            raise IllegalEntry(number, error) from error
    return state


class IllegalEntry(RuleError):
    """An entry of a log that the rules refuse; ``number`` counts entries from 1."""

    def __init__(self, number: int, error: RuleError) -> None:
        super().__init__(error.template, error.box_labels, **error.params)
        self.number = number
