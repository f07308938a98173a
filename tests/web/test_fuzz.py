"""Fuzz of the browser table's message handler (issue 14): whatever a page
sends, it is either a legal action of the seat to move (the table moves on by
exactly one version) or refused with a one-line WebError and every seat's view
unchanged."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette")

from domeng.web.server import parse
from domeng.web.table import Table, TableSpec, WebError
from web._util import check_d17

_TABLE = Table(TableSpec.parse({"seats": ["human"] * 5, "seed": 99}))

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)

near_messages = st.fixed_dictionaries(
    {"type": st.sampled_from(["play", "pass", "next_round", "hello", "export", "PLAY", ""])},
    optional={
        "version": st.one_of(st.integers(-3, 400), st.booleans(), st.text(max_size=3), st.none()),
        "tile": st.one_of(st.integers(-5, 40), st.floats(), st.text(max_size=3), st.booleans()),
        "end": st.sampled_from(["left", "right", "LEFT", "", "middle", 0, 1, None]),
        "token": st.text(max_size=40),
    },
)


def _views(t: Table):
    return [t.view(s) for s in (0, 1, 2, 3, 4, None)]


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(
    seat=st.sampled_from([0, 1, 2, 3, 4, None]),
    payload=st.one_of(
        json_values.map(json.dumps),
        near_messages.map(json.dumps),
        st.text(max_size=200),
        st.binary(max_size=50),
    ),
    use_version=st.booleans(),
)
def test_any_message_is_a_legal_action_or_refused_unharmed(seat, payload, use_version):
    t = _TABLE
    if t.game.round_over and t.game_over:  # pragma: no cover - a fresh table if one ends
        return
    if use_version and isinstance(payload, str):
        try:
            obj = json.loads(payload)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            obj["version"] = t.version
            payload = json.dumps(obj)
    before_version = t.version
    before = _views(t)
    try:
        t.act(seat, parse(payload))
    except WebError as e:
        msg = str(e)
        assert msg and "\n" not in msg and "Traceback" not in msg
        assert _views(t) == before and t.version == before_version
        return
    # accepted: exactly one version further, and it was that seat's move or its next-round vote
    assert t.version == before_version + 1
    assert seat is not None
    for s in (0, 1, 2, 3, 4, None):
        check_d17(t.view(s), t, s)
