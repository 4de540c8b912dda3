"""Every option of a game's rules, each described once: its name, choices, default, labels
and the presets it applies to; the boxes of each preset and what their bonuses pay.

The options are those of docs/rules.md §3 to §9; the presets Yatzy (§11), Yahtzee and
Kniffel (§12) have fixed rules of their own and only some of the options, Generala (§14)
has only options of its own, and Maxi Yatzy (§15) none. ``rule_set.Rules`` holds a game's
choices.
"""

from dataclasses import dataclass

from scorekeeper.rules.labels import (
    N_,
)

UPPER_BOXES = ("ones", "twos", "threes", "fours", "fives", "sixes")
FACE_OF_BOX = {box: face for face, box in enumerate(UPPER_BOXES, start=1)}
BOX_OF_FACE = {face: box for box, face in FACE_OF_BOX.items()}

CLASSIQUE_LOWER = (
    "three_kind",
    "four_kind",
    "full_house",
    "small_straight",
    "large_straight",
    "yams",
    "chance",
)
YATZY_LOWER = (
    "pair",
    "two_pairs",
    "three_kind",
    "four_kind",
    "small_straight",
    "large_straight",
    "full_house",
    "chance",
    "yams",
)
# Generala's sheet after its six upper boxes: Escalera, Full, Póker, Generala, Doble Generala.
GENERALA_LOWER = ("straight", "full_house", "four_kind", "generala", "double_generala")
# Maxi Yatzy's sheet after its six upper boxes, in maxiyatzy.com's order (docs/rules.md §15).
MAXI_YATZY_LOWER = (
    "pair",
    "two_pairs",
    "three_pairs",
    "three_kind",
    "four_kind",
    "five_kind",
    "small_straight",
    "large_straight",
    "full_straight",
    "full_house",
    "villa",
    "tower",
    "chance",
    "maxi_yatzy",
)

# The order columns are shown in, whatever order a game listed them in: Triple's paper sheet is
# filled left to right as Descendante, Montante, Libre (docs/rules.md §5), and Sec comes last.
COLUMN_ORDER = ("down", "up", "free", "sec")
ORDERED_COLUMNS = {"down", "up"}
# Triple: descending, ascending and free columns (39 turns), in the order above.
TRIPLE_COLUMNS = ("down", "up", "free")


@dataclass(frozen=True)
class Choice:
    """One value of a house rule, in the words each page says it with (French, to translate)."""

    value: object
    # In the select of the new-game form and of the print page.
    text: str = ""
    # In the rule-set label and the rules summary; None for a usual value, which neither names.
    short: str | None = None
    # In the rules summary, where it says more than the label (« joker officiel »).
    summary: str | None = None

    @property
    def query(self) -> str:
        """The value as a query parameter gives it (a flag as 1 or 0)."""
        if isinstance(self.value, bool):
            return "1" if self.value else "0"
        return str(self.value)

    @property
    def summary_text(self) -> str | None:
        return self.summary or self.short


@dataclass(frozen=True)
class Option:
    """A house rule: its ``Rules`` field, which is also its form field and query parameter.

    The new-game form, the print page, the rules summary, the rule-set label and the reading
    of a query are all built from these descriptions: a new option is described here once.
    """

    name: str
    # The new-game form's words: a select's label, or a checkbox's whole sentence.
    label: str
    # Every value, the default first.
    choices: tuple[Choice, ...]
    # The presets a game may set it in (as stored: Triple is the classique sheet); the
    # others play it at its default, or at their own fixed value (``PRESET_VALUES``).
    presets: tuple[str, ...] = ("classique",)
    # The print page's words, where they are shorter than the form's.
    print_label: str | None = None
    # Whether it only changes what a box scores: the advisor's tables then need no new kind
    # of state for it, only the points of each value.
    scores_only: bool = False

    @property
    def default(self) -> object:
        return self.choices[0].value

    @property
    def values(self) -> tuple:
        return tuple(choice.value for choice in self.choices)

    @property
    def is_flag(self) -> bool:
        """On or off: a checkbox (and a select on the print page when on by default, since an
        unticked box sends nothing there and would leave the default on)."""
        return isinstance(self.default, bool)

    def choice(self, value: object) -> Choice:
        return next(choice for choice in self.choices if choice.value == value)

    def applies_to(self, preset: str) -> bool:
        """Whether a game of ``preset`` (a form's or a document's: ``triple`` too) may set it."""
        return stored_preset(preset) in self.presets

    @property
    def form_presets(self) -> tuple[str, ...]:
        """The presets of the new-game form and the print page that have it."""
        return tuple(preset for preset in PRESETS if self.applies_to(preset))


# The presets a game document names; Triple is stored as classique with its columns.
PRESETS = ("classique", "triple", "yatzy", "yahtzee", "kniffel", "generala", "maxi_yatzy")
EVERY_PRESET = ("classique", "yatzy", "yahtzee", "kniffel")


def stored_preset(preset: str) -> str:
    """The preset a game of ``preset`` is stored with: Triple is the classique sheet."""
    return "classique" if preset == "triple" else preset


_OFF_ON = (Choice(False), Choice(True))

