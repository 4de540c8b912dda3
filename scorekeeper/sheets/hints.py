"""What a blank grid says in words: under each box, when it scores and what; below the
grid, the house rules in force. French templates with their values, said in the sheet's
language when drawn.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field

from scorekeeper.rules import Rules
from scorekeeper.rules.labels import N_
from scorekeeper.rules.options import UPPER_BOXES
from scorekeeper.rules.scoring import (
    FOUR_KIND_FIXED,
    FULL_HOUSE,
    GENERALA_POINTS,
    LARGE_STRAIGHT,
    MAXI_FULL_STRAIGHT,
    MAXI_LARGE_STRAIGHT,
    MAXI_SMALL_STRAIGHT,
    MAXI_YATZY,
    SERVIDA_POINTS,
    SMALL_STRAIGHT,
    YAMS,
    YATZY_LARGE_STRAIGHT,
    YATZY_SMALL_STRAIGHT,
)


def fixed_value(rules: Rules, box: str) -> int | None:
    """The points a box is always worth when its dice hold, or None when the dice decide
    (Generala's on a later throw: the servida is the hint's)."""
    if rules.is_generala:
        return GENERALA_POINTS.get(box)
    if rules.is_maxi_yatzy:
        return {
            "small_straight": MAXI_SMALL_STRAIGHT,
            "large_straight": MAXI_LARGE_STRAIGHT,
            "full_straight": MAXI_FULL_STRAIGHT,
            "maxi_yatzy": MAXI_YATZY,
        }.get(box)
    if rules.is_yatzy:
        return {
            "small_straight": YATZY_SMALL_STRAIGHT,
            "large_straight": YATZY_LARGE_STRAIGHT,
            "yams": YAMS,
        }.get(box)
    if box == "four_kind" and rules.four_kind == "fixed40":
        return FOUR_KIND_FIXED
    if box == "full_house" and rules.full_house == "fixed25":
        return FULL_HOUSE
    return {"small_straight": SMALL_STRAIGHT, "large_straight": LARGE_STRAIGHT, "yams": YAMS}.get(
        box
    )


@dataclass(frozen=True)
class Hint:
    """A few words printed on a blank grid: a French template and its values; ``boxes``,
    the values that name a box (``{"yams": "yams"}``), said in the sheet's words."""

    text: str
    params: dict
    boxes: dict = field(default_factory=dict)

    def values(self, names: Mapping[str, str]) -> dict:
        """The template's values, each box by its name in ``names`` (box key to name)."""
        return {**self.params, **{param: names[box] for param, box in self.boxes.items()}}


# When each box scores and what, in one short line under its name (seed 002's peer grid
# says both): the condition, then the points. Fixed points come from the engine's constants.
_UPPER_HINT = N_("total des %(face)d")
_CLASSIQUE_HINTS = {
    ("three_kind", "sum"): N_("≥ 3 dés pareils · somme des 5 dés"),
    ("three_kind", "base"): N_("≥ 3 dés pareils · 10 + ces 3 dés"),
    ("three_kind", "matching"): N_("≥ 3 dés pareils · 3 × la face"),
    ("four_kind", "sum"): N_("≥ 4 dés pareils · somme des 5 dés"),
    ("four_kind", "fixed40"): N_("≥ 4 dés pareils · %(points)d points"),
    ("four_kind", "base"): N_("≥ 4 dés pareils · 20 + ces 4 dés"),
    ("four_kind", "matching"): N_("≥ 4 dés pareils · 4 × la face"),
    ("full_house", "fixed25"): N_("brelan + paire · %(points)d points"),
    ("full_house", "base"): N_("brelan + paire · 10 + les 5 dés"),
    ("small_straight", None): N_("1234, 2345 ou 3456 · %(points)d points"),
    ("large_straight", None): N_("12345 ou 23456 · %(points)d points"),
    ("yams", None): N_("5 dés pareils · %(points)d points"),
    ("chance", None): N_("tout lancer · somme des 5 dés"),
    ("plus", None): N_("somme des 5 dés, plus que le Moins"),
    ("minus", None): N_("somme des 5 dés, moins que le Plus"),
}
_YATZY_HINTS = {
    "pair": N_("2 dés pareils · leur somme"),
    "two_pairs": N_("2 paires différentes · leur somme"),
    "three_kind": N_("3 dés pareils · leur somme"),
    "four_kind": N_("4 dés pareils · leur somme"),
    "small_straight": N_("1-2-3-4-5 · %(points)d points"),
    "large_straight": N_("2-3-4-5-6 · %(points)d points"),
    "full_house": N_("brelan + paire · somme des dés"),
    "chance": N_("tout lancer · somme des dés"),
    "yams": N_("5 dés pareils · %(points)d points"),
}


