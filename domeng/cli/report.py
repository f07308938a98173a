"""``domeng report``: tables, plots and report.html again from a results folder."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from domeng.cli.args import add_option
from domeng.cli.compare import add_plot_options


def add_parser(sub) -> None:
    r = sub.add_parser(
        "report",
        help="render tables, plots and report.html again from a results folder",
        description="Load a results folder written by `domeng simulate --out DIR`, "
        "`domeng compare --out DIR`, `domeng sweep --out DIR`, `domeng tournament "
        "--out DIR` or `domeng ladder --out DIR` (told apart by their files and "
        "schemas) and write its tables, plots and report.html again.",
    )
    r.add_argument("dir", metavar="DIR", help="results folder")
    add_option(r, "--json", help="print only the summary JSON on stdout")
    add_plot_options(r)
    r.set_defaults(func=cmd_report)


def cmd_report(args) -> int:
    from domeng.core.errors import DomengError, ResultsError, ResultsWriteError
    from domeng.infra.fs import FolderLock
    from domeng.results import compare_report as C

    kind = C.folder_kind(args.dir)
    if kind is None:
        raise ResultsError(_not_rendered(args.dir, kind))
    # reads only (every part checked against the folder's manifest); runs nothing named in it
    if kind == "results":
        from domeng.results.results import Results

        obj: Any = Results.load(args.dir)
    elif kind == "tournament":  # a tournament's or a ladder's folder
        from domeng.study.ladder import load_results

        obj = load_results(args.dir)
    else:
        obj = C.load_comparison(args.dir) if kind == "compare" else C.load_sweep(args.dir)
    from domeng.study.checkpoint import finish_prune

    try:
        with FolderLock(args.dir):  # files it does not replace are kept; links are not followed
            if kind == "results":
                from domeng.results.report import render

                finish_prune(args.dir)  # a study killed while it removed its chunk files
                obj.write_files(args.dir)
                report = render(obj, args.dir, args.format, args.dpi)["report"]
            elif kind == "tournament":
                obj.write_files(args.dir, args.format, args.dpi)
                report = Path(args.dir) / "report.html"
            else:
                for k in range(len(obj.arms if kind == "compare" else obj.comparison.arms)):
                    finish_prune(C.arm_folder(args.dir, k))
                write = C.write_comparison if kind == "compare" else C.write_sweep
                report = write(obj, args.dir, args.format, args.dpi) / "report.html"
    except DomengError:
        raise
    except OSError as e:
        raise ResultsWriteError(
            f"cannot write the report into {e.filename or args.dir!r}: {e.strerror or e}"
        ) from None
    if args.json:
        print(obj.to_json())
    else:
        text = obj.to_text()
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        print(f"\nreport: {report}")
    return 0


def _not_rendered(folder: str, kind: str | None) -> str:
    """The one line for a folder ``domeng report`` does not render."""
    from domeng.results.compare_report import KINDS

    d = Path(folder)
    if d.is_symlink() or not d.is_dir():
        return f"no results folder {folder!r}"
    for k, (_, manifest, _) in KINDS.items():
        if (d / manifest).is_file():
            return (
                f"{folder!r} holds an unfinished {k} study: finish it with `domeng {k} "
                f"--resume {folder}`"
            )
    if (d / "manifest.json").is_file():
        return (
            f"{folder!r} holds an unfinished study: finish it with `domeng simulate "
            f"--resume {folder}`"
        )
    return (
        f"{folder!r} is not a domeng results folder that domeng report can render: it "
        "holds no results.npz (simulate), compare.json (compare), sweep.json (sweep) or "
        "per_deal.npz (tournament, ladder)"
    )
