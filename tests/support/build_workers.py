"""Stand-ins for the Conseil's build process, in a module that imports little.

A build runs in a process started by `spawn`, which imports the module of its function
before running it: from a test module, that meant pytest, the app and the tests' support
(about 1 s of CPU against 0.1 s here), which a machine loaded by other work stretches
tenfold, inside the test's wait for the build.
"""

import shutil
import time
from pathlib import Path

from scorekeeper.advisor.tables import CACHE_GLOB, cache_path, spreads_path

# The file whose content (a table's path) releases `held_half_way`.
RELEASE = "release-the-build"


def no_table(rules, instance_dir, done):
    """A build that ends at once, leaving no table."""
    done.value = 1.0


def held_half_way(rules, instance_dir, done):
    """A build stuck half-way until the test writes the path of a real table into RELEASE
    in the instance folder, then that table put in place."""
    done.value = 0.5
    release = Path(instance_dir) / RELEASE
    while not release.exists():
        time.sleep(0.05)
    shutil.copy(release.read_text(), cache_path(rules, instance_dir))


def tables_put_in_place(built: str, rules, instance_dir: str, done) -> None:
    """The tables in the folder ``built``, copied as a build saves its own, half-way and
    then whole."""
    done.value = 0.5
    for table in Path(built).glob(CACHE_GLOB):
        shutil.copy(table, instance_dir)
    done.value = 1.0


# The file where `files_saved` and `spreads_saved` say what they built, one line each.
BUILT_LOG = "built.log"


def files_saved(rules, instance_dir, done):
    """A build that saves a file where each of the rules' tables goes (empty: only their
    presence is read before a Conseil is asked), and says so in BUILT_LOG."""
    for kind in rules.columns:
        cache_path(rules, instance_dir, kind).write_bytes(b"")
    with (Path(instance_dir) / BUILT_LOG).open("a") as log:
        log.write(f"table {rules.preset}\n")
    done.value = 1.0


def spreads_saved(rules, instance_dir, done):
    """The same for the spreads of the rules' table."""
    spreads_path(rules, instance_dir).write_bytes(b"")
    with (Path(instance_dir) / BUILT_LOG).open("a") as log:
        log.write(f"spreads {rules.preset}\n")
    done.value = 1.0
