"""Every estimated metric of a study, by name, as per-group numerators and
denominators: the one place the summary, comparisons, sweeps and stopping
rules take their numbers from.

A metric is a ratio estimator ``sum_g x_g / sum_g n_g`` over the study's
groups of tables (:mod:`domeng.results.stats`).  Its name is the dotted path
of its ``{"value", "se"}`` entry in :meth:`domeng.Results.summary`, e.g.
``passebunge_per_round``, ``end_kind.CEKI``, ``stones_per_round.by_reason.POLLO``,
``win_rate_by_seat.0``, ``camat_per_1000_rounds.total``.  :func:`metric_names`
lists them; ``domeng compare --list-metrics`` prints them.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import numpy as np

from domeng.core import layout as L
from domeng.results.stats import interval, ratio

#: a :class:`domeng.Results` (results.results imports this module: no import back)
Results = Any


@dataclass(frozen=True)
class Part:
    """One metric: ``x[G]`` over ``n[G]`` (per group of tables); ``share``: a
    proportion in [0, 1] (Wilson intervals); ``unit``: what it counts;
    ``event``: what one event adds to ``x`` (1000 for a rate per 1000 rounds,
    1/k for a player over k seats: :func:`domeng.results.stats.interval`)."""

    path: tuple
    x: np.ndarray
    n: np.ndarray
    share: bool = False
    unit: str = "per round"
    event: float = 1.0

    def interval(self):
        """``(value, se, ci_low, ci_high)`` by the rule for its kind."""
        return interval(self.x, self.n, share=self.share, event=self.event)


@dataclass(frozen=True)
class _PerSeat:
    """A player's figure averaged over its ``seats`` seats."""

    x: np.ndarray
    seats: int


def _seat_names() -> list[str]:
    return [str(s) for s in range(L.N_SEATS)]


class _Metrics:
    """The metrics of one :class:`Results`, collected in the summary's order."""

    def __init__(self, res: Results) -> None:
        self.res = res
        self.seats = _seat_names()
        self.rounds = res.field("A_ROUNDS").astype(np.float64)
        self.seats_of = res.player_seats()
        self.out: dict[str, Part] = {}

    def add(self, path: tuple, x, n, share: bool = False, unit: str = "per round", event=1.0):
        self.out[".".join(path)] = Part(
            path, np.asarray(x, dtype=np.float64), n, share, unit, event
        )

    def per_round(self, name, x, share: bool = False, scale: float = 1.0, unit="per round"):
        path = tuple(name.split(".")) if isinstance(name, str) else name
        event = scale
        if isinstance(x, _PerSeat):  # a player's figure, averaged: one event adds 1/k
            x, event = x.x, scale / x.seats
        self.add(path, np.asarray(x, dtype=np.float64) * scale, self.rounds, share, unit, event)

    def by_player(self, x: np.ndarray) -> dict[str, _PerSeat]:
        return {p: _PerSeat(v, len(self.seats_of[p])) for p, v in self.res._by_player(x).items()}


def metric_parts(res: Results) -> dict[str, Part]:
    """Every estimated metric of ``res``, in the order of the summary."""
    m = _Metrics(res)
    for step in (_ends_and_passes, _stone_flows, _camats, _wins_and_starts, _final_state):
        step(m, res)
    return m.out


