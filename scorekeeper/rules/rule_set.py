"""The rules of one game: one immutable value holding every option (``options.OPTIONS``
describes each once).

A game's rules are stored with it as ``Rules.to_dict()`` and read back with
``Rules.from_dict()``; they never change after the first entry. The form's and the print
page's choices are read into rules here too.
"""

from collections.abc import Mapping
from dataclasses import dataclass, fields
from functools import cached_property

from scorekeeper.rules.errors import RuleError
from scorekeeper.rules.labels import (
    BOX_LABELS,
    GAME_NAMES,
    GENERALA_BOX_LABELS,
    KNIFFEL_BOX_LABELS,
    MAXI_YATZY_BOX_LABELS,
    N_,
    YAHTZEE_BOX_LABELS,
    YAMS_BONUS_LABELS,
    YATZY_BOX_LABELS,
)
from scorekeeper.rules.numbers import read_whole
from scorekeeper.rules.options import (
    CLASSIQUE_LOWER,
    COLUMN_ORDER,
    FOUR_OF_EACH,
    GENERALA_LOWER,
    KNIFFEL_BONUS,
    MAXI_YATZY_BONUS,
    MAXI_YATZY_LOWER,
    MAXI_YATZY_THRESHOLD,
    OPTION_BY_NAME,
    OPTIONS,
    PRESET_VALUES,
    PRESETS,
    SEC,
    THREE_OF_EACH,
    TRIPLE_COLUMNS,
    UPPER_BONUS_THRESHOLD,
    UPPER_BOXES,
    YAMS_BONUS,
    YATZY_LOWER,
    Option,
    stored_preset,
)


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
    # Generala's (docs/rules.md §14).
    servida: bool = True
    servida_wins: bool = True
    ace_high_straight: bool = False

    @classmethod
    def from_dict(cls, data: object) -> "Rules":
        """Rules from a game document's ``"rules"``; any unknown key or value is an error."""
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise RuleError(
                N_('Les règles doivent être un objet JSON, par exemple {{"preset": "classique"}}.')
            )
        known = {field.name for field in fields(cls)}
        for key in data:
            if key not in known:
                raise RuleError(N_("Option de règle inconnue : « {name} »."), name=key)
        preset = data.get("preset", "classique")
        if preset not in PRESETS:
            raise RuleError(
                N_(
                    "Règles inconnues : « {name} » "
                    "(classique, triple, yatzy, yahtzee, kniffel, generala ou maxi_yatzy)."
                ),
                name=preset,
            )
        stored = stored_preset(preset)
        values: dict = {"preset": stored, **PRESET_VALUES.get(stored, {})}
        if preset == "triple":
            values["columns"] = TRIPLE_COLUMNS
        elif preset == "generala":
            # Generala is played on one free column of five dice (docs/rules.md §14).
            if "columns" in data and _read_columns(data["columns"]) != ("free",):
                raise RuleError(N_("La Generala se joue sur une seule colonne, libre."))
        elif preset == "maxi_yatzy":
            # So is Maxi Yatzy, of six dice (docs/rules.md §15).
            if "columns" in data and _read_columns(data["columns"]) != ("free",):
                raise RuleError(N_("Le Maxi Yatzy se joue sur une seule colonne, libre."))
        for option in OPTIONS:
            key = option.name
            if key not in data:
                continue
            if not option.applies_to(stored):
                # A preset's own fixed rules: the other options may only say their default,
                # and the dice only the number the preset plays (Maxi Yatzy's six: five
                # would be another game).
                if key == "dice":
                    played = PRESET_VALUES.get(stored, {}).get(key, option.default)
                    if type(data[key]) is not int or data[key] != played:
                        raise _not_for(preset, option)
                elif data[key] != option.default:
                    raise _not_for(preset, option)
                continue
            if option.is_flag:
                if not isinstance(data[key], bool):
                    raise RuleError(
                        N_("L'option « {name} » vaut true ou false, pas « {value} »."),
                        name=key,
                        value=data[key],
                    )
            # Same type as well as equal: 5.0 == 5 and True == 1, but a document with
            # "dice": 5.0 is not the same game as one with 5 (nor the same rule set).
            elif not any(
                type(data[key]) is type(choice) and data[key] == choice for choice in option.values
            ):
                raise RuleError(
                    N_(
                        "Valeur inconnue pour l'option « {name} » : « {value} » "
                        "(possibles : {choices})."
                    ),
                    name=key,
                    value=data[key],
                    choices=", ".join(map(str, option.values)),
                )
            values[key] = data[key]
        if "columns" in data:
            values["columns"] = _read_columns(data["columns"])
        return cls(**values)

    def to_dict(self) -> dict:
        """Every option, explicit, as stored with a game and written in exported documents."""
        data = {"preset": self.preset, "columns": list(self.columns)}
        data.update(
            (option.name, getattr(self, option.name))
            for option in OPTIONS
            if option.applies_to(self.preset)
        )
        return data

    @property
    def is_yatzy(self) -> bool:
        return self.preset == "yatzy"

    @property
    def is_generala(self) -> bool:
        return self.preset == "generala"

    @property
    def is_maxi_yatzy(self) -> bool:
        return self.preset == "maxi_yatzy"

    @property
    def has_joker(self) -> bool:
        return self.preset in ("classique", "yahtzee", "kniffel")

    @property
    def has_yams_bonus(self) -> bool:
        """Whether a Yams earns +100 once the Yams box holds 50 (docs/rules.md §3)."""
        return self.yams_bonus and self.preset in ("classique", "yahtzee")

    @property
    def has_kniffel_bonus(self) -> bool:
        """Whether a Yams earns Kniffel's +50 in the upper box of its face, once the Yams box
        holds anything (docs/rules.md §12)."""
        return self.preset == "kniffel"

    @property
    def yams_bonus_points(self) -> int:
        """What each Yams after the first may earn: the row the sheet keeps for it, or 0."""
        if self.has_yams_bonus:
            return YAMS_BONUS
        return KNIFFEL_BONUS if self.has_kniffel_bonus else 0

    @property
    def has_upper_bonus(self) -> bool:
        """Generala has none: its upper boxes only add up (docs/rules.md §14)."""
        return not self.is_generala

    @property
    def upper_bonus_threshold(self) -> int:
        """The upper total that wins the bonus: 63, three of each face; Maxi Yatzy's 84, four
        of each (docs/rules.md §2, §15)."""
        return MAXI_YATZY_THRESHOLD if self.is_maxi_yatzy else UPPER_BONUS_THRESHOLD

    @property
    def upper_pace(self) -> Mapping[str, int]:
        """What each upper box holds on the bonus's pace: three of its face (four in Maxi
        Yatzy); the sheet's balance is against it."""
        return FOUR_OF_EACH if self.is_maxi_yatzy else THREE_OF_EACH

    @property
    def saves_throws(self) -> bool:
        """Whether the throws a turn leaves unused are saved for the player's later turns
        (Maxi Yatzy, docs/rules.md §15)."""
        return self.is_maxi_yatzy

    @property
    def counts_throws(self) -> bool:
        """Whether an entry's throw changes what it scores (Generala's servida)."""
        return self.is_generala

    # Cached, as Column.open_boxes: every total and every row of a sheet asks for them, and
    # frozen dataclasses still let cached_property write the instance's dict.
    @cached_property
    def boxes(self) -> tuple[str, ...]:
        """The boxes of one column, in sheet order."""
        if self.is_yatzy:
            return UPPER_BOXES + YATZY_LOWER
        if self.is_generala:
            return UPPER_BOXES + GENERALA_LOWER
        if self.is_maxi_yatzy:
            return UPPER_BOXES + MAXI_YATZY_LOWER
        lower = CLASSIQUE_LOWER
        if self.plus_minus:
            lower = lower[:-1] + ("plus", "minus")
        return UPPER_BOXES + lower

    @property
    def game_name(self) -> str:
        """The game's name (French, to translate): Yams, Yatzy, Yahtzee, Kniffel, Generala or
        Maxi Yatzy."""
        return GAME_NAMES[self.preset]

    @property
    def yams_bonus_label(self) -> str:
        """The name of the sheet's row of the Yams after the first (when it has one)."""
        return YAMS_BONUS_LABELS[self.preset]

    @property
    def five_alike_box(self) -> str:
        """The box of five dice alike (six in Maxi Yatzy), whose name the messages say for
        the game's word (Yams, Yahtzee, Kniffel, Yatzy, Generala, Maxiyatzy): its label,
        from ``box_labels``."""
        if self.is_generala:
            return "generala"
        return "maxi_yatzy" if self.is_maxi_yatzy else "yams"

    @property
    def box_labels(self) -> dict[str, str]:
        """The name of each box in this game's own words: French to translate, or Kniffel's
        German and Generala's Spanish, shown as they are (``labels.OwnWord``)."""
        return {
            "yatzy": YATZY_BOX_LABELS,
            "yahtzee": YAHTZEE_BOX_LABELS,
            "kniffel": KNIFFEL_BOX_LABELS,
            "generala": GENERALA_BOX_LABELS,
            "maxi_yatzy": MAXI_YATZY_BOX_LABELS,
        }.get(self.preset, BOX_LABELS)

    @cached_property
    def lower_boxes(self) -> tuple[str, ...]:
        return self.boxes[len(UPPER_BOXES) :]

    @property
    def upper_bonus(self) -> int:
        if not self.has_upper_bonus:
            return 0
        if self.is_maxi_yatzy:
            return MAXI_YATZY_BONUS
        return 50 if self.is_yatzy else 35

    @property
    def turns_per_player(self) -> int:
        return len(self.boxes) * len(self.columns)


