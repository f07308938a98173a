"""Stronger determinized search: ``esearch`` and ``isearch`` (issue 13).

Both improve on :mod:`domeng.players.search` (``search``: uniform
determinizations, ``heavy`` rollouts) in the same loop: for every
determinization, every legal move is played and the round rolled out to its
end with common random numbers; the move with the best total value is
played (value: minus the stones the seat gains by the round's end, plus
``CAMAT_BONUS`` if it becomes CAMAT, D15).

``esearch-N`` (N determinizations per decision)
    1. **Determinizations exactly consistent with D17**, uniform among the
       consistent deals (:mod:`domeng.players.determinize`, the one
       determinizer of every search player): every other seat gets exactly
       its hand size and never a tile showing a number it has shown it lacks
       by passing; the 3 tiles out of play take the rest; in the first round
       what D3 shows (the higher doubles than the opener's are out of play).
    2. **Better rollouts**: every seat plays the rest of the round as the
       tuned ``expert`` (:mod:`domeng.players.expert`), with the public
       fields it reads (hand sizes, voids) kept up to date.
``isearch-N``
    ``esearch`` plus **inference**: it draws ``CANDIDATES * N`` (4N)
    determinizations from the same determinizer, weights each by how likely the other seats' actual
    plays this round were under a softmax model of the expert's scores
    (temperature ``1 / BETA``), replayed from the round's public history with
    the determinized hands, and rolls out ``N`` deals *resampled* by those
    weights.  Deals in which the others would have played very differently
    are rarely rolled out.  (Until session 5 it weighted its ``N`` rolled-out
    deals instead; the weights left a median of about a tenth of them
    carrying the decision: ``benchmarks/bench_inference.py``.)

``nsearch-N``
    ``esearch`` whose rollouts also value **who starts the next round**
    (D4: the round's winner, or the CAMAT).  The starter's seat is worth a
    lot in the rounds that follow: under strong play the seat right after
    the starter takes about 0.54 stones a round more than the starter
    (``analysis/experts``, study 1).  Each rollout's value is lowered by
    :data:`NEXT_START`, the stones the seat can expect from the rounds that
    follow at its distance after the next starter.  A seat playing a game of
    many rounds values them so; ``esearch`` and ``search`` look at this
    round's stones only.

All three are configurations of the one search core
(:mod:`domeng.players.searchcore`, :data:`KINDS`), which holds the rollout,
the value, the inference's likelihood and its resampling.

Each player sees only its observation and the round's public history, and
draws every random number from its seat's generator: games are reproducible
from the seed.  Rollouts step through the step API (:mod:`domeng.engine.step`).
"""

from __future__ import annotations

import numpy as np

from domeng.players.heuristics import P_EXPERT
from domeng.players.searchcore import NO_CAP, NO_LEAF, P_LEARNED, config, make_strategy

DEFAULT_SAMPLES = 100
BETA = 0.5
#: five experts before the first CAMAT, by a seat's distance after the
#: round's starter (0: it starts; 1: it plays right after the starter; ...):
#: net stones per round and win rate
#: (``analysis/experts/output/starter_offset_value.csv``, "no CAMAT yet")
EXPERT_NET_BY_DISTANCE = (0.439768, 0.976649, 0.629378, 0.476333, 0.437687)
EXPERT_WIN_BY_DISTANCE = (0.356322, 0.178116, 0.182188, 0.151145, 0.132229)


def carry_forward(net, win, rounds: int = 5) -> np.ndarray:
    """The stones a seat can expect from the next ``rounds`` rounds, by its
    distance after the next round's starter, less their mean (only the
    differences between seats matter): each round the winner starts the
    next one (D4), so a seat at distance ``d`` is at ``(d - w) % 5`` after
    a winner at distance ``w``."""
    net = np.asarray(net, dtype=np.float64)
    win = np.asarray(win, dtype=np.float64)
    win = win / win.sum()
    v = net.copy()
    for _ in range(rounds - 1):
        v = net + np.array([sum(win[w] * v[(d - w) % 5] for w in range(5)) for d in range(5)])
    return v - v.mean()