def _ends_and_passes(m: _Metrics, res: Results) -> None:
    """How rounds end, passes and passebunge (a pass that pays), tiles and turns."""
    wins = res.field("A_WINS")
    for j, k in enumerate(L.KIND_NAMES):
        m.per_round(f"end_kind.{k}", wins.sum(axis=1)[:, j], share=True, unit="share of rounds")

    passes, pass_rounds = res.field("A_PASSES"), res.field("A_PASS_ROUNDS")
    pb, pb_rounds = res.field("A_PASSEBUNGE"), res.field("A_PASSEBUNGE_ROUNDS")
    m.per_round("passes_per_round", passes.sum(axis=1))
    m.per_round(
        "pass_round_share", res.field("A_ANY_PASS_ROUNDS"), share=True, unit="share of rounds"
    )
    m.per_round("passebunge_per_round", pb.sum(axis=1))
    m.per_round(
        "passebunge_round_share",
        res.field("A_ANY_PASSEBUNGE_ROUNDS"),
        share=True,
        unit="share of rounds",
    )

    def pass_block(prefix: tuple, e, er, b, br):
        m.per_round(prefix + ("passes_per_round",), e)
        m.per_round(prefix + ("pass_round_share",), er, share=True, unit="share of rounds")
        m.per_round(prefix + ("passebunge_per_round",), b)
        m.per_round(prefix + ("passebunge_round_share",), br, share=True, unit="share of rounds")

    for s in range(L.N_SEATS):
        pass_block(
            ("passes_by_seat", m.seats[s]),
            passes[:, s],
            pass_rounds[:, s],
            pb[:, s],
            pb_rounds[:, s],
        )
    pp, ppr, ppb, ppbr = (m.by_player(a) for a in (passes, pass_rounds, pb, pb_rounds))
    for p in res.player_seats():
        pass_block(("passes_by_player", p), pp[p], ppr[p], ppb[p], ppbr[p])
    m.per_round("tiles_per_round", res.field("A_TILES"))
    m.per_round("turns_per_round", res.field("A_TURNS"))


def _stone_flows(m: _Metrics, res: Results) -> None:
    """Stones paid per round: by reason, source, seat, player; unpaid ones."""
    flow = res.field("A_FLOW")  # [G, 6 src, 5 dst, 7 reason]
    unpaid = res.field("A_UNPAID")  # [G, 5 dst, 7 reason]
    st = "stones_per_round"
    unit = "stones per round"
    m.per_round(f"{st}.total", flow.sum(axis=(1, 2, 3)), unit=unit)
    by_reason = flow.sum(axis=(1, 2))
    for j, k in enumerate(L.REASON_NAMES):
        m.per_round(f"{st}.by_reason.{k}", by_reason[:, j], unit=unit)
    m.per_round(f"{st}.from_table", flow[:, 0].sum(axis=(1, 2)), unit=unit)
    m.per_round(f"{st}.from_players", flow[:, 1:].sum(axis=(1, 2, 3)), unit=unit)
    from_table = flow[:, 0].sum(axis=1)
    from_players = flow[:, 1:].sum(axis=(1, 2))
    for j, k in enumerate(L.REASON_NAMES):
        m.per_round(f"{st}.by_reason_from_table.{k}", from_table[:, j], unit=unit)
    for j, k in enumerate(L.REASON_NAMES):
        m.per_round(f"{st}.by_reason_from_players.{k}", from_players[:, j], unit=unit)
    from_seat = flow[:, 1:].sum(axis=(2, 3))  # [G, 5]
    to_seat = flow.sum(axis=(1, 3))  # [G, 5]
    for s in range(L.N_SEATS):
        m.per_round(f"{st}.from_seat.{m.seats[s]}", from_seat[:, s], unit=unit)
    for p, x in m.by_player(from_seat).items():
        m.per_round((st, "from_player", p), x, unit=unit)
    for s in range(L.N_SEATS):
        m.per_round(f"{st}.to_seat.{m.seats[s]}", to_seat[:, s], unit=unit)
    for p, x in m.by_player(to_seat).items():
        m.per_round((st, "to_player", p), x, unit=unit)
    m.per_round(f"{st}.unpaid.total", unpaid.sum(axis=(1, 2)), unit=unit)
    unpaid_reason = unpaid.sum(axis=1)
    for j, k in enumerate(L.REASON_NAMES):
        m.per_round(f"{st}.unpaid.by_reason.{k}", unpaid_reason[:, j], unit=unit)
    unpaid_to = unpaid.sum(axis=2)
    for s in range(L.N_SEATS):
        m.per_round(f"{st}.unpaid.to_seat.{m.seats[s]}", unpaid_to[:, s], unit=unit)


