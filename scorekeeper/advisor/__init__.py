"""The optimal solitaire strategy of the classique and Yatzy sheets, and the advice drawn
from it.

    strategy = load_or_build(rules, instance_dir)   # seconds the first time, then a file
    strategy.advise(state, "66653")                 # [Advice(box, column, expected_total), ...]
    strategy.advise_keeps(state, "52551", 1)        # [KeepAdvice(keep, expected_total), ...]

`tables` answers what needs no table (is this game covered, is this request sound, where is
the file) without importing numpy; `strategy` loads and uses the tables, `solver` builds
them, `builds` keeps a server's tables and builds the missing ones in a worker process.
"""
