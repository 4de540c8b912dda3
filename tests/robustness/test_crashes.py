"""kill -9 of a real server while devices write: nothing acknowledged is ever lost.

Three kills here, to keep CI quick; the issue's ten are `python -m scripts.robustness crashes`.
"""

from tests.robustness.crashes import run_crashes


def test_kill_9_while_writing_keeps_every_acknowledged_entry(tmp_path, database_url):
    report = run_crashes(tmp_path, kills=3, devices=4, database_url=database_url)
    assert report.acknowledged > 0
    print(f"\n{report}")
