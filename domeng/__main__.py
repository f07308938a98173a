"""``python -m domeng``: the ``domeng`` command (see :mod:`domeng.cli.main`)."""

import sys

from domeng.cli.main import main

sys.exit(main())
