"""The `scorekeeper` command as it starts (also `python -m scorekeeper`): glibc's malloc
arenas first, then the command line (scorekeeper/cli).

glibc gives each thread that allocates a malloc arena of its own, up to 8 a core, and each
keeps what its threads freed: a family's server runs 36 threads (4 for requests, 32 for the
open sheets' streams), and each connection it held cost three times the memory with the
default arenas (docs/performance.md, "Malloc arenas"). glibc reads MALLOC_ARENA_MAX only as
a process starts: the command starts itself again with two, before importing anything else
(a bare interpreter's start), unless the environment already says how many. The hosting
commands give gunicorn the same number (docs/hosting.md, tests/test_memory.py).
"""

import os
import sys

MALLOC_ARENAS = {"MALLOC_ARENA_MAX": "2"}


def main() -> None:
    if sys.platform == "linux" and not MALLOC_ARENAS.keys() & os.environ.keys():
        # The same process (its pid, its children's parent), started again.
        os.execve(sys.executable, sys.orig_argv, {**os.environ, **MALLOC_ARENAS})
    from scorekeeper.cli import main as command_line

    command_line()


if __name__ == "__main__":
    main()