def _camats(m: _Metrics, res: Results) -> None:
    """CAMATs (a player out of stones) per 1000 rounds and the rounds between them."""
    camat = res.field("A_CAMAT")
    c = "camat_per_1000_rounds"
    m.per_round(f"{c}.total", camat.sum(axis=1), scale=1000.0, unit="per 1000 rounds")
    for s in range(L.N_SEATS):
        m.per_round(f"{c}.by_seat.{m.seats[s]}", camat[:, s], scale=1000.0, unit="per 1000 rounds")
    for p, x in m.by_player(camat).items():
        m.per_round((c, "by_player", p), x, scale=1000.0, unit="per 1000 rounds")
    m.add(
        ("rounds_between_camats", "mean"),
        res.field("A_CAMAT_GAP_SUM"),
        camat.sum(axis=1).astype(np.float64),
        unit="rounds",
    )


def _wins_and_starts(m: _Metrics, res: Results) -> None:
    """Win rates by starter offset, seat and player; who starts."""
    offset = res.field("A_WINS_OFFSET").sum(axis=2)
    for o in range(L.N_SEATS):
        m.per_round(
            f"win_rate_by_starter_offset.{m.seats[o]}",
            offset[:, o],
            share=True,
            unit="share of rounds",
        )
    seat_wins = res.field("A_WINS").sum(axis=2)
    for s in range(L.N_SEATS):
        m.per_round(
            f"win_rate_by_seat.{m.seats[s]}", seat_wins[:, s], share=True, unit="share of rounds"
        )
    for p, x in m.by_player(seat_wins).items():
        m.per_round(("win_rate_by_player", p), x, share=True, unit="share of rounds")
    starts = res.field("A_STARTS")
    for s in range(L.N_SEATS):
        m.per_round(
            f"start_share_by_seat.{m.seats[s]}", starts[:, s], share=True, unit="share of rounds"
        )


def _final_state(m: _Metrics, res: Results) -> None:
    """The tables' stones and CAMATs at the end of the study."""
    tables = res.group_tables.astype(np.float64)
    stones = res.group_state[:, res.state_field_index("S_STONES") + np.arange(L.N_SEATS)]
    m.add(
        ("final_state", "table_stones"), res.state_field("S_TABLE"), tables, unit="stones per table"
    )
    for s in range(L.N_SEATS):
        m.add(
            ("final_state", "stones_held_by_seat", m.seats[s]),
            stones[:, s],
            tables,
            unit="stones per table",
        )
    m.add(
        ("final_state", "no_camat_share"),
        res.group_state[:, res.state_field_index("S_CAMAT_HOLDER") + 5],
        tables,
        True,
        "share of tables",
    )
    m.add(
        ("final_state", "camats_per_table"), res.state_field("S_CAMATS"), tables, unit="per table"
    )


def metric_names(res: Results) -> list[str]:
    """The names of every metric of ``res`` (:func:`metric_parts`)."""
    return list(metric_parts(res))


def nest(flat: dict[tuple, object]) -> dict:
    """``{("a", "b"): v}`` -> ``{"a": {"b": v}}``."""
    out: dict = {}
    for keys, v in flat.items():
        d = out
        for k in keys[:-1]:
            d = d.setdefault(k, {})
        d[keys[-1]] = v
    return out


def estimates(res: Results) -> dict[str, tuple[float, float]]:
    """Every metric's ``(value, se)`` (:meth:`Part.interval` adds its bounds)."""
    out = {}
    for name, p in metric_parts(res).items():
        v, se = ratio(p.x, p.n)
        out[name] = (float(v), float(se))
    return out


#: the group keys of :func:`tidy_estimates`, by how the part of a metric's name before them
#: ends (``by_reason...``: the reason, whatever follows it)
GROUP_KEYS = (("seat", "seat"), ("player", "player"), ("offset", "offset"))
#: the columns of :func:`tidy_estimates`
TIDY_COLUMNS = [
    "metric",
    "seat",
    "player",
    "kind",
    "reason",
    "offset",
    "value",
    "se",
    "ci_low",
    "ci_high",
    "n",
    "unit",
    "name",
]


def _split_name(path: tuple) -> tuple[str, dict]:
    """``("passes_by_seat", "0", "passes_per_round")`` -> ``("passes_by_seat.passes_per_round",
    {"seat": 0})``: the metric's family and its group keys."""
    keys: dict = {}
    family = [path[0]]
    for prev, part in pairwise(path):
        key = "kind" if prev == "end_kind" else "reason" if "by_reason" in prev else None
        for end, name in GROUP_KEYS:
            if prev.endswith(end) and key is None:
                key = name
        if key is None:
            family.append(part)
        else:
            keys[key] = int(part) if key in ("seat", "offset") else part
    return ".".join(family), keys


