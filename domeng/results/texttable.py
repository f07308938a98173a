"""Plain-text rendering of a study summary (the stdout of ``domeng simulate``),
and the same estimates in the small HTML table Jupyter shows for a Results."""

from __future__ import annotations

from domeng.core.layout import KIND_NAMES, REASON_NAMES
from domeng.core.wording import counted, counted_x


def _bound(x: float, digits: int) -> str:
    """A bound to ``digits`` decimals, or to two significant digits where those
    decimals would show a nonzero bound as 0."""
    text = f"{x:.{digits}f}"
    return f"{x:.2g}" if x != 0 and float(text) == 0 else text


def _known(x) -> bool:
    """A bound that is there (not None, not NaN: an SE undefined with one unit)."""
    return x is not None and x == x


def _has_interval(est: dict | None) -> bool:
    """The estimate has a value and both bounds."""
    if not est:
        return False
    return all(_known(est.get(k)) for k in ("value", "ci_low", "ci_high"))


def _symmetric(est: dict, digits: int) -> bool:
    """The interval is ``value -/+ h`` to the digits shown, with ``h`` not 0."""
    v, lo, hi = est["value"], est["ci_low"], est["ci_high"]
    down, up = f"{v - lo:.{digits}f}", f"{hi - v:.{digits}f}"
    return down == up and float(up) != 0


def cell(est: dict | None, digits: int = 4, brackets: bool = True, signed: bool = False) -> str:
    """An estimate ``{"value", "ci_low", "ci_high"}`` as ``value [low, high]``
    (or ``value ± half-width`` with ``brackets=False``, for a column whose
    intervals are all symmetric: :func:`column`); ``-`` for none.
    ``signed``: a difference, its value written with its sign (``+0.0030``)."""
    if not est or est.get("value") is None:
        return "-"
    v = est["value"]
    val = f"{v:+.{digits}f}" if signed else f"{v:.{digits}f}"
    if not _has_interval(est):  # no interval (one unit: no SE): the value alone
        return val
    if not brackets:
        return f"{val} ± {est['ci_high'] - v:.{digits}f}"
    return f"{val} [{_bound(est['ci_low'], digits)}, {_bound(est['ci_high'], digits)}]"


def column(ests: list, digits: int = 4, signed: bool = False) -> list[str]:
    """One format per column: ``value ± h`` where every interval in it is
    symmetric to the digits shown (never ``± 0`` for a wider interval),
    ``value [low, high]`` otherwise; ``signed``: differences (:func:`cell`)."""
    full = [e for e in ests if _has_interval(e)]
    brackets = not full or not all(_symmetric(e, digits) for e in full)
    return [cell(e, digits, brackets, signed) for e in ests]


def _block(items: list[tuple]) -> list[str]:
    """Lines ``label  value``, the values one column in one style
    (:func:`column`: ``± h`` only where every interval of it is symmetric);
    a value that is text (a count) is printed as it is."""
    ests = [(e, d) for _, e, d in items if isinstance(e, dict) or e is None]
    full = [(e, d) for e, d in ests if e is not None and _has_interval(e)]
    brackets = not full or not all(_symmetric(e, d) for e, d in full)
    return [
        f"  {label:<36}{e if isinstance(e, str) else cell(e, d, brackets)}" for label, e, d in items
    ]


def pm(est: dict | None, digits: int = 4) -> str:
    """One estimate alone (a column of one): :func:`column`."""
    return column([est], digits)[0]


share = pm


def _E(est: dict | None, digits: int = 4) -> tuple:
    """A table cell holding an estimate (formatted with its column: :func:`column`)."""
    return (est, digits)


