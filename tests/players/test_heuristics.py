"""What each heuristic player actually does, on hand-built positions (issue 9).

The agreement tests run the same compiled strategy in both engines, so a
scoring bug could hide there; these tests state each player's intent and
check it against the engine's own answers (legal moves, the ends after a
move, MAPPAKULING), never against the player's arithmetic.
"""

from __future__ import annotations

import numpy as np
from _positions import T, after, position

from domeng.core.defaults import PLAYER_IDS
from domeng.core.observation import OBS_HAND, OBS_LEFT, OBS_RIGHT
from domeng.core.tiles import TILE_PIPS, mask_of, tiles_of
from domeng.engine import kernel as K
from domeng.engine.kernel import ends_after
from domeng.players.heuristics import builtin_choose


def choose(name, obs, hist, moves, n, seed=1):
    rng = np.array([seed], dtype=np.uint64)
    return int(moves[builtin_choose(PLAYER_IDS[name], obs, hist, moves, n, rng)])


def options_after(obs, move):
    """Tiles of the rest of the hand that the engine says fit after ``move``."""
    o, _ = after(obs, move)
    moves = np.zeros(64, dtype=np.int64)
    n = K.legal_moves(o[OBS_HAND], o, moves)
    return len({int(m) >> 1 for m in moves[:n]})


def sets_up_mappakuling(obs, move):
    """True if, after ``move``, the seat's one remaining tile can be played as
    a MAPPAKULING (CEKI or POLLO) on the engine's ends."""
    o, _ = after(obs, move)
    if len(tiles_of(int(o[OBS_HAND]))) != 1:
        return False
    moves = np.zeros(64, dtype=np.int64)
    n = K.legal_moves(o[OBS_HAND], o, moves)
    return any(after(o, int(m))[1] for m in moves[:n])


def test_ends_after_is_the_engines_arithmetic():
    """The ends_after the players ask equals what the engine's apply_play
    leaves, for every tile, end and pair of open ends (and the lead)."""
    for t in range(28):
        for left in range(-1, 7):
            for right in [-1] if left < 0 else range(7):
                obs, _, moves, n = position([t], left, right)
                for m in moves[:n]:
                    o, _ = after(obs, int(m))
                    got = ends_after(int(m) >> 1, int(m) & 1, left, right)
                    assert got == (o[OBS_LEFT], o[OBS_RIGHT])


def test_heavy_sheds_the_highest_pip_sum():
    obs, hist, moves, n = position([T(6, 5), T(1, 0), T(3, 2)], left=5, right=0)
    assert choose("heavy", obs, hist, moves, n) >> 1 == T(6, 5)
    # on a lead: the heaviest tile in hand
    obs, hist, moves, n = position([T(2, 2), T(6, 4), T(5, 0), T(3, 1)])
    assert choose("heavy", obs, hist, moves, n) >> 1 == T(6, 4)


def test_heavy_breaks_a_tie_at_random_among_the_heaviest_only():
    obs, hist, moves, n = position([T(6, 1), T(5, 2), T(4, 3), T(1, 0)], left=1, right=2)
    picked = {choose("heavy", obs, hist, moves, n, seed=s) >> 1 for s in range(1, 60)}
    fitting = {int(m) >> 1 for m in moves[:n]}
    top = max(TILE_PIPS[t] for t in fitting)
    assert picked == {t for t in fitting if TILE_PIPS[t] == top}


def test_heavy_property_always_a_heaviest_legal_tile():
    for seed in range(200):
        rs = np.random.default_rng(seed)
        obs, hist, moves, n = _random_position(rs)
        t = choose("heavy", obs, hist, moves, n, seed=seed + 1) >> 1
        assert TILE_PIPS[t] == max(TILE_PIPS[int(m) >> 1] for m in moves[:n])


def test_keeper_keeps_the_numbers_that_give_it_options():
    # ends 2 and 3: [6|2] is the heaviest, but leaves only [3|1] playable on
    # (6, 3); [3|1] on the right leaves (2, 1), where all three others fit
    hand = [T(6, 2), T(3, 1), T(1, 1), T(4, 1)]
    obs, hist, moves, n = position(hand, left=2, right=3)
    assert choose("heavy", obs, hist, moves, n) >> 1 == T(6, 2)
    move = choose("keeper", obs, hist, moves, n)
    assert move >> 1 == T(3, 1)
    assert options_after(obs, move) == 3


