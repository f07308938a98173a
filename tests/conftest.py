"""pytest configuration for the domeng tests.

Hypothesis keeps no example database here (nothing is written outside the
tests), and no test has a per-example deadline: engine speed is measured by
the benchmarks, not by the tests.
"""

import sys
from pathlib import Path

from hypothesis import settings

# the shared helpers (tests/_util.py) import as ``_util`` from every test folder
sys.path.insert(0, str(Path(__file__).resolve().parent))

settings.register_profile("domeng", database=None, deadline=None)
settings.load_profile("domeng")
