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
