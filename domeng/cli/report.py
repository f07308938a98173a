"""``domeng report``: tables, plots and report.html again from a results folder."""

from __future__ import annotations

import sys


def add_parser(sub) -> None:
    r = sub.add_parser("report", help="render tables, plots and report.html again from a results folder",
                       description="Load a results folder written by `domeng simulate --out DIR` and "
                                   "write its tables, plots and report.html again.")
    r.add_argument("dir", metavar="DIR", help="results folder")
    r.add_argument("--json", action="store_true", help="print only the summary JSON on stdout")
    r.set_defaults(func=cmd_report)


def cmd_report(args) -> int:
    from domeng.core.errors import DomengError, ResultsWriteError
    from domeng.infra.fs import FolderLock
    from domeng.results.report import render
    from domeng.results.results import Results

    res = Results.load(args.dir)  # reads only; runs nothing named in the folder
    try:
        with FolderLock(args.dir):  # files it does not replace are kept; links are not followed
            res.write_files(args.dir)
            paths = render(res, args.dir)
    except DomengError:
        raise
    except OSError as e:
        raise ResultsWriteError(f"cannot write the report into {args.dir!r}: "
                                f"{e.strerror or e}") from None
    if args.json:
        print(res.to_json())
    else:
        sys.stdout.write(res.to_text())
        print(f"\nreport: {paths['report']}")
    return 0
