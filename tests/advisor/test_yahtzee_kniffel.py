"""The Conseil of Yahtzee and Kniffel on their real tables (built once per run, shared:
tests/support/advisor_tables.py): the published start values of docs/rules.md §12."""

import pytest
from click.testing import CliRunner

from scorekeeper.advisor.strategy import load_or_build
from scorekeeper.advisor.tables import cache_path
from scorekeeper.cli import advisor as commands
from scorekeeper.rules import Rules

YAHTZEE = Rules.from_dict({"preset": "yahtzee"})


@pytest.mark.parametrize(
    ("rules_json", "value"),
    [
        # docs/rules.md §12: the booklet's forced joker, the preset's default...
        ('{"preset": "yahtzee"}', "254.5877"),
        # ...and Verhoeff's free-choice joker, whose optimum he published: 254.5896.
        ('{"preset": "yahtzee", "joker": "free_choice"}', "254.5896"),
    ],
)
def test_strategy_prints_the_published_start_value_of_each_joker(shared_tables, rules_json, value):
    result = CliRunner().invoke(
        commands.strategy, ["--instance", str(shared_tables), "--rules", rules_json]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == value


def test_yahtzee_plays_on_the_classique_table_of_its_joker(shared_tables):
    # The same boxes and scores (docs/rules.md §12): one table, one file.
    assert cache_path(YAHTZEE, shared_tables) == cache_path(Rules(), shared_tables)
    verhoeff = Rules.from_dict({"preset": "yahtzee", "joker": "free_choice"})
    assert cache_path(verhoeff, shared_tables) == cache_path(
        Rules(joker="free_choice"), shared_tables
    )


def test_kniffels_50_is_worth_less_than_the_100_and_more_than_nothing(shared_tables):
    # Kniffel's table has a value of its own (docs/advisor.md): the +50 comes less often
    # than Hasbro's +100 (only in a Kniffel's upper box), but it comes.
    kniffel = load_or_build(Rules.from_dict({"preset": "kniffel"}), shared_tables)
    assert cache_path(kniffel.rules, shared_tables) != cache_path(Rules(), shared_tables)
    no_bonus = 246.0863  # official joker, no +100: docs/advisor.md
    assert no_bonus < kniffel.start_value < 254.5877
    assert round(kniffel.start_value, 4) == 251.4901
