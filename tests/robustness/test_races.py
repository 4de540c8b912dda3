"""Racing devices and double taps on a real server: each turn is stored exactly once.

A smaller run than the issue's 8 clients x 200 submissions, to keep CI quick; that one is
`python -m scripts.robustness races` (see docs/development.md, "The robustness checks").
"""

from tests.robustness.races import run_races


def test_racing_devices_and_double_taps_store_each_turn_exactly_once(tmp_path, database_url):
    report = run_races(tmp_path, clients=8, submissions=40, database_url=database_url)
    assert report.acknowledged > 0 and report.refused > 0
    print(f"\n{report}")
