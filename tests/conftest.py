"""pytest configuration for the domeng tests.

Hypothesis keeps no example database here (nothing is written outside the
tests), and no test has a per-example deadline: engine speed is measured by
the benchmarks, not by the tests.
"""

import os
import signal
import sys
from pathlib import Path

from hypothesis import settings

_ROOT = Path(__file__).resolve().parent.parent

# Under pytest-xdist (``make test`` runs ``-n 2``) every worker keeps its own
# numba cache: numba's on-disk cache is safe for processes compiling the same
# function with the same types, not for two processes adding *different*
# specialisations of one function at once (both can claim the same data file
# in its index).  The folder is keyed by the hash of the compiled sources
# (domeng.core.numba_cache, which imports no numba), so an edit never meets
# stale machine code; subprocesses started by a test inherit the folder.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER")
if _WORKER and "NUMBA_CACHE_DIR" not in os.environ:
    from domeng.core.numba_cache import _source_hash

    os.environ["NUMBA_CACHE_DIR"] = str(_ROOT / "build" / "numba-test-cache"
                                        / _source_hash() / _WORKER)
    if "numba" in sys.modules:  # pragma: no cover - a plugin imported numba first
        sys.modules["numba"].config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]

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