def _table(header: list[str], rows: list[list], indent: str = "  ", left: int = 2) -> list[str]:
    """The lines of a text table whose every column is as wide as its widest
    cell (any name fits); the first ``left`` columns are aligned left, the
    others right; a cell :func:`_E` is an estimate, formatted with its
    column (:func:`column`)."""
    rows = [list(r) for r in rows]
    for j in range(len(header)):
        ests = [r[j] for r in rows if isinstance(r[j], tuple)]
        if ests:
            texts = iter(column([e for e, _ in ests], ests[0][1]))
            for r in rows:
                if isinstance(r[j], tuple):
                    r[j] = next(texts)
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]

    def line(cells):
        return (
            indent
            + "  ".join(
                str(c).ljust(w) if i < left else str(c).rjust(w)
                for i, (c, w) in enumerate(zip(cells, widths))
            ).rstrip()
        )

    out = [line(header), (indent + "  ".join("-" * w for w in widths)).rstrip()]
    out += [line(r) for r in rows]
    return out


def _rules_text(rules: dict) -> str:
    from domeng.core.rules import Rules

    try:
        return str(Rules.from_mapping(rules))
    except Exception:
        return ", ".join(f"{k}={v}" for k, v in rules.items())


def format_summary(s: dict) -> str:
    """A readable multi-section table of a :meth:`Results.summary` dict."""
    players = s["players"]
    lines = [
        f"Domeng study: {counted_x((s['tables'], 'table'), (s['rounds'], 'round'))} = "
        f"{counted(s['total_rounds'], 'round', ',')}, seed {s['seed']}",
        "players: " + ", ".join(f"seat {i} {p}" for i, p in enumerate(players)),
        f"rules:   {_rules_text(s['rules'])}",
        "values:  estimate with its 95% interval: ± half-width where it is symmetric, "
        "[low, high] where not (t with "
        f"{s['groups'] - 1} degrees of freedom across {counted(s['groups'], 'group')} of "
        "tables; Wilson for shares; [0, rule of three] for no events)",
        "",
        "How rounds end (share of rounds)",
    ]
    lines += _table(["kind", "", "share"], [[k, "", _E(s["end_kind"][k])] for k in KIND_NAMES])

    for part in (_seat_lines, _player_lines, _stone_lines, _round_lines):
        lines += part(s, players)
    if s.get("stopping"):
        from domeng.results.sequential import stopping_text

        lines += ["", stopping_text(s["stopping"])]
    return "\n".join(lines) + "\n"


def _seat_lines(s: dict, players: list) -> list[str]:
    """The summary's table per seat."""
    lines = ["", "Per seat"]
    rows = []
    for i, p in enumerate(players):
        k = str(i)
        ps = s["passes_by_seat"][k]
        rows.append(
            [
                k,
                p,
                _E(s["win_rate_by_seat"][k]),
                _E(s["start_share_by_seat"][k], 3),
                _E(ps["passes_per_round"], 3),
                _E(ps["passebunge_per_round"], 3),
                _E(s["camat_per_1000_rounds"]["by_seat"][k], 2),
                _E(s["stones_per_round"]["from_seat"][k], 3),
                _E(s["stones_per_round"]["to_seat"][k], 3),
            ]
        )
    lines += _table(
        [
            "seat",
            "player",
            "win rate",
            "starts",
            "PASS/round",
            "PASSEBUNGE/round",
            "CAMAT/1000",
            "stones given/rd",
            "stones got/rd",
        ],
        rows,
    )
    return lines


def _player_lines(s: dict, players: list) -> list[str]:
    """The summary's table per player."""
    lines = ["", "Per player (per seat it occupies)"]
    rows = []
    for p in dict.fromkeys(players):
        ps = s["passes_by_player"][p]
        rows.append(
            [
                p,
                str(players.count(p)),
                _E(s["win_rate_by_player"][p]),
                _E(ps["passes_per_round"], 3),
                _E(ps["passebunge_per_round"], 3),
                _E(s["camat_per_1000_rounds"]["by_player"][p], 2),
                _E(s["stones_per_round"]["from_player"][p], 3),
                _E(s["stones_per_round"]["to_player"][p], 3),
            ]
        )
    lines += _table(
        [
            "player",
            "seats",
            "win rate",
            "PASS/round",
            "PASSEBUNGE/round",
            "CAMAT/1000",
            "stones given/rd",
            "stones got/rd",
        ],
        rows,
    )
    return lines


