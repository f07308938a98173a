"""The one determinizer (:mod:`domeng.players.determinize`, issue 21 item 4).

What is checked:

* the D3 fix: in a first round whose opener had to lead [4|4], no seat is
  ever dealt [6|6] or [5|5] (they are out of play); with the option that
  lets the opener lead any tile only the opener may hold them (D3 still
  picks the holder of the highest double); in a later round (D4) any seat;
* properties on positions of real games (hypothesis): hand sizes exact,
  voids respected, the own hand and the chain untouched, the 28 tiles
  conserved, reproducible from the generator's state;
* the count and the uniformity against a brute-force enumeration of every
  consistent deal, written here from the rules (D3, D17) and not from the
  module's algorithm.
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from domeng.core.observation import (
    OBS_CHAIN,
    OBS_D3_DOUBLE,
    OBS_D3_OPENER,
    OBS_HAND,
    OBS_HAND_SIZE,
    OBS_LEN,
    OBS_PLAYED_BY,
    OBS_SEAT,
    OBS_STARTER,
    OBS_VOID,
)
from domeng.core.rules import Rules
from domeng.core.tiles import DOUBLE_OF, NUMBER_MASK, TILE_HIGH, TILE_LOW, mask_of, tile_id
from domeng.engine.reference import Table
from domeng.players.determinize import count, determinize, draw, new_dealer, prepare

ALL = (1 << 28) - 1
D66, D55, D44 = tile_id(6, 6), tile_id(5, 5), tile_id(4, 4)


def _bits(m: int) -> list[int]:
    return [t for t in range(28) if (m >> t) & 1]


def _hands_without(excluded, opener_double, opener=2, seed=0):
    """Five hands of five tiles: none of ``excluded`` dealt (they are out of
    play, with one more tile), ``opener_double`` in seat ``opener``'s hand."""
    rest = [t for t in range(28) if t not in excluded and t != opener_double]
    np.random.default_rng(seed).shuffle(rest)
    others = iter(rest[4:24])
    return [
        [opener_double, *rest[:4]] if s == opener else [next(others) for _ in range(5)]
        for s in range(5)
    ]


def _after_lead(rules, excluded, lead, observer, later=False):
    """The observation of ``observer`` right after the starter leads
    ``lead`` (dealt to it, ``excluded`` out of play), in the first round (or
    the second, ``later``); and the starter."""
    table = Table(rules, seed=1)
    opener = 2
    if later:  # play a first round out, then deal the second
        rs = np.random.default_rng(0)
        rnd = table.new_round()
        while not rnd.ended:
            moves = rnd.legal_moves()
            if moves:
                rnd.play(moves[int(rs.integers(len(moves)))])
            else:
                rnd.pass_turn()
        opener = table.next_starter  # D4
    rnd = table.new_round(_hands_without(excluded, lead, opener))
    starter = rnd.to_move
    assert starter == opener
    rnd.play((lead, 0))
    obs, _ = rnd.observation(observer).to_array()
    return obs, starter


def _holders(obs, tile, n=3000, seed=9):
    """The seats holding ``tile`` over ``n`` deals (5: out of play)."""
    rng = np.array([seed], dtype=np.uint64)
    hands = np.zeros(5, dtype=np.int64)
    d = new_dealer()
    assert prepare(obs, d)
    seen = set()
    for _ in range(n):
        draw(obs, d, rng, hands)
        held = [p for p in range(5) if (int(hands[p]) >> tile) & 1]
        seen.add(held[0] if held else 5)
    return seen


def test_D3_a_led_four_double_puts_the_higher_doubles_out_of_play():
    """D3: the opener had to lead its highest double; it led [4|4], so
    neither [6|6] nor [5|5] was dealt: no deal puts them in a hand."""
    for observer in (0, 3, 4):
        obs, starter = _after_lead(Rules(), {D66, D55}, D44, observer)
        assert starter == 2 and obs[OBS_D3_OPENER] == 1 and obs[OBS_D3_DOUBLE] == D44
        assert _holders(obs, D66) == {5}
        assert _holders(obs, D55) == {5}


def test_D3_before_the_lead_the_opener_holds_the_double():
    """Before the lead the opener's double is in the opener's hand in every
    deal, and the higher doubles out of play (the observation names it,
    ``OBS_D3_DOUBLE``)."""
    hands = _hands_without({D66, D55}, D44)
    rnd = Table(Rules(), seed=1).new_round(hands)
    obs, _ = rnd.observation(0).to_array()
    assert obs[OBS_D3_DOUBLE] == D44
    assert _holders(obs, D44) == {2}
    assert _holders(obs, D66) == {5} and _holders(obs, D55) == {5}


