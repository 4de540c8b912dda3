"""The rules of one game: one immutable value holding every option.

The options are those of docs/rules.md §3 to §9 and §11 (Yatzy).

A game's rules are stored with it as ``Rules.to_dict()`` and read back with
``Rules.from_dict()``; they never change after the first entry.
"""

from dataclasses import dataclass, fields

from scorekeeper.rules.errors import RuleError
from scorekeeper.rules.labels import BOX_LABELS, N_, YATZY_BOX_LABELS

UPPER_BOXES = ("ones", "twos", "threes", "fours", "fives", "sixes")
FACE_OF_BOX = {box: face for face, box in enumerate(UPPER_BOXES, start=1)}
BOX_OF_FACE = {face: box for box, face in FACE_OF_BOX.items()}

CLASSIQUE_LOWER = (
    "three_kind", "four_kind", "full_house", "small_straight", "large_straight", "yams", "chance",
)
YATZY_LOWER = (
    "pair", "two_pairs", "three_kind", "four_kind",
    "small_straight", "large_straight", "full_house", "chance", "yams",
)

# The order columns are shown in, whatever order a game listed them in: Triple's paper sheet is
# filled left to right as Descendante, Montante, Libre (docs/rules.md §5), and Sec comes last.
COLUMN_ORDER = ("down", "up", "free", "sec")
ORDERED_COLUMNS = {"down", "up"}
# Triple: descending, ascending and free columns (39 turns), in the order above.
TRIPLE_COLUMNS = ("down", "up", "free")

# The choices of each option; the first is the default of the classique preset.
CHOICES = {
    "four_kind": ("sum", "fixed40", "base", "matching"),
    "three_kind": ("sum", "base", "matching"),
    "full_house": ("fixed25", "base"),
    "joker": ("official", "free"),
    "dice": (5, 6),
}
FLAGS = ("vache", "yams_bonus", "plus_minus")

PRESETS = ("classique", "triple", "yatzy")

# Options that only make sense on the French sheet; Yatzy has its own fixed scoring.
_CLASSIQUE_ONLY = ("four_kind", "three_kind", "full_house", "joker", "yams_bonus", "plus_minus",
                   "dice")

UPPER_BONUS_THRESHOLD = 63
# What "three of each face" totals on the upper section: the balance shown is against this.
THREE_OF_EACH = {box: 3 * face for box, face in FACE_OF_BOX.items()}


@dataclass(frozen=True)
class Rules:
    preset: str = "classique"
    vache: bool = False
    four_kind: str = "sum"
    three_kind: str = "sum"
    full_house: str = "fixed25"
    yams_bonus: bool = True
    joker: str = "official"
    plus_minus: bool = False
    columns: tuple[str, ...] = ("free",)
    dice: int = 5

    @classmethod
    def from_dict(cls, data: object) -> "Rules":
        """Rules from a game document's ``"rules"``; any unknown key or value is an error."""
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise RuleError(N_("Les règles doivent être un objet JSON, par exemple "
                               '{{"preset": "classique"}}.'))
        known = {field.name for field in fields(cls)}
        for key in data:
            if key not in known:
                raise RuleError(N_("Option de règle inconnue : « {name} »."), name=key)
        preset = data.get("preset", "classique")
        if preset not in PRESETS:
            raise RuleError(N_("Règles inconnues : « {name} » (classique, triple ou yatzy)."),
                            name=preset)
        values: dict = {}
        if preset == "yatzy":
            for key in _CLASSIQUE_ONLY:
                if key in data and data[key] != getattr(cls, key):
                    raise RuleError(N_("L'option « {name} » ne s'applique pas au Yatzy."),
                                    name=key)
            values["preset"] = "yatzy"
            values["yams_bonus"] = False
        else:
            values["preset"] = "classique"
            if preset == "triple":
                values["columns"] = TRIPLE_COLUMNS
        for key, choices in CHOICES.items():
            if key in data:
                # Same type as well as equal: 5.0 == 5 and True == 1, but a document with
                # "dice": 5.0 is not the same game as one with 5 (nor the same rule set).
                if not any(type(data[key]) is type(choice) and data[key] == choice
                           for choice in choices):
                    raise RuleError(
                        N_("Valeur inconnue pour l'option « {name} » : « {value} » "
                           "(possibles : {choices})."),
                        name=key, value=data[key], choices=", ".join(map(str, choices)),
                    )
                values[key] = data[key]
        for key in FLAGS:
            if key in data:
                if not isinstance(data[key], bool):
                    raise RuleError(N_("L'option « {name} » vaut true ou false, pas « {value} »."),
                                    name=key, value=data[key])
                if preset != "yatzy" or key == "vache":
                    values[key] = data[key]
        if "columns" in data:
            values["columns"] = _read_columns(data["columns"])
        return cls(**values)

    def to_dict(self) -> dict:
        """Every option, explicit, as stored with a game and written in exported documents."""
        data = {"preset": self.preset, "vache": self.vache, "columns": list(self.columns)}
        if self.preset == "classique":
            data.update(
                four_kind=self.four_kind, three_kind=self.three_kind,
                full_house=self.full_house, yams_bonus=self.yams_bonus, joker=self.joker,
                plus_minus=self.plus_minus, dice=self.dice,
            )
        return data

    @property
    def is_yatzy(self) -> bool:
        return self.preset == "yatzy"

    @property
    def has_joker(self) -> bool:
        return not self.is_yatzy

    @property
    def has_yams_bonus(self) -> bool:
        return self.yams_bonus and not self.is_yatzy

    @property
    def boxes(self) -> tuple[str, ...]:
        """The boxes of one column, in sheet order."""
        if self.is_yatzy:
            return UPPER_BOXES + YATZY_LOWER
        lower = CLASSIQUE_LOWER
        if self.plus_minus:
            lower = lower[:-1] + ("plus", "minus")
        return UPPER_BOXES + lower

    @property
    def box_labels(self) -> dict[str, str]:
        """The French name of each box (to translate), in this game's own words."""
        return YATZY_BOX_LABELS if self.is_yatzy else BOX_LABELS

    @property
    def lower_boxes(self) -> tuple[str, ...]:
        return self.boxes[len(UPPER_BOXES):]

    @property
    def upper_bonus(self) -> int:
        return 50 if self.is_yatzy else 35

    @property
    def turns_per_player(self) -> int:
        return len(self.boxes) * len(self.columns)


def _read_columns(value: object) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or not value:
        raise RuleError(N_("L'option « columns » est une liste de colonnes parmi "
                           "free, down, up, sec."))
    for column in value:
        if not isinstance(column, str) or column not in COLUMN_ORDER:
            raise RuleError(N_("Colonne inconnue : « {name} » (free, down, up ou sec)."),
                            name=column)
    if len(set(value)) != len(value):
        raise RuleError(N_("Une colonne ne peut pas figurer deux fois dans « columns »."))
    # The sheet always shows the columns in one order, whatever order they were listed in.
    return tuple(column for column in COLUMN_ORDER if column in value)
