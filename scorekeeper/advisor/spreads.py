"""The spreads of a solitaire table: the central moments of the points still to come under
the solitaire strategy, from every state of the free column, which the chances to win use
for a sheet too far from its end for its whole distribution (docs/advisor-winning.md).
Built once per rule set in a worker process, saved beside the table.
"""

import os
from collections.abc import Callable, Iterable
from math import comb

import numpy as np

from scorekeeper.advisor.futures import CHUNK, SheetModel, places, sheet_index
from scorekeeper.advisor.strategy import save_array
from scorekeeper.advisor.tables import spreads_path
from scorekeeper.rules.rule_set import Rules

# The moments of the points to come the spreads hold, from the second.
MOMENTS = (2, 3, 4)


def build_spreads(
    rules: Rules,
    values: np.ndarray,
    filled: Iterable[str] = (),
    progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """The second, third and fourth central moments of the points still to come under the
    solitaire strategy, ``spreads[moment - 2, place]`` for every place of the free column's
    table (NaN where the table is): with the table's mean, the shape of the law the chances
    to win use for a sheet too far from its end for its whole distribution.

    Solved backward like the table: a state's raw moments are its turn's outcomes', each
    the points ``g`` of the turn and the rest ``R`` after it: E[(g + R)^n] expanded.
    ``filled`` and ``progress(done, total)`` as in ``build_table``.
    """
    model = SheetModel(rules, values, [0] * len(rules.boxes))
    index = model.index
    raw = np.full((len(MOMENTS), len(values)), np.nan)
    raw[:, index.place(index.solved_states([index.full]))] = 0.0
    base = index.mask(filled)
    masks = np.nonzero(index.in_play)[0]
    masks = masks[masks & base == base]
    counts = np.array([int(mask).bit_count() for mask in masks])
    total, done = index.count_states(masks[counts < len(index.boxes)]), 0
    for count in range(len(index.boxes) - 1, -1, -1):
        batch = index.solved_states(masks[counts == count])
        for start in range(0, len(batch.mask), CHUNK):
            part = batch.take(slice(start, start + CHUNK))
            outcomes = model.outcomes(part.mask, part.yams50, part.upper)
            # The table's own turn: a Generala servida is its 50 and the game going on.
            turn = outcomes.solitaire_turn(instant=False)
            final = turn.final_rolls
            gain, after = turn.picked(outcomes.gain), turn.picked(outcomes.after)
            # rest[n] = E[R^n] of the state after; E[(g + R)^n] = sum C(n, k) g^(n-k) E[R^k].
            rest = [np.ones_like(gain), values[after]] + [moment[after] for moment in raw]
            states = index.place(part)
            for moment, target in zip(MOMENTS, raw, strict=True):
                expanded = sum(
                    comb(moment, k) * gain ** (moment - k) * rest[k] for k in range(moment + 1)
                )
                target[states] = (final * expanded).sum(axis=0)
            done += len(part.mask)
            if progress is not None:
                progress(done, total)
    mean = values
    second, third, fourth = raw
    return np.stack(
        [
            second - mean**2,
            third - 3 * mean * second + 2 * mean**3,
            fourth - 4 * mean * third + 6 * mean**2 * second - 3 * mean**4,
        ]
    )


def load_spreads(
    rules: Rules, values: np.ndarray, instance_dir: str | os.PathLike
) -> np.ndarray | None:
    """The cached spreads of a table, or None when missing or damaged (mapped from the
    file, as the table)."""
    try:
        spreads = np.asarray(
            np.load(spreads_path(rules, instance_dir), mmap_mode="r", allow_pickle=False)
        )
    except (OSError, ValueError, EOFError):
        return None
    start = int(places(sheet_index(rules), np.array([0]), np.array([0]), np.array([0]))[0])
    if spreads.shape != (len(MOMENTS), len(values)) or np.isnan(spreads[0, start]):
        return None
    return spreads


def load_or_build_spreads(
    rules: Rules,
    values: np.ndarray,
    instance_dir: str | os.PathLike,
    progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """The cached spreads of a table, built and saved first if needed (tens of seconds of
    one core: as the table, a build for a worker process, never for a request)."""
    spreads = load_spreads(rules, values, instance_dir)
    if spreads is not None:
        return spreads
    spreads = build_spreads(rules, values, progress=progress)
    save_array(spreads, spreads_path(rules, instance_dir))
    return spreads