def test_D3_with_any_lead_no_higher_double_is_known_out_of_play():
    """The option lets the opener lead any tile, so a led [4|4] puts no
    double out of play: [6|6] and [5|5] may be dealt.  D3 still made the
    holder of the highest double the opener, so in every deal the highest
    double dealt is the opener's: [6|6] is in its hand or out of play, and
    [5|5] is in another seat's hand only when the opener holds [6|6]."""
    rules = Rules(opener_leads_double=False)
    obs, starter = _after_lead(rules, {D66, D55}, D44, 0)
    assert obs[OBS_D3_OPENER] == 1 and obs[OBS_D3_DOUBLE] == -1
    rng = np.array([4], dtype=np.uint64)
    hands = np.zeros(5, dtype=np.int64)
    d = new_dealer()
    assert prepare(obs, d)
    seen = set()
    for _ in range(3000):
        draw(obs, d, rng, hands)
        at = {t: next((p for p in range(5) if (int(hands[p]) >> t) & 1), 5) for t in (D66, D55)}
        assert at[D66] in (starter, 5)
        if at[D66] == 5:
            assert at[D55] in (starter, 5)
        seen.add((at[D66], at[D55]))
    assert (starter, 5) in seen and (5, starter) in seen  # dealt: no exclusion
    assert any(a == starter and b not in (starter, 5) for a, b in seen)


def test_D3_does_not_apply_in_later_rounds():
    """D4: in a later round the starter is not the holder of the highest
    double, so a led [4|4] leaves [6|6] to any seat that has not passed."""
    for observer in range(5):
        obs, starter = _after_lead(Rules(), {D66, D55}, D44, observer, later=True)
        if observer != starter:
            break
    assert obs[OBS_D3_OPENER] == 0 and obs[OBS_D3_DOUBLE] == -1
    others = {p for p in range(5) if p != obs[OBS_SEAT]}
    assert _holders(obs, D66) == others | {5}


# ---------------------------------------------------------------- properties
def _random_positions(seed, rules, n=3):
    """Observations of the seat to move at random points of random games
    (the first round and later ones), random moves: passes are common."""
    rs = np.random.default_rng(seed)
    out = []
    table = Table(rules, seed=seed)
    while len(out) < n:
        rnd = table.new_round()
        stop = int(rs.integers(0, 30))
        k = 0
        while not rnd.ended:
            if k == stop:
                out.append(rnd.observation(rnd.to_move).to_array()[0])
            moves = rnd.legal_moves()
            if moves:
                rnd.play(moves[int(rs.integers(len(moves)))])
            else:
                rnd.pass_turn()
            k += 1
    return out


def _check(obs, hands):
    me = int(obs[OBS_SEAT])
    chain = int(obs[OBS_CHAIN])
    assert hands[me] == obs[OBS_HAND]  # the own hand untouched
    union = 0
    for p in range(5):
        h = int(hands[p])
        assert bin(h).count("1") == obs[OBS_HAND_SIZE + p]  # hand sizes exact
        assert union & h == 0 and h & chain == 0  # no tile twice, the chain untouched
        union |= h
        for n in range(7):  # voids respected (D17)
            if (int(obs[OBS_VOID + p]) >> n) & 1:
                assert h & int(NUMBER_MASK[n]) == 0
    out = ALL & ~union & ~chain
    assert bin(union).count("1") + bin(chain).count("1") + bin(out).count("1") == 28
    assert bin(out).count("1") == 3  # out of play: the other 3 tiles
    return out


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), any_lead=st.booleans())
def test_deals_are_consistent_and_reproducible(seed, any_lead):
    rules = Rules(opener_leads_double=not any_lead)
    for obs in _random_positions(seed, rules):
        before = obs.copy()
        rng = np.array([seed + 7], dtype=np.uint64)
        hands = np.zeros(5, dtype=np.int64)
        deals = []
        for _ in range(10):
            assert determinize(obs, rng, hands)
            _check(obs, hands)
            deals.append(hands.copy())
        np.testing.assert_array_equal(obs, before)  # the observation untouched
        rng2 = np.array([seed + 7], dtype=np.uint64)  # the same state: the same deals
        again = np.zeros(5, dtype=np.int64)
        for d in deals:
            assert determinize(obs, rng2, again)
            np.testing.assert_array_equal(again, d)
        assert rng2[0] == rng[0]


# ---------------------------------------------------------------- uniformity
def _consistent(obs, hands, out):
    """Is the deal (``hands`` of the others, ``out`` out of play) consistent
    with ``obs``?  Written from the rules: the dealt hands are the current
    ones plus the tiles each seat played; D3 (``OBS_D3_OPENER``): the
    highest of [6|6], [5|5], [4|4], [3|3] dealt is the starter's, and the
    one it must lead or led (``OBS_D3_DOUBLE``) if named."""
    me = int(obs[OBS_SEAT])
    for p in range(5):
        if len(hands[p]) != obs[OBS_HAND_SIZE + p]:
            return False
        for t in hands[p]:
            if (int(obs[OBS_VOID + p]) >> int(TILE_HIGH[t])) & 1:
                return False
            if (int(obs[OBS_VOID + p]) >> int(TILE_LOW[t])) & 1:
                return False
    if obs[OBS_D3_OPENER]:
        dealt = [set(hands[p]) | set(_bits(int(obs[OBS_PLAYED_BY + p]))) for p in range(5)]
        dealt[me] |= set(_bits(int(obs[OBS_HAND])))
        top = next(int(DOUBLE_OF[n]) for n in range(6, 2, -1) if int(DOUBLE_OF[n]) not in out)
        if top not in dealt[int(obs[OBS_STARTER])]:
            return False
        if obs[OBS_D3_DOUBLE] >= 0 and top != obs[OBS_D3_DOUBLE]:
            return False
    return True


