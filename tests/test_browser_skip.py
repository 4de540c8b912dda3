"""The browser tests on a machine without Debian's Chromium: one skipped test with its
reason, or a failure when SCOREKEEPER_REQUIRE_BROWSER=1 says they must run (CI)."""

import os
import subprocess
import sys
from pathlib import Path

from tests.browser.tablets import CHROMIUM

ROOT = Path(__file__).resolve().parents[1]
# Loaded before tests/browser/conftest.py: this machine's Chromium is not there.
HIDE_CHROMIUM = f"""
import os
CHROMIUM = {CHROMIUM!r}
_access = os.access
os.access = lambda path, mode, **kw: False if str(path) == CHROMIUM else _access(
    path, mode, **kw)
"""


def _run_browser_tests(tmp_path, **env) -> subprocess.CompletedProcess:
    (tmp_path / "hide_chromium.py").write_text(HIDE_CHROMIUM, encoding="utf-8")
    environment = {
        name: value for name, value in os.environ.items() if name != "SCOREKEEPER_REQUIRE_BROWSER"
    }
    environment.update(PYTHONPATH=str(tmp_path), **env)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "hide_chromium",
            "-p",
            "no:cacheprovider",
            # One process: the one skip needs no workers to start and import the app.
            "-n",
            "0",
            "-rs",
            "-q",
            "tests/browser",
        ],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_without_chromium_the_browser_tests_are_one_skip_with_its_reason(tmp_path):
    result = _run_browser_tests(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 skipped" in result.stdout
    assert f"browser tests: no Chromium at {CHROMIUM}" in result.stdout


def test_ci_fails_without_chromium(tmp_path):
    result = _run_browser_tests(tmp_path, SCOREKEEPER_REQUIRE_BROWSER="1")
    assert result.returncode == 1
    assert "1 failed" in result.stdout
    assert "SCOREKEEPER_REQUIRE_BROWSER=1 but no Chromium" in result.stdout