# Generala's: the points, then those made on the first throw where the servida counts.
_GENERALA_HINTS = {
    "straight": N_("12345 ou 23456 · %(points)d points"),
    "ace_high_straight": N_("12345, 23456 ou 34561 · %(points)d points"),
    "full_house": N_("brelan + paire · %(points)d points"),
    "four_kind": N_("≥ 4 dés pareils · %(points)d points"),
    "generala": N_("5 dés pareils · %(points)d points"),
    "double_generala": N_("2e Generala · %(points)d points"),
}
_SERVIDA_HINTS = {
    "straight": N_("12345 ou 23456 · %(points)d, servida %(served)d"),
    "ace_high_straight": N_("12345, 23456 ou 34561 · %(points)d, servida %(served)d"),
    "full_house": N_("brelan + paire · %(points)d, servida %(served)d"),
    "four_kind": N_("≥ 4 dés pareils · %(points)d, servida %(served)d"),
}


# Maxi Yatzy's (docs/rules.md §15): six dice, the best among them.
_MAXI_YATZY_HINTS = {
    "pair": N_("2 dés pareils · leur somme"),
    "two_pairs": N_("2 paires différentes · leur somme"),
    "three_pairs": N_("3 paires différentes · leur somme"),
    "three_kind": N_("3 dés pareils · leur somme"),
    "four_kind": N_("4 dés pareils · leur somme"),
    "five_kind": N_("5 dés pareils · leur somme"),
    "small_straight": N_("1-2-3-4-5 · %(points)d points"),
    "large_straight": N_("2-3-4-5-6 · %(points)d points"),
    "full_straight": N_("1-2-3-4-5-6 · %(points)d points"),
    "full_house": N_("brelan + paire · leur somme"),
    "villa": N_("2 brelans · somme des 6 dés"),
    "tower": N_("carré + paire · somme des 6 dés"),
    "chance": N_("tout lancer · somme des 6 dés"),
    "maxi_yatzy": N_("6 dés pareils · %(points)d points"),
}


def box_hint(rules: Rules, box: str) -> Hint:
    """When ``box`` scores and what, for the blank grid of these rules."""
    fixed = fixed_value(rules, box)
    params = {} if fixed is None else {"points": fixed}
    if box in UPPER_BOXES:
        return Hint(_UPPER_HINT, {"face": UPPER_BOXES.index(box) + 1})
    if rules.is_generala:
        key = "ace_high_straight" if box == "straight" and rules.ace_high_straight else box
        if rules.servida and box in SERVIDA_POINTS:
            return Hint(_SERVIDA_HINTS[key], {**params, "served": SERVIDA_POINTS[box]})
        return Hint(_GENERALA_HINTS[key], params)
    if rules.is_maxi_yatzy:
        return Hint(_MAXI_YATZY_HINTS[box], params)
    if rules.is_yatzy:
        return Hint(_YATZY_HINTS[box], params)
    option = getattr(rules, box) if box in ("three_kind", "four_kind", "full_house") else None
    return Hint(_CLASSIQUE_HINTS[box, option], params)


