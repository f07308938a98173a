"""The strict JSON reader for files and messages from outside
(:mod:`domeng.infra.jsontext`): found by the property test of results meta,
where ``"version": Infinity`` was read and then broke ``to_json``."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domeng.infra import jsontext


@pytest.mark.parametrize(
    "text", ['{"v": NaN}', '{"v": Infinity}', "[-Infinity]", "1e999", '{"a": [1, {"b": -1e400}]}']
)
def test_non_finite_numbers_are_refused(text):
    assert json.loads(text) is not None  # Python's reader takes them ...
    with pytest.raises(ValueError):
        jsontext.loads(text)  # ... ours does not


finite = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10),
    lambda kids: (
        st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=5), kids, max_size=4)
    ),
    max_leaves=15,
)


@given(value=finite)
def test_what_domeng_writes_reads_back_the_same(value):
    text = json.dumps(value, allow_nan=False)
    assert jsontext.loads(text) == value
    assert jsontext.loads(text.encode()) == value
