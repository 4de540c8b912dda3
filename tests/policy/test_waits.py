"""Every wait in the tests has a bound, and none waits for time in place of a state.

Read from the sources of tests/ and testing/: a join, wait, acquire, result or communicate
without a timeout may hang a whole run; a sleep outside a loop is a wait for time (a loop
that sleeps looks again for a state, until a deadline); Playwright's wait_for_timeout is
the same in a page. A sleep that is the duration of something measured is named here with
its reason. `python -m scripts.under_load` runs the suite beside CPU burners.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ["tests", "testing"]
WAITS = {"join", "wait", "acquire", "result", "communicate"}
# (file, function): why its sleep outside a loop is a duration, not a wait for a state.
DURATIONS = {
    ("tests/robustness/faults.py", "_run"): "the fault run's phases: windows of time in "
    "which the tablets' answers are counted",
    ("tests/web/test_passphrases.py", "held"): "a hash that takes this long",
    ("tests/browser/test_around_the_table.py", "test_every_tablet_follows_the_game"): (
        "a window in which no poll may come (the sheet polled every 0.4 s)"
    ),
    (
        "tests/web/test_fair_seats.py",
        "test_another_process_ends_a_removed_device_s_stream_within_a_second",
    ): "the other process's stream held open a while before the device is removed",
    ("tests/browser/test_fair_seats.py", "test_a_page_whose_seat_went_polls_and_stays_live"): (
        "past EventSource's retry delay, so that a stream reopened by the older page is seen"
    ),
}


def _findings(path: Path, root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    name = path.relative_to(root).as_posix()
    found = []

    def visit(node: ast.AST, function: str, in_loop: bool) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            function, in_loop = getattr(node, "name", function), False
        if isinstance(node, ast.While | ast.For):
            in_loop = True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            called = node.func.attr
            if called in WAITS and not node.args and not node.keywords:
                found.append(f"{name}:{node.lineno}: .{called}() without a timeout")
            if called == "wait_for_timeout" and (name, function) not in DURATIONS:
                found.append(f"{name}:{node.lineno}: wait_for_timeout waits for time")
            if called == "sleep" and not in_loop and (name, function) not in DURATIONS:
                found.append(f"{name}:{node.lineno}: a sleep outside a loop, in {function}")
        for child in ast.iter_child_nodes(node):
            visit(child, function, in_loop)

    visit(tree, "<module>", False)
    return found


def test_every_wait_in_the_tests_is_bounded_and_waits_for_a_state():
    found = [
        finding
        for folder in SOURCES
        for path in sorted((ROOT / folder).rglob("*.py"))
        for finding in _findings(path)
    ]
    assert found == []


def test_the_check_finds_what_it_looks_for(tmp_path):
    """The check itself, on a file holding each kind of unbounded or timed wait."""
    source = tmp_path / "tests" / "test_example.py"
    source.parent.mkdir()
    source.write_text(
        "import time\n"
        "def test_it(thread, event, page):\n"
        "    thread.join()\n"
        "    event.wait()\n"
        "    time.sleep(1)\n"
        "    page.wait_for_timeout(500)\n"
        "    thread.join(timeout=5)\n"
        "    while not event.is_set():\n"
        "        time.sleep(0.01)\n"
    )
    assert [finding.split(": ", 1)[1] for finding in _findings(source, tmp_path)] == [
        ".join() without a timeout",
        ".wait() without a timeout",
        "a sleep outside a loop, in test_it",
        "wait_for_timeout waits for time",
    ]
