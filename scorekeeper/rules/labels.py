"""Names shown to players for boxes, columns and rule options.

French source strings, marked with ``N_`` so that the translation catalogue picks them up
while this package stays free of Flask: the layers above translate them when they render.
"""


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
}
