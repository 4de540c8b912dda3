"""`scripts/under_load.py` stopped by SIGTERM leaves nothing running: not the test run it
started in a session of its own (with its workers and browsers), not its CPU burners."""

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.support.threads import WAIT_SECONDS

ROOT = Path(__file__).resolve().parents[1]


def _children(pid: int) -> set[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except FileNotFoundError:
        return set()
    return {int(child) for child in text.split()}


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except FileNotFoundError:
        return ""


def _running_in_group(pgid: int) -> list[int]:
    """The processes of group ``pgid`` still running (a zombie has ended: it is only not
    yet reaped, which a container's first process may never do)."""
    running = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            # pid (command) state ppid pgrp ...: the command may hold spaces and brackets.
            fields = stat.read_text().rpartition(")")[2].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            running.append(int(stat.parent.name))
    return running


def test_sigterm_ends_the_run_under_way_and_the_burners(tmp_path):
    script = subprocess.Popen(
        [sys.executable, "-m", "scripts.under_load", "--browser", "1", "--suite", "0"]
        + ["--burners", "2", "--logs", str(tmp_path)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    started: set[int] = set()
    runs: list[int] = []
    try:
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            started = _children(script.pid)
            runs = [child for child in started if "-m pytest" in _command(child)]
            if runs and len(started) == 3:
                break
            assert script.poll() is None, "the script ended by itself"
            assert time.monotonic() < deadline, f"no run and two burners: {started}"
            time.sleep(0.05)
        script.send_signal(signal.SIGTERM)
        assert script.wait(timeout=WAIT_SECONDS) != 0
        # The run was the leader of its own session's group: nothing of that group is left.
        deadline = time.monotonic() + WAIT_SECONDS
        while left := _running_in_group(runs[0]):
            assert time.monotonic() < deadline, f"the run outlived the script: {left}"
            time.sleep(0.05)
        burners = started - set(runs)
        assert not [pid for pid in burners if Path(f"/proc/{pid}").exists()]
    finally:
        # Whatever the test found, nothing it started runs on after it.
        for pid in started:
            with contextlib.suppress(ProcessLookupError):
                if pid in runs:
                    os.killpg(pid, signal.SIGKILL)
                else:
                    os.kill(pid, signal.SIGKILL)
        if script.poll() is None:
            os.killpg(script.pid, signal.SIGKILL)
            script.wait(timeout=WAIT_SECONDS)