# Every house rule of the Rules below, in the order the summary and the label name them.
OPTIONS = (
    Option(
        "vache",
        N_(
            "Règle de la vache : sur une ligne, on ne peut pas marquer moins que le "
            "meilleur score déjà inscrit par un autre joueur"
        ),
        (Choice(False), Choice(True, short=N_("vache"), summary=N_("règle de la vache"))),
        presets=EVERY_PRESET,
    ),
    Option(
        "four_kind",
        N_("Carré"),
        (
            Choice("sum", N_("somme des 5 dés")),
            Choice("fixed40", N_("40 fixes"), N_("Carré 40")),
            Choice("base", N_("20 + les quatre dés"), N_("Carré 20 + dés")),
            Choice(
                "matching",
                N_("les quatre dés identiques seulement (4 × la face)"),
                N_("Carré dés identiques"),
            ),
        ),
        scores_only=True,
    ),
    Option(
        "three_kind",
        N_("Brelan"),
        (
            Choice("sum", N_("somme des 5 dés")),
            Choice("base", N_("10 + les trois dés"), N_("Brelan 10 + dés")),
            Choice(
                "matching",
                N_("les trois dés identiques seulement (3 × la face)"),
                N_("Brelan dés identiques"),
            ),
        ),
        scores_only=True,
    ),
    Option(
        "full_house",
        N_("Full"),
        (
            Choice("fixed25", N_("25 fixes")),
            Choice("base", N_("10 + la somme des 5 dés"), N_("Full 10 + somme")),
        ),
        scores_only=True,
    ),
    Option(
        "joker",
        N_("Joker"),
        (
            Choice(
                "official",
                N_("officiel : le Yams va d'abord dans sa case du haut"),
                summary=N_("joker officiel"),
            ),
            Choice("free", N_("libre : le Yams va où l'on veut"), N_("joker libre")),
            # Verhoeff's optimal player's rule, whose start value is the published 254.5896
            # (docs/rules.md §4).
            Choice(
                "free_choice",
                N_(
                    "au choix : le Yams va où l'on veut, Full et suites ne comptent plein "
                    "qu'une fois sa case du haut remplie"
                ),
                N_("joker au choix"),
            ),
        ),
        presets=("classique", "yahtzee"),
        scores_only=True,
    ),
    Option(
        "yams_bonus",
        N_("Prime Yams : +100 pour chaque Yams quand la case Yams vaut déjà 50"),
        (
            Choice(True, N_("+100 par Yams, la case Yams valant déjà 50")),
            Choice(False, N_("sans prime Yams"), N_("sans prime Yams")),
        ),
        print_label=N_("Prime Yams"),
        scores_only=True,
    ),
    Option(
        "plus_minus",
        N_("Plus et Moins à la place de la Chance : le Plus doit finir au-dessus du Moins"),
        (Choice(False), Choice(True, short=N_("Plus et Moins"))),
        print_label=N_("Plus et Moins à la place de la Chance"),
    ),
    Option(
        "dice",
        N_("Dés"),
        (
            Choice(5, N_("5 dés")),
            Choice(
                6,
                N_("6 dés (Yams 6 : chaque case compte ses 5 meilleurs)"),
                N_("Yams 6"),
                N_("Yams 6 (six dés)"),
            ),
        ),
    ),
)
# Generala's own options (docs/rules.md §14), in the order its summary names them; Generala
# has none of the others.
GENERALA_OPTIONS = (
    Option(
        "servida",
        N_("Servida : une combinaison faite au premier lancer vaut plus (25, 35, 45)"),
        (
            Choice(True, N_("Escalera 25, Full 35, Póker 45 au premier lancer")),
            Choice(False, N_("même valeur à tout lancer"), N_("sans servida")),
        ),
        presets=("generala",),
        print_label=N_("Servida (premier lancer)"),
        scores_only=True,
    ),
    Option(
        "servida_wins",
        N_("Generala servida : gagne la partie sur-le-champ"),
        (
            Choice(True, N_("gagne la partie sur-le-champ")),
            Choice(False, N_("vaut 50 comme une autre"), N_("Generala servida 50")),
        ),
        presets=("generala",),
    ),
    Option(
        "ace_high_straight",
        N_("Escalera au 1 : 3-4-5-6-1 compte aussi comme escalera"),
        (Choice(False), Choice(True, short=N_("escalera 3-4-5-6-1"))),
        presets=("generala",),
        print_label=N_("Escalera 3-4-5-6-1"),
        scores_only=True,
    ),
)
OPTIONS = OPTIONS + GENERALA_OPTIONS
OPTION_BY_NAME = {option.name: option for option in OPTIONS}

# Not a Rules field but a choice of the form and the print page: it adds the Yams sec column
# to the preset's columns (``rules_from_choices``).
SEC = Option(
    "sec",
    N_("Colonne Yams sec en plus : un seul lancer par tour"),
    _OFF_ON,
    presets=EVERY_PRESET,
)

# What a preset plays instead of an option's default, for the options it may not set:
# Yatzy has no +100, and Kniffel pays its own +50 instead (docs/rules.md §11, §12).
# Generala has no Yams bonus either (docs/rules.md §14); Maxi Yatzy has none and plays six
# dice (§15).
PRESET_VALUES = {
    "yatzy": {"yams_bonus": False},
    "kniffel": {"yams_bonus": False},
    "generala": {"yams_bonus": False},
    "maxi_yatzy": {"yams_bonus": False, "dice": 6},
}
# What the second and later Yams earn (docs/rules.md §3, §12).
YAMS_BONUS = 100
KNIFFEL_BONUS = 50


UPPER_BONUS_THRESHOLD = 63
# What "three of each face" totals on the upper section: the balance shown is against this.
THREE_OF_EACH = {box: 3 * face for box, face in FACE_OF_BOX.items()}
# Maxi Yatzy's upper bonus: 100 at 84, four of each face (docs/rules.md §15).
MAXI_YATZY_BONUS = 100
MAXI_YATZY_THRESHOLD = 84
FOUR_OF_EACH = {box: 4 * face for box, face in FACE_OF_BOX.items()}
