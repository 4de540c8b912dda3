"""The table of house rules (rules/options.py) agrees with the Rules it describes."""

from dataclasses import fields

import pytest

from scorekeeper.rules import RuleError, Rules
from scorekeeper.rules.options import GENERALA_OPTIONS, OPTIONS, PRESETS, SEC
from scorekeeper.rules.rule_set import rules_from_choices, rules_from_query

RULES_FIELDS = {field.name: field.default for field in fields(Rules)}


@pytest.mark.parametrize("option", OPTIONS, ids=lambda option: option.name)
def test_each_option_is_a_rules_field_with_the_same_default(option):
    assert RULES_FIELDS[option.name] == option.default
    assert len(set(option.values)) == len(option.values)
    # Whatever a page shows for a value, it has words for it.
    for choice in option.choices:
        assert choice.text or option.is_flag


@pytest.mark.parametrize("option", OPTIONS, ids=lambda option: option.name)
def test_each_value_is_read_from_a_document_and_a_query(option):
    preset = option.presets[0]
    for choice in option.choices:
        rules = Rules.from_dict({"preset": preset, option.name: choice.value})
        assert getattr(rules, option.name) == choice.value
        assert Rules.from_dict(rules.to_dict()) == rules
        queried = rules_from_query({"preset": preset, option.name: choice.query})
        assert getattr(queried, option.name) == choice.value


@pytest.mark.parametrize("preset", PRESETS)
def test_an_option_is_refused_away_from_its_default_by_a_preset_without_it(preset):
    for option in OPTIONS:
        for choice in option.choices[1:]:
            if option.applies_to(preset) or (preset, option.name, choice.value) == (
                "maxi_yatzy",
                "dice",
                6,
            ):
                # Maxi Yatzy may say the six dice it plays (docs/rules.md §15).
                rules = Rules.from_dict({"preset": preset, option.name: choice.value})
                assert getattr(rules, option.name) == choice.value
            else:
                with pytest.raises(RuleError, match=option.name):
                    Rules.from_dict({"preset": preset, option.name: choice.value})


def test_which_presets_have_which_options():
    # Yatzy, Yahtzee and Kniffel have rules of their own (docs/rules.md §11, §12): la vache
    # and Sec for all, and Yahtzee its joker.
    assert {option.name for option in OPTIONS if option.applies_to("yatzy")} == {"vache"}
    assert {option.name for option in OPTIONS if option.applies_to("kniffel")} == {"vache"}
    assert {option.name for option in OPTIONS if option.applies_to("yahtzee")} == {
        "vache",
        "joker",
    }
    # Generala has only its own three (docs/rules.md §14), and no Sec column.
    assert {option.name for option in OPTIONS if option.applies_to("generala")} == {
        "servida",
        "servida_wins",
        "ace_high_straight",
    }
    assert all(option.applies_to("triple") for option in OPTIONS if option not in GENERALA_OPTIONS)
    # Maxi Yatzy has none (docs/rules.md §15).
    assert not any(option.applies_to("maxi_yatzy") for option in OPTIONS)
    assert SEC.form_presets == tuple(
        preset for preset in PRESETS if preset not in ("generala", "maxi_yatzy")
    )


@pytest.mark.parametrize(
    ("preset", "columns"),
    [
        ("classique", ("free", "sec")),
        ("triple", ("down", "up", "free", "sec")),
        ("yatzy", ("free", "sec")),
        ("yahtzee", ("free", "sec")),
        ("kniffel", ("free", "sec")),
    ],
)
def test_sec_adds_its_column_after_the_presets(preset, columns):
    assert rules_from_choices({"preset": preset, SEC.name: True}).columns == columns
    assert rules_from_query({"preset": preset, "sec": "1"}).columns == columns
    assert rules_from_query({"preset": preset, "sec": "0"}) == Rules.from_dict({"preset": preset})


def test_a_query_value_the_rules_do_not_know_is_refused():
    for query in (
        {"sec": "maybe"},
        {"dice": "7"},
        {"vache": "peut-être"},
        {"joker": "wild"},
        {"colour": "red"},
    ):
        with pytest.raises(RuleError):
            rules_from_query(query)
