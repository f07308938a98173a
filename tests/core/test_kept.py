"""Issue 21 item 2: the trace, the record and the per-step deltas are chosen
when the code is compiled (``core/kept.py``, ``engine.step.Keep``), not by
flags of the state."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from domeng.core import layout as L
from domeng.core.events import TR_ROWS_PER_ROUND, TR_WIDTH
from domeng.core.kept import kept_row, row_index, when_kept
from domeng.core.rules import Rules
from domeng.engine import kernel as K
from domeng.engine import step as E


@when_kept
def _write(buf, x):
    buf[0, 0] = x  # a 2-d write: numba cannot type it for a None
    return buf[0, 0] + 1


@njit(cache=False)
def _caller(buf, x):
    r = _write(buf, x)
    return r is None


def test_a_call_with_none_compiles_to_nothing_and_with_an_array_to_the_body():
    assert _caller(None, 5)  # compiled: the body was never typed for None
    a = np.zeros((2, 2), dtype=np.int64)
    assert not _caller(a, 5)
    assert a[0, 0] == 5
    assert [type(sig[0]).__name__ for sig in _caller.signatures] == ["NoneType", "Array"]


def test_from_python_the_same_rule_holds():
    a = np.zeros((1, 1), dtype=np.int64)
    assert _write(None, 3) is None
    assert _write(a, 3) == 4 and a[0, 0] == 3
    with pytest.raises(TypeError, match="first parameter"):
        when_kept(lambda: None)


def _round(kept, seed=11):
    st = K.init_states(np.uint64(seed), 0, 1, 25)[0]
    S = E.new_state(Rules().to_array(), st, 1, kept)
    mask = np.zeros(E.N_ACTIONS, dtype=np.int64)
    for _ in range(3):  # three rounds, every seat's first legal action
        E.new_round(S)
        while not E.round_over(S):
            E.legal_action_mask(S, mask)
            E.step(S, int(np.flatnonzero(mask)[0]))
    return S


def test_a_state_keeping_nothing_plays_as_one_keeping_everything():
    """Nothing kept changes no rule: the same three rounds, the same stones,
    aggregates and counters; only the kept fields differ (None)."""
    full = _round(E.keep(TR_ROWS_PER_ROUND))
    bare = _round(E.KEEP_NOTHING)
    assert bare.tr is None and bare.rec is None and bare.delta is None
    assert full.tr.shape == (TR_ROWS_PER_ROUND, TR_WIDTH) and full.rec.shape == (L.REC_LEN,)
    for name in ("obs", "hands", "w", "st", "agg", "ctl", "hist"):
        assert np.array_equal(getattr(full, name), getattr(bare, name)), name
    assert int(full.tn[0]) > 0 and int(bare.tn[0]) == 0  # rows only where a trace is kept
    assert full.rec[L.RC_ROUND] == 3
    assert len(E.State._fields) == 17 and E.CTL_LEN == 6  # no mode slots left


def test_a_record_without_deltas_and_trace_is_the_full_states_record():
    full = _round(E.keep(TR_ROWS_PER_ROUND))
    rec_only = _round(E.keep(0, record=True, deltas=False))
    assert rec_only.tr is None and rec_only.delta is None
    assert np.array_equal(full.rec, rec_only.rec)
    assert E.copy_state(rec_only).delta is None
    copy = E.copy_state(full)
    assert np.array_equal(copy.tr, full.tr) and copy.tr is not full.tr


@njit(cache=False, _nrt=False)
def _row_sum_without_refcounts(a, i):
    # a view through kept_row in a function compiled without reference
    # counting, for a type nothing else in the package views (float32, 3-d),
    # so that this compile is the first of kept_row for it in the process
    r = kept_row(a, i)
    return r[0, 0] + r[1, 1]


@njit(cache=False)
def _rows(a, b, i):
    r = kept_row(a, i)
    return r.sum() + (0.0 if kept_row(b, i) is None else 1.0)


def test_kept_row_compiles_without_reference_counting_and_shares_a_one_row_field():
    """``kept_row`` made its view in a subroutine, which numba compiles with
    the flags of whoever compiles it first: from a function with ``_nrt=False``
    (the vector env's step) that was refused ("Only accept returning of array
    passed into the function as argument"), and a test failed or passed by
    the order in which its worker compiled things."""
    a = np.arange(3 * 2 * 2, dtype=np.float32).reshape(3, 2, 2)
    assert _row_sum_without_refcounts(a, 1) == a[1, 0, 0] + a[1, 1, 1]
    assert _row_sum_without_refcounts(a, 7) == a[2, 0, 0] + a[2, 1, 1]  # past the rows: the last
    one = np.ones((1, 4))
    assert _rows(one, None, 5) == 4.0  # one row: shared by every table
    assert _rows(one, one, 0) == 5.0
    assert row_index(1, 9) == 0 and row_index(6, 2) == 2 and row_index(6, 9) == 5