def _enumerate(obs):
    """Every consistent deal, as a tuple of 5 frozensets (the observer's own)."""
    me = int(obs[OBS_SEAT])
    unseen = _bits(ALL & ~int(obs[OBS_HAND]) & ~int(obs[OBS_CHAIN]))
    seats = [p for p in range(5) if p != me]
    sizes = [int(obs[OBS_HAND_SIZE + p]) for p in seats]
    deals = []

    def rec(k, rest, acc):
        if k == len(seats):
            hands = {me: _bits(int(obs[OBS_HAND]))}
            hands.update(dict(zip(seats, acc, strict=True)))
            if _consistent(obs, hands, set(rest)):
                deals.append(tuple(frozenset(hands[p]) for p in range(5)))
            return
        for pick in itertools.combinations(rest, sizes[k]):
            rec(k + 1, [t for t in rest if t not in pick], [*acc, pick])

    rec(0, unseen, [])
    return deals


def _small(seed, d3, led):
    """A hand-built late position: seat 0 holds 1 tile, the others 1, 1, 2
    and 0 tiles, 3 out of play, the rest on the chain, played by random
    seats (the starter, seat 1, played ``led`` if given); random voids."""
    rs = np.random.default_rng(seed)
    tiles = list(range(28))
    rs.shuffle(tiles)
    if led is not None:
        tiles.remove(led)
    obs = np.zeros(OBS_LEN, dtype=np.int64)
    sizes = [1, 1, 1, 2, 0]
    obs[OBS_SEAT] = 0
    obs[OBS_STARTER] = 1
    obs[OBS_HAND] = mask_of(tiles[:1])
    n_unseen = sum(sizes[1:]) + 3
    chain = tiles[1 + n_unseen :] + ([led] if led is not None else [])
    obs[OBS_CHAIN] = mask_of(chain)
    for t in chain:
        p = 1 if t == led else int(rs.integers(5))
        obs[OBS_PLAYED_BY + p] |= 1 << t
    for p in range(5):
        obs[OBS_HAND_SIZE + p] = sizes[p]
        if p and rs.random() < 0.5:
            obs[OBS_VOID + p] = 1 << int(rs.integers(7))
    obs[OBS_D3_OPENER] = int(d3)
    obs[OBS_D3_DOUBLE] = -1 if led is None else led
    return obs


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    case=st.sampled_from([(False, None), (True, None), (True, D44), (True, tile_id(3, 3))]),
)
def test_the_count_is_the_number_of_consistent_deals(seed, case):
    obs = _small(seed, *case)
    deals = _enumerate(obs)
    assert count(obs, new_dealer()) == len(deals)
    if deals:  # every drawn deal is one of them
        rng = np.array([seed], dtype=np.uint64)
        hands = np.zeros(5, dtype=np.int64)
        valid = set(deals)
        for _ in range(20):
            assert determinize(obs, rng, hands)
            assert tuple(frozenset(_bits(int(h))) for h in hands) in valid


def test_deals_are_uniform_among_the_consistent_ones():
    """Chi-square of the drawn deals' frequencies against the uniform
    distribution over the enumerated consistent deals, with a fixed seed and
    a bound of the expected value plus 8 standard deviations (so it cannot
    fail by luck); a D3 case with two possible highest doubles and voids,
    and a case without D3."""
    checked = 0
    for seed, d3, led in ((3, True, None), (5, False, None), (11, True, None)):
        obs = _small(seed, d3, led)
        deals = _enumerate(obs)
        if len(deals) < 10:
            continue
        index = {deal: i for i, deal in enumerate(deals)}
        k = len(deals)
        n = 200 * k
        freq = np.zeros(k)
        rng = np.array([12345], dtype=np.uint64)
        hands = np.zeros(5, dtype=np.int64)
        d = new_dealer()
        assert prepare(obs, d)
        for _ in range(n):
            draw(obs, d, rng, hands)
            freq[index[tuple(frozenset(_bits(int(h))) for h in hands)]] += 1
        expected = n / k
        chi2 = float(((freq - expected) ** 2 / expected).sum())
        df = k - 1
        assert chi2 < df + 8 * np.sqrt(2 * df), (seed, k, chi2)
        assert freq.min() > 0
        checked += 1
    assert checked >= 2


def test_a_biased_sampler_would_fail_the_uniformity_check():
    """The check above can fail: the frequencies of a sampler that prefers
    one deal twice as much give a chi-square far above the bound."""
    k = 60
    n = 200 * k
    p = np.ones(k)
    p[0] = 2.0
    p /= p.sum()
    freq = np.random.default_rng(0).multinomial(n, p)
    chi2 = float(((freq - n / k) ** 2 / (n / k)).sum())
    assert chi2 > (k - 1) + 8 * np.sqrt(2 * (k - 1))
