"""The optimal solitaire strategy of the classique and Yatzy sheets, and the advice drawn
from it.

    strategy = load_or_build(rules, instance_dir)   # about 15 s the first time, then a file
    strategy.advise(state, "66653")                 # [Advice(box, column, expected_total), ...]
"""

from scorekeeper.advisor.strategy import (
    Advice,
    Strategy,
    cache_path,
    check_covered,
    check_request,
    is_covered,
    load,
    load_or_build,
)

__all__ = [
    "Advice", "Strategy", "cache_path", "check_covered", "check_request", "is_covered", "load",
    "load_or_build",
]
