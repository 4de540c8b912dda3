"""The Conseil for every game the app can start: exact tables of each column kind, and the
advice drawn from them (docs/advisor.md says how exact it is for each rule set).

    strategy = load_or_build(rules, instance_dir)   # seconds the first time, then a file
    strategy.advise(state, "66653")                 # [Advice(box, column, expected_total, points)]
    strategy.advise_keeps(state, "52551", 1)        # [KeepAdvice(keep, expected_total, positions)]

`tables` answers what needs no table (how exact the advice is, is this request sound, where
are the files) without importing numpy; `strategy` loads and uses the tables, `solver` builds
them, `builds` keeps a server's tables and builds the missing ones in a worker process.
"""
