"""pytest configuration for the domeng tests.

Hypothesis keeps no example database here (nothing is written outside the
tests), and no test has a per-example deadline: engine speed is measured by
the benchmarks, not by the tests.
"""

import signal
import sys
from pathlib import Path

from hypothesis import settings

# Under pytest-xdist (``make test`` runs ``-n 2``) the workers share the
# package's numba cache: domeng saves a specialisation under a lock
# (domeng.core.numba_cache), so two processes compiling different
# specialisations of one function at once cannot mix up its index.

# the shared helpers (tests/_util.py) import as ``_util`` from every test folder
sys.path.insert(0, str(Path(__file__).resolve().parent))

# A shell without job control starts background commands (``make test &``)
# with SIGINT ignored, and Python then installs no KeyboardInterrupt handler,
# in this process and in every child: the Ctrl-C tests would wait in vain.
# A handler set here is reset to the default in children at exec.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

settings.register_profile("domeng", database=None, deadline=None)
settings.load_profile("domeng")
