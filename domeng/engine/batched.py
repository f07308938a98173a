"""The step API for N tables at once (vectorised environments, search).

A :class:`Batch` holds N table-state records as arrays with a leading table
axis; :func:`table_at` gives table ``i``'s :class:`~domeng.engine.step.State`
as views (no copy), so every batched function is a loop over tables calling
the one-table step API: the rules stay in one place.

    >>> import numpy as np
    >>> from domeng.engine import batched as B
    >>> b = B.new_batch(rules_array, seed=0, table_start=0, n=1024)   # doctest: +SKIP
    >>> B.new_rounds(b, np.ones(1024, np.int64))                         # doctest: +SKIP
    >>> B.legal_action_masks(b, masks)   # masks: int64[N, 57]          # doctest: +SKIP
    >>> B.step_all(b, actions, ended)    # actions: int64[N]            # doctest: +SKIP

Table ``table_start + i`` draws from the same streams as that table of a
study with the same seed.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from domeng.core import layout as L
from domeng.core.events import TR_WIDTH
from domeng.core.observation import MAX_TURNS, OBS_LEN
from domeng.engine import kernel as K
from domeng.engine import step as E

Batch = namedtuple("Batch", E.State._fields)  # type: ignore[misc]  # the State's fields


@njit(cache=True)
def new_batch(rules, seed, table_start, n, full):
    """N fresh tables ``table_start .. table_start + n - 1`` of ``seed``,
    no round dealt yet.  ``full``: keep the observation fields players read."""
    st = K.init_states(np.uint64(seed), table_start, n, rules[0])
    one = E.new_state(rules, st[0], full, 0)
    b = Batch(
        np.empty((n, rules.shape[0]), dtype=np.int64),
        np.zeros((n, 5), dtype=np.int64),
        np.zeros((n, OBS_LEN), dtype=np.int64),
        np.full((n, MAX_TURNS, 3), -1, dtype=np.int64),
        np.zeros((n, K.W_LEN), dtype=np.int64),
        st,
        np.zeros((n, 1), dtype=np.uint64),
        np.zeros((n, 5), dtype=np.uint64),
        np.zeros((n, L.AGG_LEN), dtype=np.int64),
        np.zeros((n, L.REC_LEN), dtype=np.int64),
        np.zeros((n, 1, TR_WIDTH), dtype=np.int64),
        np.zeros((n, 1), dtype=np.int64),
        np.zeros((n, E.CTL_LEN), dtype=np.int64),
        np.zeros((n, 6), dtype=np.int64),
        np.zeros((n, 28), dtype=np.int64),
        np.zeros((n, 8), dtype=np.int64),
        np.zeros((n, 64), dtype=np.int64),
    )
    for i in range(n):
        b.rules[i, :] = rules
        b.ctl[i, :] = one.ctl
        E.load_table(table_at(b, i))
    return b


@njit(cache=True, inline="always")
def table_at(b, i):
    """Table ``i`` of the batch as a one-table State (views, no copy)."""
    return E.State(
        b.rules[i],
        b.hands[i],
        b.obs[i],
        b.hist[i],
        b.w[i],
        b.st[i],
        b.rng[i],
        b.prng[i],
        b.agg[i],
        b.rec[i],
        b.tr[i],
        b.tn[i],
        b.ctl[i],
        b.delta[i],
        b.perm[i],
        b.payers[i],
        b.moves[i],
    )


@njit(cache=True)
def new_rounds(b, which):
    """Deal the next round at every table ``i`` with ``which[i] != 0``."""
    for i in range(b.hands.shape[0]):
        if which[i]:
            E.new_round(table_at(b, i))


@njit(cache=True)
def legal_action_masks(b, out):
    """``out[i, a] = 1`` for the legal actions at table ``i`` (``int64[N, 57]``)."""
    for i in range(b.hands.shape[0]):
        E.legal_action_mask(table_at(b, i), out[i])


@njit(cache=True)
def step_all(b, actions, ended):
    """Table ``i``'s seat to move takes ``actions[i]``; ``ended[i] = 1`` if
    the round ended, -1 if the action was illegal (that table unchanged),
    else 0.  Tables with no round in progress are skipped (``ended[i] = 0``)."""
    for i in range(b.hands.shape[0]):
        S = table_at(b, i)
        if S.ctl[E.C_OVER]:
            ended[i] = 0
            continue
        ended[i] = E.step_checked(S, actions[i])


@njit(cache=True)
def observe_all(b, seats, out):
    """Seat ``seats[i]``'s D17 view of table ``i`` into ``out[i]``."""
    for i in range(b.hands.shape[0]):
        E.observe(table_at(b, i), seats[i], out[i])


@njit(cache=True)
def seats_to_move(b, out):
    for i in range(b.hands.shape[0]):
        out[i] = b.ctl[i, E.C_SEAT]
