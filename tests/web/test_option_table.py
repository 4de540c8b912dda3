"""A house rule added to the table in rules/options.py appears, with no other change, on the
new-game form, the print page, the rules summary and the rule-set label, and is read back
from the form and from a blank grid's query."""

import html
from dataclasses import dataclass

import pytest
from flask import render_template_string

from scorekeeper.rules import Rules
from scorekeeper.rules import options as options_module
from scorekeeper.rules import rule_set as rule_set_module
from scorekeeper.rules.options import OPTIONS, Choice, Option
from scorekeeper.sheets import blank_grid_from_query
from scorekeeper.web import games, rule_labels
from scorekeeper.web.forms import new_game_form_class
from scorekeeper.web.rule_labels import rule_set_label


@dataclass(frozen=True)
class RulesWithGiant(Rules):
    giant: bool = False


GIANT = Option(
    "giant",
    "Yams géant : le Yams vaut 75 au lieu de 50",
    (Choice(False), Choice(True, short="Yams géant")),
    print_label="Yams géant à 75",
)


@pytest.fixture
def giant(app, monkeypatch):
    """The table with one more option: every place that reads the table reads this one."""
    table = (*OPTIONS, GIANT)
    by_name = {o.name: o for o in table}
    # The table's module, and the module of Rules and of the readers of forms and queries.
    for module in (options_module, rule_set_module):
        monkeypatch.setattr(module, "OPTIONS", table)
        monkeypatch.setattr(module, "OPTION_BY_NAME", by_name)
    monkeypatch.setattr(rule_set_module, "Rules", RulesWithGiant)
    monkeypatch.setattr(rule_labels, "OPTIONS", table)
    monkeypatch.setattr(games, "OPTIONS", table)
    monkeypatch.setattr(games, "NewGameForm", new_game_form_class(table))
    monkeypatch.setitem(app.jinja_env.globals, "OPTIONS", table)
    return table


def test_a_new_option_shows_on_every_page_and_is_read_back(app, client, giant):
    new_game = html.unescape(client.get("/games/new").get_data(as_text=True))
    assert 'name="giant"' in new_game and GIANT.label in new_game

    printed = html.unescape(client.get("/print").get_data(as_text=True))
    # On the classique and triple forms, not on Yatzy's: the option is the French sheet's.
    assert printed.count('<input type="checkbox" name="giant" value="1"> Yams géant à 75') == 2

    assert blank_grid_from_query([("giant", "1")]).rules.giant is True
    assert blank_grid_from_query([]).rules.giant is False

    with app.test_request_context(
        "/games/new", method="POST", data={"preset": "classique", "giant": "y"}
    ):
        assert games._rules_from(games.NewGameForm()).giant is True
    with app.test_request_context(
        "/games/new", method="POST", data={"preset": "yatzy", "giant": "y"}
    ):
        assert games._rules_from(games.NewGameForm()).giant is False

    with app.test_request_context():
        rules = RulesWithGiant(giant=True)
        summary = render_template_string(
            '{% from "games/_rules.html" import rules_summary %}{{ rules_summary(rules) }}',
            rules=rules,
        )
        assert "<li>Yams géant</li>" in summary
        assert rule_set_label(rules) == "Classique · Yams géant"
        assert rule_set_label(RulesWithGiant()) == "Classique"
