"""Reading JSON that came from outside the process (files, messages).

domeng writes JSON with ``allow_nan=False``, so a number that is not finite
(``NaN``, ``Infinity``, or ``1e999``, which Python's reader turns into
``inf``) can only come from an edited or foreign file or message.  Python's
``json.loads`` accepts all of them and the value then breaks a later write
(``json.dumps(..., allow_nan=False)``) or a comparison far from the reader;
:func:`loads` refuses them where the text is read, with a ``ValueError`` that
every reader already turns into its one-line refusal.
"""

from __future__ import annotations

import json
import math
from typing import Any

#: a study's or comparison's manifest larger than this is not one: the one
#: limit of every manifest reader (a sweep's arms are the largest, well under it)
MAX_MANIFEST_BYTES = 1 << 22


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number out of range: {text[:40]}")
    return value


def loads(text: str | bytes) -> Any:
    """``json.loads`` that refuses ``NaN``, ``Infinity`` and numbers beyond
    the range of a float (``ValueError``, a ``json.JSONDecodeError`` for
    malformed text)."""
    return json.loads(text, parse_constant=_constant, parse_float=_finite_float)


__all__ = ["MAX_MANIFEST_BYTES", "loads"]
