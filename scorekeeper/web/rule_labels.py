"""The short name of a set of rules, as the hall of fame and the players' pages list them."""

from flask_babel import gettext as _

from scorekeeper.rules import COLUMN_LABELS, PRESET_LABELS, Rules
from scorekeeper.rules.labels import PRESET_OFFER, PRESET_ORIGINS, PRESET_SUMMARIES
from scorekeeper.rules.options import OPTIONS, TRIPLE_COLUMNS


def preset_offer(preset: str) -> tuple[str, str]:
    """How the new-game form offers a preset, in the page's language: « Kniffel — Allemagne
    (allemand) », then what it plays (rules/labels.py)."""
    countries, language = PRESET_ORIGINS[preset]
    title = _(
        PRESET_OFFER, name=_(PRESET_LABELS[preset]), countries=_(countries), language=_(language)
    )
    return title, _(PRESET_SUMMARIES[preset])


def rule_set_label(rules: Rules) -> str:
    """A short name for a set of rules: "Classique", "Triple", "Classique · vache · Carré 40".

    The preset, its columns when they are not the usual ones, then each option that is not at
    its usual value, in the words its description gives (rules/options.py).
    """
    if rules.preset == "classique" and set(TRIPLE_COLUMNS) <= set(rules.columns):
        name, usual = _("Triple"), TRIPLE_COLUMNS
    else:
        name, usual = _(PRESET_LABELS[rules.preset]), ("free",)
    parts = [name]
    if rules.columns == (*usual, "sec"):
        parts.append(_("Sec"))
    elif rules.columns != usual:
        parts.append(
            _(
                "colonnes %(columns)s",
                columns=", ".join(_(COLUMN_LABELS[kind]) for kind in rules.columns),
            )
        )
    for option in OPTIONS:
        if option.applies_to(rules.preset):
            short = option.choice(getattr(rules, option.name)).short
            if short:
                parts.append(_(short))
    return " · ".join(parts)