def _not_for(preset: str, option: Option) -> RuleError:
    """The error of an option given a value in a game that does not have it."""
    if option.presets == ("generala",):
        return RuleError(
            N_("L'option « {name} » ne s'applique qu'à la Generala."), name=option.name
        )
    if preset == "generala":
        return RuleError(
            N_("L'option « {name} » ne s'applique pas à la Generala."), name=option.name
        )
    if preset == "maxi_yatzy":
        return RuleError(
            N_("L'option « {name} » ne s'applique pas au Maxi Yatzy."), name=option.name
        )
    return RuleError(
        N_("L'option « {name} » ne s'applique pas au {preset}."), name=option.name, preset=preset
    )


def _read_columns(value: object) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)) or not value:
        raise RuleError(
            N_("L'option « columns » est une liste de colonnes parmi free, down, up, sec.")
        )
    for column in value:
        if not isinstance(column, str) or column not in COLUMN_ORDER:
            raise RuleError(
                N_("Colonne inconnue : « {name} » (free, down, up ou sec)."), name=column
            )
    if len(set(value)) != len(value):
        raise RuleError(N_("Une colonne ne peut pas figurer deux fois dans « columns »."))
    # The sheet always shows the columns in one order, whatever order they were listed in.
    return tuple(column for column in COLUMN_ORDER if column in value)


