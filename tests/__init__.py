"""The score keeper's tests.

numpy's OpenBLAS runs a matrix product on a thread per core, which spin a while after it.
The test processes, one more than the cores, keep every core busy already: those threads
only took CPU from the other tests (the brute-force end games took 36 s of CPU for 25 s of
one core's time, 26 s on one thread). One thread each, set here, before any test module
imports numpy; the processes the tests start inherit it.
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