def _stone_lines(s: dict, players: list) -> list[str]:
    """Win rates by offset from the starter and the stones moved."""
    lines = ["", "Win rate by seat offset from the round's starter (0 = starter)"]
    lines += _table(
        ["offset", "", "win rate"],
        [[str(o), "", _E(s["win_rate_by_starter_offset"][str(o)])] for o in range(5)],
    )

    st = s["stones_per_round"]
    lines += ["", "Stones per round (by reason: from the table / from players)"]
    rows = [
        [
            r,
            "",
            _E(st["by_reason"][r], 3),
            _E(st["by_reason_from_table"][r], 3),
            _E(st["by_reason_from_players"][r], 3),
            _E(st["unpaid"]["by_reason"][r], 3),
        ]
        for r in REASON_NAMES
    ]
    rows.append(
        [
            "all",
            "",
            _E(st["total"], 3),
            _E(st["from_table"], 3),
            _E(st["from_players"], 3),
            _E(st["unpaid"]["total"], 3),
        ]
    )
    lines += _table(["reason", "", "moved", "from table", "from players", "unpaid (D7)"], rows)
    return lines


def _round_lines(s: dict, players: list) -> list[str]:
    """The summary's figures per round and of CAMAT."""
    rb = s["rounds_between_camats"]
    lines = ["", "Per round"]
    lines += _block(
        [
            ("passes (PASS incl. PASSEBUNGE)", s["passes_per_round"], 3),
            ("rounds with a pass", s["pass_round_share"], 3),
            ("PASSEBUNGE", s["passebunge_per_round"], 3),
            ("rounds with a PASSEBUNGE", s["passebunge_round_share"], 3),
            ("tiles played", s["tiles_per_round"], 3),
            ("turns", s["turns_per_round"], 3),
        ]
    )
    lines += ["", "CAMAT"]
    lines += _block(
        [
            ("per 1000 rounds", s["camat_per_1000_rounds"]["total"], 2),
            ("CAMATs", f"{rb['camats']:,}", 0),
            ("mean rounds between CAMATs", rb["mean"], 2),
            ("tables without a CAMAT at the end", s["final_state"]["no_camat_share"], 3),
        ]
    )
    return lines


def results_html(res) -> str:
    """The key figures of a :class:`~domeng.results.results.Results` as an
    HTML table (what Jupyter shows for it): ``value ± h`` where the 95%
    interval is symmetric to the digits shown, ``value [low, high]`` where not."""
    from html import escape as esc

    s = res.summary()
    rows = [
        ("tables x rounds", f"{res.tables:,} x {res.rounds:,}"),
        ("seed", res.seed),
        ("players", ", ".join(res.players)),
        ("rules", str(res.rules)),
    ]
    ests = [(f"end kind {k}", v) for k, v in s["end_kind"].items()]
    ests += [
        ("PASSEBUNGE per round", s["passebunge_per_round"]),
        ("stones per round", s["stones_per_round"]["total"]),
        ("CAMAT per 1000 rounds", s["camat_per_1000_rounds"]["total"]),
    ]
    ests += [
        (f"win rate, starter offset {k}", v) for k, v in s["win_rate_by_starter_offset"].items()
    ]
    # one column, one style (:func:`column`)
    rows += list(zip([k for k, _ in ests], column([v for _, v in ests])))
    body = "".join(
        f"<tr><th style='text-align:left'>{esc(str(k))}</th>"
        f"<td style='text-align:left'>{esc(str(v))}</td></tr>"
        for k, v in rows
    )
    return f"<table><caption>domeng Results (95% intervals)</caption>{body}</table>"


def study_repr(obj: object, kind: str, design: str, players: list[str], rules: str, seed) -> str:
    """The one-line ``repr`` of a study's result: its class, kind, design,
    players, rules and seed, e.g. ``Results(simulate: 2 tables x 2 rounds;
    players random,heavy,keeper,hunter,random; default rules; seed 0)``."""
    return (
        f"{type(obj).__name__}({kind}: {design}; players {','.join(players)}; {rules}; seed {seed})"
    )


#: the names other layers use (a text table; an estimate cell of it)
text_table, estimate_cell = _table, _E
