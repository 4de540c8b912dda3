"""`python -m tests.test_layers [PACKAGE_FOLDER]`: the floors of the package, highest first,
then every import up them (tests/support/layers.py). The test that fails on such an import is
tests/policy/test_layers.py; this module holds none, and stays here for the command's name."""

import sys
from pathlib import Path

from tests.support.layers import PACKAGE, main

if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else PACKAGE))
