"""A Griffe extension for the documentation site (mkdocs.yml): the docstrings
are written with Sphinx's roles (``:func:`~domeng.simulate```), which Markdown
would show as typed; this turns each into inline code of the name as Sphinx
shows it (the last part after ``~``, the whole name otherwise), and shows each
doctest (``>>>`` lines and their output) as a code block."""

from __future__ import annotations

import re

import griffe

_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|data|attr|exc|obj|const):`(~?)([^`]+)`")


def _shown(match: re.Match) -> str:
    tilde, target = match.groups()
    name = target.rsplit(".", 1)[-1] if tilde else target
    return f"`{name}`"


def plain_roles(text: str) -> str:
    """``:class:`~a.b.C``` -> ```C```; ``:mod:`a.b``` -> ```a.b```; also RST's
    double backquotes -> Markdown's single ones."""
    text = _ROLE.sub(_shown, text)
    return re.sub(r"``([^`]+)``", r"`\1`", text)


def fenced_doctests(text: str) -> str:
    """Each run of ``>>>`` lines and the output after them (up to a blank
    line) inside a fenced ``pycon`` block, its indentation removed."""
    out: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.lstrip().startswith(">>>"):
            out.append(line)
            i += 1
            continue
        cut = len(line) - len(line.lstrip())  # an indented example is no code block
        out.append("```pycon")
        while i < len(lines) and lines[i].strip():
            out.append(lines[i][cut:])
            i += 1
        out.append("```")
    return "\n".join(out)


class SphinxRoles(griffe.Extension):
    """Rewrites every docstring as it is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fenced_doctests(plain_roles(obj.docstring.value))
