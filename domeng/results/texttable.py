"""Plain-text rendering of a study summary (the stdout of ``domeng simulate``)."""

from __future__ import annotations

from domeng.core.layout import KIND_NAMES, REASON_NAMES
from domeng.core.wording import counted, counted_x
from domeng.results.stats import Z95, wilson


def pm(est: dict | None, digits: int = 4) -> str:
    """``value ± 95% half-width`` of an estimate ``{"value", "se"}``."""
    if not est or est.get("value") is None:
        return "-"
    v, se = est["value"], est.get("se")
    if se is None:
        return f"{v:.{digits}f}"
    return f"{v:.{digits}f} ± {Z95 * se:.{digits}f}"


def share(est: dict | None, digits: int = 4) -> str:
    """A share with its 95% Wilson interval, ``value [low, high]`` (never
    outside [0, 1]); ``value ± half-width`` when that interval is symmetric
    to the digits shown."""
    if not est or est.get("value") is None or est.get("se") is None:
        return pm(est, digits)
    v, se = est["value"], est["se"]
    lo, hi = (float(a) for a in wilson(v, se))
    text = pm(est, digits)
    if (
        f"{v - Z95 * se:.{digits}f}" == f"{lo:.{digits}f}"
        and f"{v + Z95 * se:.{digits}f}" == f"{hi:.{digits}f}"
    ):
        return text
    return f"{v:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def _table(header: list[str], rows: list[list[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]

    def line(cells):
        return (
            indent
            + "  ".join(
                str(c).ljust(w) if i < 2 else str(c).rjust(w)
                for i, (c, w) in enumerate(zip(cells, widths))
            ).rstrip()
        )

    out = [line(header), indent + "  ".join("-" * w for w in widths)]
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
        "values:  estimate ± 95% confidence half-width (1.96 SE across "
        f"{counted(s['groups'], 'group')} of tables); shares: [Wilson 95% interval] where it "
        "differs",
        "",
        "How rounds end (share of rounds)",
    ]
    lines += _table(["kind", "", "share"], [[k, "", share(s["end_kind"][k])] for k in KIND_NAMES])

    lines += ["", "Per seat"]
    rows = []
    for i, p in enumerate(players):
        k = str(i)
        ps = s["passes_by_seat"][k]
        rows.append(
            [
                k,
                p,
                share(s["win_rate_by_seat"][k]),
                share(s["start_share_by_seat"][k], 3),
                pm(ps["passes_per_round"], 3),
                pm(ps["passebunge_per_round"], 3),
                pm(s["camat_per_1000_rounds"]["by_seat"][k], 2),
                pm(s["stones_per_round"]["from_seat"][k], 3),
                pm(s["stones_per_round"]["to_seat"][k], 3),
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

    lines += ["", "Per player (per seat it occupies)"]
    rows = []
    for p in dict.fromkeys(players):
        ps = s["passes_by_player"][p]
        rows.append(
            [
                p,
                str(players.count(p)),
                share(s["win_rate_by_player"][p]),
                pm(ps["passes_per_round"], 3),
                pm(ps["passebunge_per_round"], 3),
                pm(s["camat_per_1000_rounds"]["by_player"][p], 2),
                pm(s["stones_per_round"]["from_player"][p], 3),
                pm(s["stones_per_round"]["to_player"][p], 3),
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

    lines += ["", "Win rate by seat offset from the round's starter (0 = starter)"]
    lines += _table(
        ["offset", "", "win rate"],
        [[str(o), "", share(s["win_rate_by_starter_offset"][str(o)])] for o in range(5)],
    )

    st = s["stones_per_round"]
    lines += ["", "Stones per round (by reason: from the table / from players)"]
    rows = [
        [
            r,
            "",
            pm(st["by_reason"][r], 3),
            pm(st["by_reason_from_table"][r], 3),
            pm(st["by_reason_from_players"][r], 3),
            pm(st["unpaid"]["by_reason"][r], 3),
        ]
        for r in REASON_NAMES
    ]
    rows.append(
        [
            "all",
            "",
            pm(st["total"], 3),
            pm(st["from_table"], 3),
            pm(st["from_players"], 3),
            pm(st["unpaid"]["total"], 3),
        ]
    )
    lines += _table(["reason", "", "moved", "from table", "from players", "unpaid (D7)"], rows)

    rb = s["rounds_between_camats"]
    lines += [
        "",
        "Per round",
        f"  passes (PASS incl. PASSEBUNGE)      {pm(s['passes_per_round'], 3)}",
        f"  rounds with a pass                  {share(s['pass_round_share'], 3)}",
        f"  PASSEBUNGE                          {pm(s['passebunge_per_round'], 3)}",
        f"  rounds with a PASSEBUNGE            {share(s['passebunge_round_share'], 3)}",
        f"  tiles played                        {pm(s['tiles_per_round'], 3)}",
        f"  turns                               {pm(s['turns_per_round'], 3)}",
        "",
        "CAMAT",
        f"  per 1000 rounds                     {pm(s['camat_per_1000_rounds']['total'], 2)}",
        f"  CAMATs                              {rb['camats']:,}",
        f"  mean rounds between CAMATs          {pm(rb['mean'], 2)}",
        f"  tables without a CAMAT at the end   {share(s['final_state']['no_camat_share'], 3)}",
    ]
    if s.get("stopping"):
        from domeng.results.sequential import stopping_text

        lines += ["", stopping_text(s["stopping"])]
    return "\n".join(lines) + "\n"