#: ``nsearch``: the value of the seats of the rounds after this one (five
#: rounds: the values have settled), about -0.21, +0.47, +0.06, -0.12, -0.19
NEXT_START = carry_forward(EXPERT_NET_BY_DISTANCE, EXPERT_WIN_BY_DISTANCE)
_NO_NEXT = np.zeros(5)
#: kind -> (inference temperature, the value of the next round's seats)
KINDS = {"esearch": (0.0, _NO_NEXT), "isearch": (BETA, _NO_NEXT), "nsearch": (0.0, NEXT_START)}
#: rollout player name -> its id in the search core (``NAME-N:learned``: the
#: shipped ``learned`` network at every seat of the rollouts, issue 25 item 2)
ROLLOUTS = {"expert": P_EXPERT, "learned": P_LEARNED}
#: opponent model name -> its id (``isearch-N:lmodel``: the learned network's
#: move scores weight the deals instead of the expert's, issue 25 item 2)
MODELS = ROLLOUTS


def make_isearch_strategy(
    kind: str = "isearch",
    samples: int | None = None,
    explore: float = 0.0,
    rollout: str = "expert",
    leaf: float | None = None,
    model: str = "expert",
    cap: float | None = None,
):
    """The ``esearch``, ``isearch`` or ``nsearch`` player with ``samples`` determinizations
    per decision (default :data:`DEFAULT_SAMPLES`), compiled for the player
    signature: :func:`domeng.players.searchcore.search_core` with ``expert``
    rollouts and the kind's :data:`KINDS` entry.  ``explore`` (the name's
    ``epsX``): the probability that a rollout move is a random legal one (see
    :func:`domeng.players.searchcore.rollout`).  ``rollout`` (the name's
    ``learned``): the rollout player, a key of :data:`ROLLOUTS`.  ``leaf``
    (the name's ``leafK``): truncated rollouts, ``K`` plies after the move
    and then the learned value (:mod:`domeng.players.value`; None: to the
    round's end).  ``model`` (the name's ``lmodel``): whose move scores
    weight the deals with inference, a key of :data:`MODELS`.  ``cap`` (the
    name's ``capT``): at most ``T`` rollouts a decision, the samples shared
    among the moves (:func:`domeng.players.searchcore.samples_for`; None: no
    cap)."""
    if kind not in KINDS:
        raise ValueError(f"unknown search player {kind!r}")
    if rollout not in ROLLOUTS:
        raise ValueError(f"unknown rollout player {rollout!r}; rollouts: {', '.join(ROLLOUTS)}")
    n = DEFAULT_SAMPLES if samples is None else int(samples)
    if n < 1:
        raise ValueError("samples must be >= 1")
    explore = float(explore)
    if not 0.0 <= explore <= 1.0:
        raise ValueError("explore must be a probability (0 to 1)")
    if model not in MODELS:
        raise ValueError(f"unknown opponent model {model!r}; models: {', '.join(MODELS)}")
    plies = NO_LEAF
    if leaf is not None:
        if not float(leaf).is_integer() or float(leaf) < 0:
            raise ValueError("leaf must be a whole number of plies >= 0")
        plies = int(leaf)
    most = NO_CAP
    if cap is not None:
        if not float(cap).is_integer() or float(cap) < 1:
            raise ValueError("cap must be a whole number of rollouts >= 1")
        most = int(cap)
    beta, later = KINDS[kind]
    name = f"{kind}_{n}" + (f"_explore{explore:g}" if explore else "")
    name += "" if rollout == "expert" else f"_{rollout}"
    name += "" if plies == NO_LEAF else f"_leaf{plies}"
    name += "" if model == "expert" else f"_{model}model"
    name += "" if most == NO_CAP else f"_cap{most}"
    cfg = config(
        n, ROLLOUTS[rollout], beta, explore, later, leaf=plies, model=MODELS[model], cap=most
    )
    return make_strategy(cfg, name)
