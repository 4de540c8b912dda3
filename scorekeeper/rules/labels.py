"""Names shown to players for boxes, columns and rule options.

French source strings, marked with ``N_`` so that the translation catalogue picks them up
while this package stays free of Flask: the layers above translate them when they render.
"""

from collections.abc import Callable


def N_(text: str) -> str:  # noqa: N802 - the usual name of the gettext no-op marker
    """Mark a string for translation without translating it here."""
    return text


BOX_LABELS = {
    "ones": N_("As"),
    "twos": N_("Deux"),
    "threes": N_("Trois"),
    "fours": N_("Quatre"),
    "fives": N_("Cinq"),
    "sixes": N_("Six"),
    "pair": N_("Paire"),
    "two_pairs": N_("Deux paires"),
    "three_kind": N_("Brelan"),
    "four_kind": N_("Carré"),
    "full_house": N_("Full"),
    "small_straight": N_("Petite suite"),
    "large_straight": N_("Grande suite"),
    "yams": N_("Yams"),
    "chance": N_("Chance"),
    "plus": N_("Plus"),
    "minus": N_("Moins"),
}

# Yatzy calls its last box by the game's own name.
YATZY_BOX_LABELS = {**BOX_LABELS, "yams": N_("Yatzy")}


class OwnWord(str):
    """A box's name in the words of its game, shown as it is in every language: Generala's
    Póker stays Póker on an English or a French sheet, as on the tables that play it."""

    __slots__ = ()


def box_name(label: str, translate: Callable[[str], str]) -> str:
    """A box's label as a page shows it: translated, unless it is the game's own word."""
    return label if isinstance(label, OwnWord) else translate(label)


# Generala's boxes below the upper six are Spanish words at every table (docs/rules.md §13);
# not marked for translation, and never translated.
GENERALA_BOX_LABELS = {
    **{box: BOX_LABELS[box] for box in ("ones", "twos", "threes", "fours", "fives", "sixes")},
    "straight": OwnWord("Escalera"),
    "full_house": OwnWord("Full"),
    "four_kind": OwnWord("Póker"),
    "generala": OwnWord("Generala"),
    "double_generala": OwnWord("Doble Generala"),
}

COLUMN_LABELS = {
    "free": N_("Libre"),
    "down": N_("Descendante"),
    "up": N_("Montante"),
    "sec": N_("Sec"),
}

PRESET_LABELS = {
    "classique": N_("Classique"),
    "triple": N_("Triple"),
    "yatzy": N_("Yatzy"),
    "generala": N_("Generala"),
}
