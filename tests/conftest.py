"""pytest configuration for the domeng tests.

Hypothesis keeps no example database here (nothing is written outside the
tests), and no test has a per-example deadline: engine speed is measured by
the benchmarks, not by the tests.
"""

from hypothesis import settings

settings.register_profile("domeng", database=None, deadline=None)
settings.load_profile("domeng")
