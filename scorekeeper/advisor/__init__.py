"""The optimal solitaire strategy of the classique and Yatzy sheets, and the advice drawn
from it.

    strategy = load_or_build(rules, instance_dir)   # about 20 s the first time, then a file
    strategy.advise(state, "66653")                 # [Advice(box, column, expected_total), ...]
    strategy.advise_keeps(state, "52551", 1)        # [KeepAdvice(keep, expected_total), ...]
"""

from scorekeeper.advisor.strategy import (
    Advice,
    KeepAdvice,
    Strategy,
    cache_path,
    check_covered,
    check_request,
    is_covered,
    load,
    load_or_build,
)

__all__ = [
    "Advice", "KeepAdvice", "Strategy", "cache_path", "check_covered", "check_request",
    "is_covered", "load", "load_or_build",
]