def tidy_estimates(res: Results):
    """Every estimate of ``res`` as one tidy long DataFrame, a row each
    (:meth:`domeng.Results.estimates` documents its columns)."""
    import pandas as pd

    rows = []
    for name, p in metric_parts(res).items():
        family, keys = _split_name(p.path)
        v, se, lo, hi = p.interval()
        n = float(np.sum(p.n))
        rows.append(
            {
                "metric": family,
                **keys,
                "value": float(v),
                "se": float(se),
                "ci_low": float(lo),
                "ci_high": float(hi),
                "n": int(n) if n.is_integer() else n,
                "unit": p.unit,
                "name": name,
            }
        )
    df = pd.DataFrame(rows).reindex(columns=TIDY_COLUMNS)
    for col in ("seat", "offset"):
        df[col] = df[col].astype("Int64")
    for col in ("player", "kind", "reason"):
        df[col] = df[col].astype("str")  # missing where it does not apply
    return df


#: words of a metric name's parts (:func:`metric_words`)
_EVENTS = {
    "passes_per_round": "PASSes",
    "pass_round_share": "rounds with a PASS",
    "passebunge_per_round": "PASSEBUNGEs",
    "passebunge_round_share": "rounds with a PASSEBUNGE",
}
_STONES = {
    "total": "stones moved, in all",
    "from_table": "stones from the table",
    "from_players": "stones from players",
    "by_reason": "stones for {}",
    "by_reason_from_table": "stones from the table for {}",
    "by_reason_from_players": "stones from players for {}",
    "from_seat": "stones from seat {}",
    "from_player": "stones from {} (per seat)",
    "to_seat": "stones to seat {}",
    "to_player": "stones to {} (per seat)",
}
_SIMPLE = {
    "tiles_per_round": "tiles played",
    "turns_per_round": "turns",
    "rounds_between_camats.mean": "rounds between CAMATs (mean)",
    "camat_per_1000_rounds.total": "CAMATs",
    "final_state.table_stones": "stones on the table at the end",
    "final_state.no_camat_share": "tables with no CAMAT holder at the end",
    "final_state.camats_per_table": "CAMATs won per table",
    "stones_per_round.unpaid.total": "stones owed, unpaid (D7)",
}


def metric_words(name: str) -> str:
    """A metric's name in words, for a plot's label: ``"stones from players"``
    for ``stones_per_round.from_players`` (its unit, :attr:`Part.unit`, is
    said apart); a name it does not know is returned as it is."""
    if name in _SIMPLE:
        return _SIMPLE[name]
    if name in _EVENTS:
        return _EVENTS[name]
    head, _, rest = name.partition(".")
    key, _, arg = rest.partition(".")
    if head == "end_kind":
        return f"rounds ending in {rest}"
    if head in ("passes_by_seat", "passes_by_player") and arg in _EVENTS:
        who = f"seat {key}" if head == "passes_by_seat" else f"{key} (per seat)"
        return f"{_EVENTS[arg]} of {who}"
    if head == "stones_per_round" and key == "unpaid":
        what, _, which = arg.partition(".")
        about = {"by_reason": "for {}", "to_seat": "to seat {}"}.get(what)
        if about:
            return "stones owed, unpaid (D7), " + about.format(which)
    if head == "stones_per_round" and key in _STONES:
        return _STONES[key].format(arg)
    if head == "camat_per_1000_rounds":
        return f"CAMATs of seat {arg}" if key == "by_seat" else f"CAMATs of {arg} (per seat)"
    if head == "win_rate_by_starter_offset":
        return "rounds won by the starter" if rest == "0" else f"rounds won by starter + {rest}"
    if head == "win_rate_by_seat":
        return f"rounds won by seat {rest}"
    if head == "win_rate_by_player":
        return f"rounds won by {rest} (per seat)"
    if head == "start_share_by_seat":
        return f"rounds started by seat {rest}"
    if head == "final_state" and key == "stones_held_by_seat":
        return f"stones held by seat {arg} at the end"
    return name
