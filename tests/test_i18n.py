"""The translation catalogues: complete, exact, compiled, and in step with the sources.

French is the source language: every msgid is the French text, so French is complete by
construction. Each other language has a catalogue in scorekeeper/translations; these checks
fail on an untranslated or fuzzy message, a placeholder lost in translation, a string added
to the code without its translation, and a .mo left behind its .po.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parent.parent
TRANSLATIONS = ROOT / "scorekeeper" / "translations"
CATALOGUES = sorted(
    path.parent.parent.name for path in TRANSLATIONS.glob("*/LC_MESSAGES/messages.po")
)

# What must survive translation unchanged: %(name)s fields (Flask-Babel, Jinja) with their
# conversion, {name} fields (str.format, the rules' messages) and escaped braces.
PERCENT_FIELD = re.compile(r"%(?:\(\w+\))?[-#0 +]*\d*(?:\.\d+)?[diouxXeEfFgGcrs%]")
BRACE_FIELD = re.compile(r"\{\{|\}\}|\{[^{}]*\}")

UPDATE_HINT = (
    "run the pybabel extract and update commands of README.md (Development), then translate"
)


def po_catalogue(language: str) -> Catalog:
    with open(TRANSLATIONS / language / "LC_MESSAGES" / "messages.po", "rb") as file:
        return read_po(file, locale=language)


def messages(catalogue: Catalog) -> list[Message]:
    return [message for message in catalogue if message.id]


def forms(text: str | tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """A message's singular and plural forms (read_mo gives lists, read_po tuples)."""
    return tuple(text) if isinstance(text, tuple | list) else (text,)


def fields(text: str) -> list[str]:
    """The placeholders of a message, and any stray % that Jinja's formatting would choke on."""
    found = PERCENT_FIELD.findall(text) + BRACE_FIELD.findall(text)
    stray = PERCENT_FIELD.sub("", text).count("%")
    return sorted(set(found)) + ["%"] * stray


def source_messages() -> dict[str, str | tuple[str, ...]]:
    """Every message of the code and templates, extracted as babel.cfg says, by msgid."""
    with open(ROOT / "babel.cfg", encoding="utf-8") as file:
        method_map, options_map = parse_mapping_cfg(file)
    return {
        forms(message)[0]: message
        for _file, _line, message, _comments, _context in extract_from_dir(
            ROOT, method_map, options_map
        )
    }


@pytest.fixture(scope="module")
def sources():
    return source_messages()


def test_extraction_finds_every_kind_of_marked_string(sources):
    # N_ in the layers without Flask, _l in forms, _ and ngettext in templates, gettext in
    # views: if babel.cfg stopped reaching one of them, the checks below would shrink unseen.
    assert "Brelan" in sources  # rules/labels.py, N_
    assert "Trop de dés : il en faut {count}, pas {given}." in sources  # rules, N_
    assert "Commencer la partie" in sources  # web/forms.py, _l
    assert "Cette page n'existe pas (ou plus)." in sources  # web/errors.py, gettext as _
    assert sources["%(num)d point"] == ("%(num)d point", "%(num)d points")  # Jinja ngettext
    assert "Bravo %(names)s !" in sources  # Jinja _ with a field


def test_every_language_but_french_has_a_catalogue(app):
    assert app.config["BABEL_DEFAULT_LOCALE"] == "fr"
    assert sorted(set(app.config["LANGUAGES"]) - {"fr"}) == CATALOGUES
    assert "en" in CATALOGUES


@pytest.mark.parametrize("language", CATALOGUES)
def test_every_message_is_translated_and_none_is_fuzzy(language):
    catalogue = po_catalogue(language)
    assert not catalogue.fuzzy, "the catalogue's header is marked fuzzy"
    untranslated = [
        message.id
        for message in messages(catalogue)
        if not all(form.strip() for form in forms(message.string))
    ]
    fuzzy = [message.id for message in messages(catalogue) if message.fuzzy]
    assert untranslated == [], f"untranslated in {language}"
    assert fuzzy == [], f"fuzzy in {language}"


@pytest.mark.parametrize("language", CATALOGUES)
def test_plural_messages_have_every_plural_form(language):
    catalogue = po_catalogue(language)
    for message in messages(catalogue):
        if message.pluralizable:
            assert len(message.string) == catalogue.num_plurals, message.id


@pytest.mark.parametrize("language", CATALOGUES)
def test_translations_keep_every_placeholder(language):
    lost = []
    for message in messages(po_catalogue(language)):
        sources_of_forms = forms(message.id)
        for number, translated in enumerate(forms(message.string)):
            source = sources_of_forms[min(number, len(sources_of_forms) - 1)]
            if fields(translated) != fields(source):
                lost.append((source, translated))
    assert lost == []


@pytest.mark.parametrize("language", CATALOGUES)
def test_the_catalogue_has_every_message_of_the_sources(language, sources):
    catalogue = po_catalogue(language)
    missing = [msgid for msgid in sources if catalogue.get(msgid) is None]
    assert missing == [], f"not in the {language} catalogue; {UPDATE_HINT}"
    singular_only = [
        msgid
        for msgid, message in sources.items()
        if isinstance(message, tuple) and not catalogue.get(msgid).pluralizable
    ]
    assert singular_only == [], f"plural in the code, not in the catalogue; {UPDATE_HINT}"


@pytest.mark.parametrize("language", CATALOGUES)
def test_the_compiled_catalogue_is_the_catalogue(language):
    """Flask-Babel reads the .mo, which is committed: it must say what the .po says."""
    with open(TRANSLATIONS / language / "LC_MESSAGES" / "messages.mo", "rb") as file:
        compiled = read_mo(file)
    expected = {
        forms(message.id): forms(message.string) for message in messages(po_catalogue(language))
    }
    found = {forms(message.id): forms(message.string) for message in messages(compiled)}
    assert found == expected, (
        "messages.mo is out of date: pybabel compile -d scorekeeper/translations"
    )
