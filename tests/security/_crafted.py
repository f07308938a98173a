"""Helpers of the security tests: crafted study folders and a snapshot of
everything outside them (not a test module itself)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from domeng.cli.main import main

MIXED = "random,heavy,keeper,hunter,random"
STUDY = dict(tables=6, rounds=5, players=MIXED, seed=4)


class Stop(Exception):
    """Stands for a crash in the middle of a study."""


def stop_after(k):
    def progress(done, total):
        if done >= k:
            raise Stop

    return progress


def unfinished(folder: Path, **kw) -> Path:
    """A checkpointed study in ``folder`` 'crashed' after 2 of its 6 tables."""
    from domeng.study.simulate import simulate

    args = dict(STUDY, chunk_tables=1, checkpoint=folder, progress=stop_after(2))
    args.update(kw)
    with pytest.raises(Stop):
        simulate(**args)
    return folder


def finished(folder: Path, **kw):
    from domeng.study.simulate import simulate

    return simulate(**dict(STUDY, checkpoint=folder, progress=False, **kw))


def edit_manifest(folder: Path, **changes) -> dict:
    p = folder / "manifest.json"
    m = json.loads(p.read_text())
    m.update(changes)
    p.write_text(json.dumps(m))
    return m


def snapshot(root: Path, skip: Path | None = None) -> dict[str, tuple]:
    """Every path under ``root`` (but not under ``skip``) with its kind and content hash."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        d = Path(dirpath)
        if skip is not None and (d == skip or skip in d.parents):
            dirnames[:] = []
            continue
        for name in dirnames + filenames:
            p = d / name
            if skip is not None and p == skip:
                continue
            if p.is_symlink():
                out[str(p)] = ("link", os.readlink(p))
            elif p.is_file():
                out[str(p)] = ("file", hashlib.sha256(p.read_bytes()).hexdigest())
            else:
                out[str(p)] = ("dir",)
    return out


def cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_line(capsys, argv, expect: str, code: int = 2) -> str:
    got, out, err = cli(capsys, *argv)
    assert got == code, (got, out, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert expect in err, err
    return err