def rules_from_choices(chosen: Mapping[str, object]) -> Rules:
    """The rules the new-game form or the print page chose: ``preset``, ``sec``, and each
    option by its name. ``sec`` adds the Yams sec column after the preset's columns."""
    options = dict(chosen)
    if options.pop(SEC.name, False):
        columns = options.get("columns")
        if not isinstance(columns, list):
            columns = list(TRIPLE_COLUMNS if options.get("preset") == "triple" else ("free",))
        options["columns"] = [*columns, "sec"]
    return Rules.from_dict(options)


_TRUE = {"1", "true", "on", "oui"}
_FALSE = {"0", "false", "off", "non"}


def read_flag(text: str) -> bool | str:
    """A checkbox's value as a boolean; anything else is left for Rules.from_dict to refuse."""
    lowered = text.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    return text


def rules_from_query(values: Mapping[str, str]) -> Rules:
    """The rules a query names (``preset=triple&four_kind=fixed40&plus_minus=1&sec=1``), each
    parameter once; RuleError, with a message to show, for anything the rules do not know."""
    options: dict[str, object] = {}
    sec = read_flag(values.get(SEC.name, "0"))
    if not isinstance(sec, bool):
        raise RuleError(N_("Le paramètre « sec » vaut 1 ou 0, pas « {value} »."), value=sec)
    for key, text in values.items():
        if key == SEC.name:
            continue
        option = OPTION_BY_NAME.get(key)
        if option is not None and option.is_flag:
            options[key] = read_flag(text)
        elif option is not None and isinstance(option.default, int):
            # A number the rules know, else the text, which they refuse with a message.
            number = read_whole(text.strip(), max(option.values))
            options[key] = text if number is None else number
        elif key == "columns":
            options[key] = [column.strip() for column in text.split(",")]
        else:
            options[key] = text
    return rules_from_choices({**options, SEC.name: sec})
