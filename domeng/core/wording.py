"""English counts for every text the package writes: ``1 stone``, ``2 stones``."""

from __future__ import annotations


def counted(n: int, word: str, spec: str = "") -> str:
    """``n word`` with the plural ``words`` unless ``n`` is 1 (``spec``: the number's format)."""
    return f"{format(n, spec)} {word}{'' if n == 1 else 's'}"


def counted_x(*counts: tuple[int, str]) -> str:
    """Counts multiplied out, each with its plural where it is not 1:
    ``counted_x((1, "table"), (500, "round"))`` is ``1 table x 500 rounds``."""
    return " x ".join(counted(n, word, ",") for n, word in counts)
