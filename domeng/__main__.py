"""``python -m domeng``: the ``domeng`` command (see :mod:`domeng.cli`)."""

import sys

from .cli import main

sys.exit(main())
