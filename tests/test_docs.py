"""The worked examples in the docs run as written."""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


def test_custom_compiled_player_example_runs(capsys):
    blocks = _python_blocks(DOCS / "players.md")
    assert blocks, "docs/players.md has no python example"
    namespace: dict = {}
    exec(compile(blocks[0], "docs/players.md", "exec"), namespace)
    out = capsys.readouterr().out
    assert "doubles_first" in out and "Duplicate tournament" in out
    # the example's player really ran in the batch engine: its seat played
    res = namespace["res"]
    assert res.total_rounds == 200 * 50
    assert res.players[0] == "doubles_first"


# ------------------------------------------------- the docs name what exists
ROOT = DOCS.parent
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def _fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(language, text) of every fenced block, fences paired line by line."""
    out, cur, lang = [], None, ""
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("```"):
            if cur is None:
                cur, lang = [], s[3:].strip()
            else:
                out.append((lang, "\n".join(cur)))
                cur = None
        elif cur is not None:
            cur.append(line)
    return out


def _command_lines(page: Path) -> list[tuple[str, bool]]:
    """Every ``domeng ...`` command the page shows, with whether it is an
    example line of a shell block (line continuations joined, comments
    dropped) rather than inline code (often a fragment)."""
    text = page.read_text()
    cmds = []
    for lang, block in _fenced_blocks(text):
        if lang not in ("", "bash", "sh", "console"):
            continue
        for line in block.replace("\\\n", " ").splitlines():
            m = re.match(r"^\s*(?:[A-Z_]+=\S+\s+)*(domeng\s.*)$", line)
            if m:
                cmds.append((re.split(r"\s+#", m.group(1))[0].strip(), True))
    cmds += [(c, False) for c in re.findall(r"`(domeng [a-z][^`]*)`", text)]
    return cmds


def test_every_module_path_the_docs_name_exists():
    """A path such as ``domeng/core/layout.py`` in README.md or docs/*.md
    names a file of this checkout (the walk4 walk found a dozen left from
    before the package was split into layers)."""
    missing = []
    for page in PAGES:
        for path in re.findall(
            r"\b((?:domeng|tests|benchmarks|analysis)/[\w./-]*\.(?:py|md))\b", page.read_text()
        ):
            if not (ROOT / path).exists():
                missing.append(f"{page.name}: {path}")
    assert not missing, missing


def test_every_command_and_option_the_docs_show_exists():
    """Each ``domeng COMMAND --option`` in the docs is a real command and
    option (synopses included); each complete example line parses."""
    import argparse
    import shlex

    from domeng.cli.main import COMMANDS, build_parser

    parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    bad, checked = [], 0
    for page in PAGES:
        for cmd, example in _command_lines(page):
            words = cmd.split()
            if len(words) < 2 or words[1].startswith("-"):
                continue
            command = words[1]
            if command not in COMMANDS:
                bad.append(f"{page.name}: unknown command in {cmd!r}")
                continue
            known = set(subs[command]._option_string_actions)
            for flag in re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", " ".join(words[2:])):
                if flag not in known:
                    bad.append(f"{page.name}: {command} has no option {flag} ({cmd!r})")
            checked += 1
            if example and not re.search(r"\[|\.\.\.|\||[A-Z]{3,}|<", cmd):  # not a synopsis
                try:
                    parser.parse_args(shlex.split(cmd)[1:])
                except (SystemExit, Exception) as e:
                    bad.append(f"{page.name}: {cmd!r} does not parse: {e}")
    assert checked > 40 and not bad, bad
