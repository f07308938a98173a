"""The pieces every HTML report shares: a page that fits a 1280-px and a
390-px window, a table of contents, real tables, the glossary of the
fourteen terms (from :data:`domeng.core.ruletext.TERMS`, the one source),
every rule value, the command that reproduces the study, and the versions
of domeng, Python, numba, numpy and pandas."""

from __future__ import annotations

import base64
import html
import platform
import re
import shlex
import sys
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pandas loads only where a table is made (a study starts without it)
    import pandas as pd

from domeng.core.rules import Rules

esc = html.escape

CSS = """
*, *::before, *::after { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 1180px;
       margin: 1.5em auto; padding: 0 12px; color: #222; line-height: 1.45;
       overflow-wrap: anywhere; }
table.df { overflow-wrap: normal; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.8em; border-bottom: 1px solid #ddd; }
h3 { font-size: 1.05em; }
nav.toc { background: #f5f7fa; padding: 0.6em 1em; border-radius: 6px; }
nav.toc ol { margin: 0.2em 0; padding-left: 1.4em; }
.scroll { overflow-x: auto; max-width: 100%; }
table.df { border-collapse: collapse; font-size: 0.85em; margin: 0.4em 0 1em; }
table.df th, table.df td { border: 1px solid #ccc; padding: 2px 8px; text-align: right;
                           white-space: nowrap; }
table.df th { background: #f0f3f7; text-align: left; } table.df td.l { text-align: left; }
table.df.kv th { font-weight: normal; }
table.df.wrap td { white-space: normal; min-width: 6em; }
figure { margin: 1em 0; } figcaption { font-size: 0.85em; color: #555; }
img { max-width: 100%; height: auto; }
code, pre { font-size: 0.85em; } pre { background: #f7f7f7; padding: 0.6em; overflow-x: auto;
                                        white-space: pre-wrap; word-break: break-all; }
dl.glossary dt { font-weight: bold; margin-top: 0.3em; } dl.glossary dd { margin-left: 1.2em; }
.note { background: #fff8e6; border-left: 4px solid #e0a800; padding: 0.5em 0.8em; }
"""


def versions() -> dict[str, str]:
    """Versions of domeng, Python, numba, numpy and pandas."""
    from domeng.results.meta import package_version

    out = {"domeng": package_version(), "Python": platform.python_version()}
    for mod in ("numba", "numpy", "pandas"):
        try:
            out[mod] = __import__(mod).__version__
        except Exception:  # pragma: no cover - all are dependencies
            out[mod] = "not installed"
    return out


def command_line(argv: list[str] | None = None) -> str:
    """The ``domeng`` command being run, quoted for a shell."""
    argv = sys.argv[1:] if argv is None else argv
    return "domeng " + " ".join(shlex.quote(a) for a in argv)


def simulate_command(meta: dict) -> str:
    """A ``domeng simulate`` command that reproduces a study from its metadata."""
    args = [
        "simulate",
        "--tables",
        str(meta["tables"]),
        "--rounds",
        str(meta["rounds"]),
        "--players",
        ",".join(meta["players"]),
        "--seed",
        str(meta["seed"]),
    ]
    for k, v in Rules.from_mapping(meta["rules"]).changed().items():
        args += ["--rule", f"{k}={value_text(v)}"]
    return command_line(args)


def anchor(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


class Page:
    """An HTML report assembled section by section (each one in the TOC)."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.sections: list[tuple[str, str]] = []
        self.intro: list[str] = []

    def add(self, title: str, body: str) -> None:
        self.sections.append((title, body))

    def render(self) -> str:
        toc = "".join(f"<li><a href='#{anchor(t)}'>{esc(t)}</a></li>" for t, _ in self.sections)
        parts = [
            "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
            "<meta name='viewport' content='width=device-width, initial-scale=1'>",
            f"<title>{esc(self.title)}</title><style>{CSS}</style></head><body>",
            f"<h1>{esc(self.title)}</h1>",
            *self.intro,
            f"<nav class='toc'><b>Contents</b><ol>{toc}</ol></nav>",
        ]
        for t, body in self.sections:
            parts.append(f"<section id='{anchor(t)}'><h2>{esc(t)}</h2>{body}</section>")
        parts.append("</body></html>")
        return "\n".join(parts)


def _cell(v, digits: int) -> tuple[str, bool]:
    """(text, is_number) of one cell."""
    if isinstance(v, (bool, np.bool_)):
        return str(v).lower(), False
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}", True
    if isinstance(v, (float, np.floating)):
        return ("" if not np.isfinite(v) else f"{float(v):.{digits}f}"), True
    return str(v), False


def table(df: pd.DataFrame, digits: int = 4, index: bool = False, wrap: bool = False) -> str:
    """A DataFrame as a real HTML table (numbers right-aligned, text left)
    in a box that scrolls sideways when the window is narrower than the table."""
    if index:
        df = df.reset_index()
    head = "".join(f"<th>{esc(str(c))}</th>" for c in df.columns)
    rows = []
    for rec in df.itertuples(index=False):
        cells = []
        for v in rec:
            text, number = _cell(v, digits)
            cells.append(f"<td>{esc(text)}</td>" if number else f"<td class='l'>{esc(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    cls = "df wrap" if wrap else "df"
    return (
        f"<div class='scroll'><table class='{cls}'><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def kv_table(rows: list[tuple[str, str]]) -> str:
    """Name-value rows as a table without a header row (each name heads its
    row: a header of two empty cells showed as a blank bar on top)."""
    body = "".join(
        f"<tr><th scope='row'>{esc(str(k))}</th><td class='l'>{esc(str(v))}</td></tr>"
        for k, v in rows
    )
    return f"<div class='scroll'><table class='df wrap kv'><tbody>{body}</tbody></table></div>"


def figure(name: str, png: bytes, caption: str) -> str:
    b64 = base64.b64encode(png).decode("ascii")
    return (
        f"<figure><img alt='{esc(caption or name)}' src='data:image/png;base64,{b64}'>"
        f"<figcaption>{esc(caption)}</figcaption></figure>"
    )


def glossary() -> str:
    """The fourteen terms of the rule card (``domeng rules``, ``docs/rules.md``)."""
    from domeng.core.ruletext import TERMS

    items = "".join(f"<dt>{esc(t)}</dt><dd>{esc(m)}</dd>" for t, m in TERMS)
    return (
        f"<dl class='glossary'>{items}</dl><p>The full rules, decisions D1..D17 and options: "
        "<code>domeng rules</code> and <code>docs/rules.md</code>.</p>"
    )


def rules_table(rules: dict, others: dict[str, dict] | None = None) -> str:
    """Every rule value (one column per arm when ``others`` is given)."""
    import pandas as pd

    from domeng.core.ruletext import option_docs

    docs = option_docs()
    cols = {"option": list(rules)}
    if others:
        for name, r in others.items():
            cols[name] = [value_text(r.get(k)) for k in rules]
    else:
        cols["value"] = [value_text(v) for v in rules.values()]
    cols["meaning"] = [docs.get(k, "") for k in rules]
    return table(pd.DataFrame(cols), wrap=True)


def value_text(v) -> str:
    """A rule value as it is written on the command line (``true``, ``4``)."""
    return str(v).lower() if isinstance(v, bool) else str(v)


def reproduce(command: str) -> str:
    return (
        f"<p>Command:</p><pre>{esc(command)}</pre>"
        "<p>Versions (the same versions and seed give the same numbers on any number of "
        "cores or machines):</p>" + kv_table(list(versions().items()))
    )
