"""What a household's name may hold, and when two names are one: the rules that sign-up, the
`household create` command and migration 0009 share.

A household's name is shown in the header of every device joined to it, and on the page of
a join link: a name that looks like another is an impersonation. So two names are the same
name when they are equal after NFKC, case folding and whitespace collapsing (their key: how
a name is typed to join), and a name is taken when it looks like one already kept: when
their Unicode TR39 skeletons, from ICU's spoof checker, are equal ("Fаmille Alpha" with a
Cyrillic а looks like "Famille Alpha"; so does "Famille AIpha" with a capital I). Invisible
characters, which would make two names look alike whatever the skeleton, are refused.
"""

from __future__ import annotations

import functools
import hashlib
import unicodedata
from collections.abc import Callable

from scorekeeper.rules.labels import N_
from scorekeeper.store.errors import StoreError

MAX_HOUSEHOLD_NAME_LENGTH = 60
# The households.name_key column: NFKC and case folding may lengthen a name.
MAX_KEY_LENGTH = 180


def _identity(text: str) -> str:
    return text


class HouseholdNameRefused(StoreError):
    """A name no household may have; `render` says why, in French or translated."""

    def __init__(self, template: str, **params: object) -> None:
        super().__init__(template)
        self.template = template
        self.params = params

    def render(self, translate: Callable[[str], str] = _identity) -> str:
        return translate(self.template).format(**self.params)

    def __str__(self) -> str:
        return self.render()


class HouseholdNameTaken(StoreError):
    """Another household has this name, or one that looks like it."""


@functools.cache
def _icu():
    # Imported when a name is checked, not at start: ICU's data is tens of megabytes.
    import icu

    invisible = {
        icu.UCharCategory.CONTROL_CHAR,
        icu.UCharCategory.FORMAT_CHAR,
        icu.UCharCategory.SURROGATE,
        icu.UCharCategory.PRIVATE_USE_CHAR,
        icu.UCharCategory.UNASSIGNED,
        icu.UCharCategory.LINE_SEPARATOR,
        icu.UCharCategory.PARAGRAPH_SEPARATOR,
    }
    return icu, icu.SpoofChecker(), invisible


def _invisible(character: str) -> bool:
    """A control, zero-width, bidi, private or unassigned character, or one that Unicode
    says to show as nothing (a Hangul filler), but not a variation selector: an emoji's ❤️
    carries one, and the skeleton drops it."""
    icu, _checker, invisible = _icu()
    category = icu.Char.charType(character)
    return category in invisible or (
        icu.Char.hasBinaryProperty(character, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT)
        and category != icu.UCharCategory.NON_SPACING_MARK
    )


def household_name(typed: str) -> str:
    """The name as it is kept and shown: trimmed, each run of spaces one space.

    HouseholdNameRefused when it holds an invisible character (a line break, a zero-width
    space, a change of writing direction...), is empty, or is too long, also once compared.
    """
    if any(_invisible(character) for character in typed):
        raise HouseholdNameRefused(
            N_(
                "Le nom contient un caractère invisible (retour à la ligne, espace sans largeur, "
                "changement de sens d'écriture…) : retapez-le sans."
            )
        )
    name = " ".join(typed.split())
    if not name or not household_skeleton_text(name):
        raise HouseholdNameRefused(N_("Tapez un nom pour la maison."))
    if len(name) > MAX_HOUSEHOLD_NAME_LENGTH or len(household_key(name)) > MAX_KEY_LENGTH:
        raise HouseholdNameRefused(
            N_("Le nom a trop de caractères : {most} au plus."), most=MAX_HOUSEHOLD_NAME_LENGTH
        )
    return name


def household_key(name: str) -> str:
    """The name as typed to join: the same name ignoring case, compatibility forms (ﬁ, full
    width letters) and spaces is the same household."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join(folded.split())


def household_skeleton_text(name: str) -> str:
    """What the name looks like (TR39): its skeleton, case folded, then skeleton again, so
    that a look-alike letter is caught whatever its case ("fаmille alpha", "Famille AIpha"
    and "Famille Alpha" are one). For comparing only, never for showing."""
    _icu_module, checker, _invisible_categories = _icu()
    shown = unicodedata.normalize("NFKC", name)
    skeleton = checker.getSkeleton(0, checker.getSkeleton(0, shown).casefold())
    return " ".join(skeleton.split())


def household_skeleton(name: str) -> str:
    """The key of what the name looks like, as the households table keeps it: a digest, of
    a fixed length whatever the skeleton's."""
    return hashlib.sha256(household_skeleton_text(name).encode()).hexdigest()
