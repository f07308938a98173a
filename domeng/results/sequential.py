"""Stopping a study on the data without losing the coverage of its intervals.

``--target-ci METRIC=HALF_WIDTH`` plays blocks of tables until the named
95% half-width is reached.  Stopping the first time an ordinary interval
(``1.96 SE``) is narrow enough is *not* safe: the more often one looks, the
more likely one stops at a moment when the SE happens to be underestimated
or the estimate happens to be far off, and the coverage falls below 95%.

So the half-width that is compared with the target, and reported, is that
of an *asymptotic confidence sequence* (Waudby-Smith, Arbour, Sandler,
Ramdas and Ramdas, "Time-uniform central limit theory and asymptotic
confidence sequences", Annals of Statistics 52(6), 2024; arXiv:2103.06476,
Theorem 2.2): with ``t`` independent units (blocks of tables) whose
influence values have standard deviation ``sigma_t`` (the SE times
``sqrt(t)``),

    half-width_t = sigma_t * sqrt( 2 (t rho^2 + 1) / (t^2 rho^2) * log( sqrt(t rho^2 + 1) / alpha ) )

holds *simultaneously for every t* with probability about ``1 - alpha``
(Robbins' normal mixture boundary), so it holds at any stopping time, in
particular "the first time every target is reached".  ``rho`` only decides
where the sequence is tightest; it is fixed before any data is seen, from
the first look and the cap (:func:`rho_for`).  The price of looking as often
as one likes is width: near ``t*`` the half-width is about 1.55 times the
fixed-sample ``1.96 SE``, i.e. about 2.4 times as many tables as a study of
planned size would need.  ``tests/results/test_sequential.py`` checks the coverage
by simulation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from domeng.core.errors import UnreachableTarget
from domeng.core.wording import counted

#: 1 - coverage of the confidence sequences (95%)
ALPHA = 0.05
#: the first look is made after at least this many blocks (units)
MIN_BLOCKS = 30


def rho_for(t_star: float, alpha: float = ALPHA) -> float:
    """The mixture parameter that makes the sequence tightest at ``t_star`` units."""
    la = -2.0 * math.log(alpha)
    return math.sqrt((la + math.log(la + 1.0)) / max(float(t_star), 1.0))


def cs_factor(t, rho: float, alpha: float = ALPHA):
    """``half-width / sigma`` of the confidence sequence after ``t`` units."""
    t = np.asarray(t, dtype=np.float64)
    r2 = rho * rho
    return np.sqrt(2.0 * (t * r2 + 1.0) / (t * t * r2) * np.log(np.sqrt(t * r2 + 1.0) / alpha))


def cs_half_width(se, t, rho: float, alpha: float = ALPHA):
    """The confidence-sequence half-width of an estimate with standard error
    ``se`` computed across ``t`` independent units."""
    sigma = np.asarray(se, dtype=np.float64) * np.sqrt(np.asarray(t, dtype=np.float64))
    return sigma * cs_factor(t, rho, alpha)


def units_needed(
    se, t: int, target: float, rho: float, t_max: int, alpha: float = ALPHA
) -> int | None:
    """Projected number of units at which the half-width reaches ``target``
    (``sigma`` held at its current estimate), or None beyond ``t_max``."""
    sigma = float(se) * math.sqrt(t)
    if not math.isfinite(sigma):
        return None
    if sigma == 0.0:
        return t
    ts = np.arange(1, t_max + 1)
    ok = np.nonzero(sigma * cs_factor(ts, rho, alpha) <= target)[0]
    return int(ts[ok[0]]) if len(ok) else None


@dataclass
class Target:
    """A stopping target: the 95% half-width ``half_width`` of ``metric``."""

    metric: str
    half_width: float

    def to_dict(self) -> dict:
        return {"metric": self.metric, "half_width": self.half_width}


@dataclass
class Stop:
    """How a sequential study ended: ``units`` used, ``reason``
    (``"target reached"`` or ``"max rounds reached"``), and per target the
    half-width reached (confidence sequence) and the fixed-sample ``1.96 SE``."""

    units: int
    reason: str
    looks: int
    reached: dict

    def to_dict(self) -> dict:
        return {
            "units": self.units,
            "reason": self.reason,
            "looks": self.looks,
            "targets": self.reached,
        }


def looks_schedule(t_max: int, first: int, step: int = 1, growth: float = 1.5) -> list[int]:
    """Numbers of units at which to look: ``first`` then x ``growth``, each a
    multiple of ``step`` (chunks), the last one ``t_max``."""
    out = []
    t = min(t_max, max(first, step))
    t = min(t_max, -(-t // step) * step)
    while True:
        out.append(t)
        if t >= t_max:
            return out
        t = min(t_max, -(-math.ceil(t * growth) // step) * step)


def run_sequential(
    measure,
    targets: list[Target],
    t_max: int,
    step: int = 1,
    first: int = MIN_BLOCKS,
    alpha: float = ALPHA,
) -> Stop:
    """Look at the data after ``looks_schedule(t_max, first, step)`` units:
    ``measure(t)`` makes ``t`` units available and returns, for each target
    metric, ``(estimate, se)`` across those ``t`` units (an ``se`` that is not
    finite never meets a target).  Stops when every target's
    confidence-sequence half-width is at most its ``half_width``, or at
    ``t_max``.  At the first look, a target the projection cannot reach
    within ``t_max`` raises :class:`UnreachableTarget` (nothing was kept)."""
    schedule = looks_schedule(t_max, first, step)
    t_star = math.sqrt(schedule[0] * t_max)  # fixed before any data is seen
    rho = rho_for(t_star, alpha)
    for look, t in enumerate(schedule, 1):
        est = measure(t)
        reached, done = {}, True
        for tg in targets:
            value, se = est[tg.metric]
            hw = float(cs_half_width(se, t, rho, alpha)) if math.isfinite(se) else math.inf
            ok = hw <= tg.half_width
            done &= ok
            reached[tg.metric] = {
                "target": tg.half_width,
                "half_width": hw if math.isfinite(hw) else None,
                "fixed_sample_half_width": 1.959963984540054 * se if math.isfinite(se) else None,
                "reached": bool(ok),
                "value": value,
                "ci_low": value - hw,
                "ci_high": value + hw,
            }
            if look == 1 and not ok:
                need = units_needed(se, t, tg.half_width, rho, t_max, alpha)
                if need is None:
                    raise UnreachableTarget(
                        f"--target-ci {tg.metric}={tg.half_width:g} is out of reach: after {t} "
                        f"blocks its 95% half-width is {hw:.4g}, and at the cap it would still "
                        f"be about {float(cs_half_width(se * math.sqrt(t / t_max), t_max, rho, alpha)):.4g}"
                        "; raise --max-rounds or the half-width"
                    )
        if done:
            return Stop(t, "target reached", look, reached)
    return Stop(t, "max rounds reached", look, reached)


def stopping_text(stop: dict) -> str:
    """One paragraph: why a sequential study stopped and the precision reached."""
    lines = [
        f"stopped: {stop['reason']} after {counted(stop['tables'], 'table', ',')}"
        f"{' per arm' if stop.get('arms', 1) > 1 else ''} "
        f"({counted(stop['looks'], 'look')}; cap "
        f"{counted(stop['max_rounds'], 'round', ',')}); "
        f"half-widths are those of a 95% confidence sequence, valid when stopping on the data"
    ]
    for name, t in stop["targets"].items():
        hw = t.get("half_width")
        lines.append(
            f"  {name}: half-width {hw:.4g} (target {t['target']:.4g})"
            if hw is not None
            else f"  {name}: half-width undefined (target {t['target']:.4g})"
        )
    return "\n".join(lines)