def test_keeper_property_most_options_then_heaviest():
    for seed in range(200):
        rs = np.random.default_rng(seed)
        obs, hist, moves, n = _random_position(rs)
        move = choose("keeper", obs, hist, moves, n, seed=seed + 1)
        opts = {int(m): options_after(obs, int(m)) for m in moves[:n]}
        assert opts[move] == max(opts.values())
        best = [m for m in opts if opts[m] == opts[move]]
        assert TILE_PIPS[move >> 1] == max(TILE_PIPS[m >> 1] for m in best)


def test_hunter_goes_for_a_mappakuling_with_its_last_tile():
    # ends 6 and 1, hand [6|1] and [1|1]: [6|1] on the left leaves (1, 1), where
    # [1|1] then makes a POLLO; on the right it leaves (6, 6), where [1|1]
    # cannot even be played; [1|1] on the right leaves (6, 1) for a CEKI.
    obs, hist, moves, n = position([T(6, 1), T(1, 1)], left=6, right=1)
    heavy = {choose("heavy", obs, hist, moves, n, seed=s) for s in range(1, 40)}
    hunter = {choose("hunter", obs, hist, moves, n, seed=s) for s in range(1, 40)}
    assert heavy == {T(6, 1) * 2, T(6, 1) * 2 + 1}  # the heavier tile, either end
    assert not sets_up_mappakuling(obs, T(6, 1) * 2 + 1)
    assert hunter == {T(6, 1) * 2}  # the setting-up move that also sheds most
    assert all(sets_up_mappakuling(obs, m) for m in hunter)


def test_hunter_property_sets_up_a_mappakuling_whenever_it_can():
    for seed in range(300):
        rs = np.random.default_rng(seed)
        obs, hist, moves, n = _random_position(rs, hand_size=2)
        can = [int(m) for m in moves[:n] if sets_up_mappakuling(obs, int(m))]
        move = choose("hunter", obs, hist, moves, n, seed=seed + 1)
        assert (move in can) == bool(can)


def test_hunter_avoids_giving_the_next_seat_an_easy_play():
    # seat 0 to move on ends 6 and 2; [2|5] (7 pips) on the right leaves
    # (6, 5), both numbers seat 1 has shown it lacks by passing: seat 1 must
    # PASS (the table pays its stone).  [6|1] (7 pips) on the left leaves (1, 2).
    hand = [T(2, 5), T(6, 1), T(0, 0)]
    obs, hist, moves, n = position(hand, left=6, right=2, voids={1: (6, 5)})
    for seed in range(1, 20):
        assert choose("hunter", obs, hist, moves, n, seed=seed) == T(2, 5) * 2 + 1
    # no voids known: it leaves ends whose numbers are mostly seen already
    # (fewer unseen tiles that fit, for the next seat).  Number 3 is nearly
    # used up; [2|3] (5 pips) on the left leaves (3, 6) and [4|1] (5 pips) on
    # the right leaves (2, 1).
    chain = [T(3, 3), T(3, 0), T(3, 1), T(3, 5), T(6, 0)]
    obs, hist, moves, n = position([T(2, 3), T(4, 1), T(0, 0)], left=2, right=4, chain=chain)
    unseen_fitting = {}
    for m in moves[:n]:
        o, _ = after(obs, int(m))
        seen = int(o[OBS_HAND]) | mask_of(chain) | (1 << (int(m) >> 1))
        nm = np.zeros(64, dtype=np.int64)
        unseen_fitting[int(m)] = sum(
            1
            for t in range(28)
            if not (seen >> t) & 1 and K.legal_moves(np.int64(1) << t, o, nm) > 0
        )
    for seed in range(1, 20):
        move = choose("hunter", obs, hist, moves, n, seed=seed)
        assert move == T(3, 2) * 2 + 0
        assert unseen_fitting[move] == min(unseen_fitting.values())


def _random_position(rs, hand_size=None):
    """A random mid-round position with at least one legal move."""
    while True:
        perm = rs.permutation(28)
        k = int(hand_size or rs.integers(1, 6))
        hand = [int(x) for x in perm[:k]]
        chain = [int(x) for x in perm[k : k + int(rs.integers(1, 10))]]
        left, right = int(rs.integers(0, 7)), int(rs.integers(0, 7))
        obs, hist, moves, n = position(
            hand, left, right, chain=chain, table=int(rs.integers(0, 26))
        )
        if n > 0:
            return obs, hist, moves, n
