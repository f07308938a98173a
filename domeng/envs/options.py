"""Options shared by the environments, checked once (bad input: one clear
:class:`~domeng.core.errors.DomengError`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from domeng.core.errors import DomengError
from domeng.core.rules import Rules
from domeng.players import catalogue


def _whole(name: str, v: Any, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v < hi:
        raise DomengError(f"{name} must be a whole number {lo} <= {name} < {hi}, got {v!r}")
    return int(v)


@dataclass(frozen=True)
class EpisodeOptions:
    """What an episode is (D16): a fresh game that ends after ``rounds``
    rounds (if > 0) or at the ``camats``-th CAMAT (if > 0): ``rounds=1`` one
    round (the default), ``rounds=N`` a game of N rounds, ``rounds=0,
    camats=1`` until the first CAMAT.  ``camat_bonus`` is added to the reward
    of a seat that becomes CAMAT.  Make one with :meth:`make`, which checks
    the values (:class:`~domeng.core.errors.DomengError` otherwise).

    >>> EpisodeOptions.make(rounds=0, camats=1).camats
    1
    >>> EpisodeOptions.make(rounds=0, camats=0)
    Traceback (most recent call last):
    ...
    domeng.core.errors.DomengError: an episode needs an end: rounds > 0 or camats > 0
    """

    rules: Rules
    rounds: int = 1
    camats: int = 0
    camat_bonus: float = 0.0

    @classmethod
    def make(
        cls, rules: Rules | None = None, rounds: int = 1, camats: int = 0, camat_bonus: float = 0.0
    ) -> EpisodeOptions:
        rules = Rules() if rules is None else rules
        if not isinstance(rules, Rules):
            raise DomengError("rules must be a domeng.core.rules.Rules")
        rounds = _whole("rounds", rounds, 0, 2**31)
        camats = _whole("camats", camats, 0, 2**31)
        if rounds == 0 and camats == 0:
            raise DomengError("an episode needs an end: rounds > 0 or camats > 0")
        if (
            isinstance(camat_bonus, bool)
            or not isinstance(camat_bonus, (int, float, np.number))
            or not np.isfinite(camat_bonus)
        ):
            raise DomengError(f"camat_bonus must be a finite number, got {camat_bonus!r}")
        return cls(rules, rounds, camats, float(camat_bonus))


def check_seed(seed: Any) -> int:
    return _whole("seed", seed, 0, 2**64)


def check_seat(seat: Any) -> int:
    return _whole("seat", seat, 0, 5)


def seat_players(opponents: str | Sequence[str], seat: int) -> list[str]:
    """Five player names: ``opponents`` (one name for all four, or four names
    for the other seats in seat order) around the learner's ``seat`` (whose
    entry is a placeholder the engine never asks).  Each name is checked by
    the one catalogue (:func:`domeng.players.catalogue.check`: its budget
    range, and that it may sit in an environment)."""
    if isinstance(opponents, str):
        names = [opponents] * 4
    else:
        names = list(opponents)
        if len(names) != 4 or not all(isinstance(n, str) for n in names):
            raise DomengError(
                "opponents must be one player name or four names (the other "
                f"seats in seat order), got {opponents!r}"
            )
    out = [catalogue.seat_name(n, "environment") for n in names]
    out.insert(seat, out[0])
    return out
