"""Names shown to players for boxes, columns and rule options.

French source strings, marked with ``N_`` so that the translation catalogue picks them up
while this package stays free of Flask: the layers above translate them when they render,
all but a game's own words (``OwnWord``), shown as they are.
"""

from collections.abc import Callable, Mapping


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

# Yatzy and Yahtzee call their last box by the game's own name.
YATZY_BOX_LABELS = {**BOX_LABELS, "yams": N_("Yatzy")}
YAHTZEE_BOX_LABELS = {**BOX_LABELS, "yams": N_("Yahtzee")}


class OwnWord(str):
    """A box's name in the words of its game, shown as it is in every language: a Kniffel
    sheet says Dreierpasch in French, English or Swedish alike, as its paper block does
    (docs/rules.md §12), and Generala's Póker stays Póker on an English or a French sheet, as
    on the tables that play it (§14)."""

    __slots__ = ()


def box_name(labels: Mapping[str, str], box: str, translate: Callable[[str], str]) -> str:
    """The name of ``box`` in the page's language (``translate``), or in the game's own words."""
    label = labels[box]
    return label if isinstance(label, OwnWord) else translate(label)


# Kniffel's words, as Schmidt Spiele's block prints them: not for translation.
KNIFFEL_BOX_LABELS = {
    box: OwnWord(label)
    for box, label in {
        "ones": "Einser",
        "twos": "Zweier",
        "threes": "Dreier",
        "fours": "Vierer",
        "fives": "Fünfer",
        "sixes": "Sechser",
        "three_kind": "Dreierpasch",
        "four_kind": "Viererpasch",
        "full_house": "Full House",
        "small_straight": "Kleine Straße",
        "large_straight": "Große Straße",
        "yams": "Kniffel",
        "chance": "Chance",
    }.items()
}

# Generala's boxes below the upper six are Spanish words at every table (docs/rules.md §14);
# not marked for translation, and never translated.
GENERALA_BOX_LABELS = {
    **{box: BOX_LABELS[box] for box in ("ones", "twos", "threes", "fours", "fives", "sixes")},
    "straight": OwnWord("Escalera"),
    "full_house": OwnWord("Full"),
    "four_kind": OwnWord("Póker"),
    "generala": OwnWord("Generala"),
    "double_generala": OwnWord("Doble Generala"),
}

# Maxi Yatzy's boxes in Swedish at every table, as maxiyatzy.com and the Alga pad print them
# (docs/rules.md §15): the game's own words, never translated.
MAXI_YATZY_BOX_LABELS = {
    box: OwnWord(label)
    for box, label in {
        "ones": "Ettor",
        "twos": "Tvåor",
        "threes": "Treor",
        "fours": "Fyror",
        "fives": "Femmor",
        "sixes": "Sexor",
        "pair": "Ett par",
        "two_pairs": "Två par",
        "three_pairs": "Tre par",
        "three_kind": "Tretal",
        "four_kind": "Fyrtal",
        "five_kind": "Femtal",
        "small_straight": "Liten straight",
        "large_straight": "Stor straight",
        "full_straight": "Full straight",
        "full_house": "Kåk",
        "villa": "Hus",
        "tower": "Torn",
        "chance": "Chans",
        "maxi_yatzy": "Maxiyatzy",
    }.items()
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
    "yahtzee": N_("Yahtzee"),
    "kniffel": N_("Kniffel"),
    "generala": N_("Generala"),
    "maxi_yatzy": N_("Maxi Yatzy"),
}

# How the new-game form offers each preset: its name, where it is played and in which
# language (« Kniffel — Allemagne (allemand) »), then what it plays in a few words. A family
# finds its game by its country as well as by its name.
PRESET_OFFER = N_("%(name)s — %(countries)s (%(language)s)")
PRESET_ORIGINS = {
    "classique": (N_("France"), N_("français")),
    "triple": (N_("France"), N_("français")),
    "yatzy": (N_("Suède, Danemark, Norvège"), N_("suédois, danois, norvégien")),
    "yahtzee": (N_("États-Unis, Canada"), N_("anglais")),
    "kniffel": (N_("Allemagne"), N_("allemand")),
    "generala": (N_("Argentine, Uruguay, Espagne"), N_("espagnol")),
    "maxi_yatzy": (N_("Suède, Danemark, Norvège"), N_("suédois, danois, norvégien")),
}
PRESET_SUMMARIES = {
    "classique": N_("une colonne libre, 13 tours"),
    "triple": N_("colonnes descendante, montante et libre, 39 tours"),
    "yatzy": N_("15 cases, prime de 50, sans joker"),
    "yahtzee": N_("règles officielles de Hasbro, prime Yahtzee de 100"),
    "kniffel": N_("règles de Schmidt Spiele, cases en allemand, +50 par Kniffel de plus"),
    "generala": N_("11 cases en espagnol, servida au premier lancer"),
    "maxi_yatzy": N_("6 dés, 20 cases en suédois, lancers gardés pour plus tard"),
}

# The game's name, as a printed sheet's title and the rules summary say it.
GAME_NAMES = {
    "classique": N_("Yams"),
    "yatzy": N_("Yatzy"),
    "yahtzee": N_("Yahtzee"),
    "kniffel": N_("Kniffel"),
    "generala": N_("Generala"),
    "maxi_yatzy": N_("Maxi Yatzy"),
}

# The row of the Yams after the first, by preset (docs/rules.md §3, §12).
YAMS_BONUS_LABELS = {
    "classique": N_("Prime Yams (+100)"),
    "yahtzee": N_("Prime Yahtzee (+100)"),
    "kniffel": N_("Prime Kniffel (+50)"),
}
