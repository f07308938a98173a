"""Rule constants and options (terms 13, 2, 3, 6..12; options of D3, D6, D11)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from domeng.core import rules as R
from domeng.core.errors import DomengError, RulesError
from domeng.core.rules import DEFAULT_RULES, Rules

AWARDS = [
    "pass_award",
    "passebunge_award",
    "cappu_award",
    "ceki_award",
    "pollo_award",
    "manguno_award",
    "mattikkeng_award",
    "mattikkeng_reduced_award",
]
OPTIONS = ["opener_leads_double", "passebunge_every_pass", "penalize_manguno_pass"]


def test_defaults_match_rules_md():
    r = Rules()
    assert r.stones == 25  # term 13
    assert [getattr(r, a) for a in AWARDS] == [1, 2, 1, 3, 5, 1, 5, 1]
    assert (r.opener_leads_double, r.passebunge_every_pass, r.penalize_manguno_pass) == (
        True,
        True,
        False,
    )  # D3, D6, D11 defaults
    assert r == DEFAULT_RULES
    assert str(r) == "default rules"
    assert r.changed() == {}


def test_option_names_in_declaration_order():
    assert Rules.option_names() == ["stones"] + AWARDS + OPTIONS


def test_frozen():
    r = Rules()
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.pollo_award = 4
    assert r.pollo_award == 5


def test_parse_short_award_name():
    r = Rules.parse("pollo=4")
    assert r.pollo_award == 4
    assert r.changed() == {"pollo_award": 4}
    assert str(r) == "pollo_award=4"


def test_parse_bool_option():
    r = Rules.parse("passebunge_every_pass=false")
    assert r.passebunge_every_pass is False
    assert r.changed() == {"passebunge_every_pass": False}
    assert str(r) == "passebunge_every_pass=false"


@pytest.mark.parametrize(
    "text,value",
    [
        ("true", True),
        ("1", True),
        ("yes", True),
        ("on", True),
        ("TRUE", True),
        ("false", False),
        ("0", False),
        ("no", False),
        ("off", False),
        ("False", False),
    ],
)
def test_parse_bool_spellings(text, value):
    assert Rules.parse(f"opener_leads_double={text}").opener_leads_double is value


def test_parse_comma_lists_and_several_specs():
    r = Rules.parse("pollo=4, ceki=2,penalize_manguno_pass=true", "stones=30")
    assert r.changed() == {
        "stones": 30,
        "ceki_award": 2,
        "pollo_award": 4,
        "penalize_manguno_pass": True,
    }
    assert Rules.parse(["pollo=4", "ceki=2"]) == Rules(pollo_award=4, ceki_award=2)
    assert Rules.parse(None, "") == Rules()
    assert Rules.parse("Pollo-Award = 4") == Rules(pollo_award=4)  # case, dash, spaces


def test_parse_later_value_wins():
    assert Rules.parse("pollo=4,pollo=3").pollo_award == 3


def test_unknown_option_names_it_and_the_known_options():
    with pytest.raises(RulesError) as info:
        Rules.parse("polo=4")
    msg = str(info.value)
    assert "'polo'" in msg
    assert "known options" in msg
    for name in Rules.option_names():
        assert name in msg
    assert isinstance(info.value, DomengError)


@pytest.mark.parametrize(
    "spec,needle",
    [
        ("pollo=abc", "pollo_award must be a whole number"),
        ("pollo=2.5", "pollo_award must be a whole number"),
        ("stones=", "stones must be a whole number"),
        ("opener_leads_double=maybe", "opener_leads_double must be true or false"),
        ("passebunge_every_pass=2", "passebunge_every_pass must be true or false"),
    ],
)
def test_wrong_type(spec, needle):
    with pytest.raises(RulesError, match=needle):
        Rules.parse(spec)


@pytest.mark.parametrize("spec", ["pollo=-1", "pass=-3", "stones=-25"])
def test_negative_value(spec):
    with pytest.raises(RulesError, match="from 0 to"):
        Rules.parse(spec)


def test_huge_value_rejected_with_the_allowed_range():
    with pytest.raises(
        RulesError, match="pollo_award must be a whole number from 0 to 1,000,000,000"
    ):
        Rules.parse("pollo=99999999999999999999999")


def test_zero_stones_rejected_zero_award_allowed():
    with pytest.raises(RulesError, match="stones"):
        Rules.parse("stones=0")
    assert Rules.parse("pollo=0").pollo_award == 0


def test_missing_equals_sign():
    with pytest.raises(RulesError, match="name=value"):
        Rules.parse("pollo")


def test_constructor_validates_types():
    with pytest.raises(RulesError):
        Rules(pollo_award=True)  # a bool is not a count
    with pytest.raises(RulesError):
        Rules(pollo_award="4")
    with pytest.raises(RulesError):
        Rules(opener_leads_double=1)
    with pytest.raises(RulesError):
        Rules().replace(ceki_award=-1)
    assert Rules(pollo_award=np.int64(4)).pollo_award == 4


def test_replace_and_mappings():
    r = Rules().replace(pollo_award=4, penalize_manguno_pass=True)
    assert r.pollo_award == 4 and r.penalize_manguno_pass is True
    assert Rules().pollo_award == 5  # the original is untouched
    assert Rules.from_mapping(r.to_dict()) == r
    assert Rules.from_mapping({"pollo": "4", "opener_leads_double": "false"}) == Rules(
        pollo_award=4, opener_leads_double=False
    )
    with pytest.raises(RulesError):
        Rules.from_mapping({"nonsense": 1})


def test_to_array_indices():
    r = Rules(
        stones=30,
        pass_award=2,
        passebunge_award=3,
        cappu_award=4,
        ceki_award=6,
        pollo_award=7,
        manguno_award=8,
        mattikkeng_award=9,
        mattikkeng_reduced_award=10,
        opener_leads_double=False,
        passebunge_every_pass=False,
        penalize_manguno_pass=True,
    )
    a = r.to_array()
    assert a.dtype == np.int64 and a.shape == (R.N_RULES,) == (12,)
    expected = {
        R.R_STONES: 30,
        R.R_PASS: 2,
        R.R_PASSEBUNGE: 3,
        R.R_CAPPU: 4,
        R.R_CEKI: 6,
        R.R_POLLO: 7,
        R.R_MANGUNO: 8,
        R.R_MATTIKKENG: 9,
        R.R_MATTIKKENG_REDUCED: 10,
        R.R_OPENER_LEADS_DOUBLE: 0,
        R.R_PASSEBUNGE_EVERY_PASS: 0,
        R.R_PENALIZE_MANGUNO_PASS: 1,
    }
    assert sorted(expected) == list(range(12))  # the indices are 0..11, each used once
    for i, v in expected.items():
        assert a[i] == v, i
    d = Rules().to_array()
    assert list(d) == [25, 1, 2, 1, 3, 5, 1, 5, 1, 1, 1, 0]


@given(
    st.fixed_dictionaries({a: st.integers(0, 50) for a in AWARDS}),
    st.integers(1, 200),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_parse_round_trips_str(awards, stones, o1, o2, o3):
    r = Rules(
        stones=stones,
        opener_leads_double=o1,
        passebunge_every_pass=o2,
        penalize_manguno_pass=o3,
        **awards,
    )
    text = str(r)
    assert Rules.parse(None if text == "default rules" else text) == r
