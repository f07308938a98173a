"""Hand-built positions for the player tests: an observation array for one
seat, with the legal moves asked of the engine (never re-derived here)."""

from __future__ import annotations

import numpy as np

from domeng.core.observation import (
    MAX_TURNS,
    OBS_CHAIN,
    OBS_HAND,
    OBS_HAND_SIZE,
    OBS_LAST_MAPPANO,
    OBS_LEFT,
    OBS_LEN,
    OBS_MUST_LEAD,
    OBS_RIGHT,
    OBS_RULES,
    OBS_SEAT,
    OBS_STONES,
    OBS_TABLE,
    OBS_TURN,
    OBS_VOID,
)
from domeng.core.rules import Rules
from domeng.core.tiles import mask_of, tile_id
from domeng.engine import kernel as K


def T(a: int, b: int) -> int:
    return tile_id(a, b)


def position(
    hand,
    left=-1,
    right=-1,
    chain=(),
    seat=0,
    voids=None,
    table=25,
    stones=None,
    hand_sizes=None,
    last_mappano=None,
):
    """``(obs, hist, moves, n)``: seat ``seat`` to move holding ``hand``."""
    obs = np.zeros(OBS_LEN, dtype=np.int64)
    obs[OBS_RULES : OBS_RULES + len(Rules().to_array())] = Rules().to_array()
    obs[OBS_SEAT] = seat
    obs[OBS_HAND] = mask_of(hand)
    obs[OBS_LEFT] = left
    obs[OBS_RIGHT] = right
    obs[OBS_CHAIN] = mask_of(chain)
    obs[OBS_MUST_LEAD] = -1
    obs[OBS_TABLE] = table
    obs[OBS_TURN] = len(chain)
    obs[OBS_LAST_MAPPANO] = -1 if last_mappano is None else last_mappano
    for s in range(5):
        obs[OBS_STONES + s] = 0 if stones is None else stones[s]
        obs[OBS_HAND_SIZE + s] = len(hand) if hand_sizes is None else hand_sizes[s]
        v = 0
        for n in (voids or {}).get(s, ()):
            v |= 1 << n
        obs[OBS_VOID + s] = v
    hist = np.full((MAX_TURNS, 3), -1, dtype=np.int64)
    moves = np.zeros(64, dtype=np.int64)
    n = K.legal_moves(obs[OBS_HAND], obs, moves)
    return obs, hist, moves, n


def after(obs, move):
    """The observation after the seat plays ``move`` (by the engine) and
    whether it was a MAPPAKULING."""
    o = obs.copy()
    hands = np.zeros(5, dtype=np.int64)
    seat = int(o[OBS_SEAT])
    hands[seat] = o[OBS_HAND]
    hist = np.full((MAX_TURNS, 3), -1, dtype=np.int64)
    mk = K.apply_play(o, hist, hands, seat, move, 1)
    o[OBS_HAND] = hands[seat]
    return o, bool(mk)


def scramble(rnd, obs, rs):
    """Deal the tiles the seat to move cannot see differently among the other
    seats (same hand sizes) of the reference round ``rnd``; the seat's
    observation ``obs`` stays the same (D17)."""
    seat = rnd.to_move
    hidden = [t for t in range(28) if t not in obs.hand and t not in obs.chain]
    rs.shuffle(hidden)
    k = 0
    for s in range(5):
        if s != seat:
            size = len(rnd.hands[s])
            rnd.hands[s] = set(hidden[k : k + size])
            k += size