def footnotes(rules: Rules) -> tuple[Hint, ...]:
    """What the options in force mean, one short sentence each, under a blank grid: the
    header names them, the family holding the paper needs them explained."""
    notes = [
        Hint(N_("Une case par tour ; si aucune ne convient, barrez-en une : elle vaut 0."), {})
    ]
    if rules.is_generala:
        if rules.servida:
            notes.append(
                Hint(
                    N_(
                        "Servida : faite au premier lancer, l'Escalera vaut %(straight)d, le "
                        "Full %(full)d, le Póker %(poker)d."
                    ),
                    {
                        "straight": SERVIDA_POINTS["straight"],
                        "full": SERVIDA_POINTS["full_house"],
                        "poker": SERVIDA_POINTS["four_kind"],
                    },
                )
            )
        if rules.servida_wins:
            notes.append(
                Hint(N_("Generala servida, dans la case Generala : la partie est gagnée."), {})
            )
    if "down" in rules.columns:
        notes.append(Hint(N_("Descendante : de haut en bas. Montante : de bas en haut."), {}))
    if "sec" in rules.columns:
        notes.append(Hint(N_("Sec : un seul lancer par tour."), {}))
    if rules.saves_throws:
        notes.append(
            Hint(
                N_(
                    "Lancers gardés : trois lancers par tour, au moins un ; ceux qu'un tour "
                    "n'utilise pas servent aux tours suivants du même joueur."
                ),
                {},
            )
        )
    elif rules.dice == 6:
        notes.append(
            Hint(N_("Yams 6 : on lance six dés et chaque case compte les cinq meilleurs."), {})
        )
    full_values = {"full": FULL_HOUSE, "small": SMALL_STRAIGHT, "large": LARGE_STRAIGHT}
    five_alike = {"yams": rules.five_alike_box}  # the game's word: Yams, Yahtzee...
    if rules.has_kniffel_bonus:
        notes.append(
            Hint(
                N_(
                    "Kniffel en plus, case Kniffel remplie : dans la case du haut de sa face "
                    "si elle est libre, avec +%(bonus)d ; sinon en bas (Full %(full)d, "
                    "suites %(small)d et %(large)d) ; sinon en haut à 0."
                ),
                {"bonus": rules.yams_bonus_points, **full_values},
            )
        )
    elif rules.has_joker and rules.joker == "official":
        notes.append(
            Hint(
                N_(
                    "Joker : un %(yams)s, case %(yams)s remplie, va en haut dans la case de "
                    "sa face si elle est libre, sinon en bas (Full %(full)d, suites "
                    "%(small)d et %(large)d), sinon en haut à 0."
                ),
                full_values,
                five_alike,
            )
        )
    elif rules.has_joker and rules.joker == "free":
        notes.append(
            Hint(
                N_(
                    "Joker libre : un %(yams)s, case %(yams)s remplie, va dans n'importe "
                    "quelle case libre (Full %(full)d, suites %(small)d et "
                    "%(large)d)."
                ),
                full_values,
                five_alike,
            )
        )
    elif rules.has_joker:
        notes.append(
            Hint(
                N_(
                    "Joker au choix : un %(yams)s, case %(yams)s remplie, va dans n'importe "
                    "quelle case libre ; Full %(full)d, suites %(small)d et %(large)d une fois "
                    "sa case du haut remplie."
                ),
                full_values,
                five_alike,
            )
        )
    if rules.has_yams_bonus:
        notes.append(
            Hint(
                N_("+100 : une coche par %(yams)s de plus quand la case %(yams)s vaut 50."),
                {},
                five_alike,
            )
        )
    if rules.plus_minus:
        notes.append(
            Hint(
                N_(
                    "Plus et Moins : le Plus doit finir au-dessus du Moins, sinon la "
                    "dernière des deux est barrée."
                ),
                {},
            )
        )
    if rules.vache:
        notes.append(
            Hint(
                N_(
                    "Vache : sur une ligne, marquer moins que le meilleur score d'un "
                    "autre joueur barre la case."
                ),
                {},
            )
        )
    return tuple(notes)
