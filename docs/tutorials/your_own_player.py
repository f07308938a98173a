# %% [markdown]
# # Tutorial: writing, testing and ranking your own player
#
# A *player* decides the move of one seat. domeng's built-in players
# (`random`, `heavy`, `keeper`, `hunter`, `expert`, the search players) are
# described in [players.md](../players.md); this tutorial writes a new one,
# tests that it plays by the rules, and ranks it against the built-ins in a
# duplicate tournament and on a ladder.
#
# With `DOMENG_TUTORIAL_SMALL=1` (the test suite sets it) every size is tiny;
# without it the tournament and the ladder take a few minutes. The first run
# compiles the engine and your player with numba (a minute or two, once).

# %%
import os

import numba
import numpy as np

import domeng
from domeng.core.observation import OBS_LEFT, OBS_RIGHT, OBS_SEAT, OBS_VOID
from domeng.core.tiles import TILE_PIPS
from domeng.engine.kernel import ends_after
from domeng.study.ladder import ladder
from domeng.study.tournament import tournament

SMALL = os.environ.get("DOMENG_TUTORIAL_SMALL") == "1"
POSITIONS = 40 if SMALL else 400  # positions for the tests
DEALS = 4 if SMALL else 200  # duplicate deals of the tournament
ROUNDS = 2 if SMALL else 10  # rounds per game
ORDERS = "balanced" if SMALL else "all"  # seating design (players.md)

# %% [markdown]
# ## 1. What a player sees, and what it returns
#
# A compiled player is a function
# `player(obs, hist, moves, n_moves, rng) -> int`:
#
# * `obs` is its seat's observation: its own hand, the open ends, what each
#   seat is known to lack, the stones. It holds nothing another seat hides
#   (D17): the engine builds it, so a player cannot see another hand.
# * `hist` is this round's public history, `moves[:n_moves]` the legal moves
#   (`tile * 2 + end`), and `rng` the seat's own random stream.
# * It returns an index into `moves`. Passes are made by the engine.
#
# Our player, `squeeze`, plays the move after which the next seat is known
# to lack both open ends (it must then pass and pay for it), and otherwise
# the heaviest tile. It asks the engine where the ends will be
# (`ends_after`): the rules live in the engine, a player never re-derives them.

# %%
PIPS = TILE_PIPS.copy()


@numba.njit
def squeeze(obs, hist, moves, n_moves, rng):
    nxt = (obs[OBS_SEAT] + 1) % 5
    lacks = obs[OBS_VOID + nxt]  # bit k set: the next seat has shown it has no k
    best, best_score = 0, -1
    for i in range(n_moves):
        tile, end = moves[i] >> 1, moves[i] & 1
        left, right = ends_after(tile, end, obs[OBS_LEFT], obs[OBS_RIGHT])
        blocked = (lacks >> left) & 1 and (lacks >> right) & 1
        score = 100 * blocked + PIPS[tile]
        if score > best_score:
            best, best_score = i, score
    return best


# %% [markdown]
# ## 2. Testing it
#
# Two properties every player must have, checked on positions from real
# rounds of the reference engine (`domeng.Table`, the readable oracle):
#
# 1. **It only plays legal moves**: it returns an index into the legal moves.
# 2. **It respects D17**: it decides from its own view. We deal the tiles it
#    cannot see (the other hands and the 3 out of play) anew; its observation
#    stays the same, and so must its decision.


# %%
def positions(seed, n):
    """(round, seat) at random points of rounds played by random moves."""
    rs = np.random.default_rng(seed)
    out, game = [], 0
    while len(out) < n:
        rnd = domeng.Table(seed=seed, table_index=game).new_round()
        game += 1
        for _ in range(int(rs.integers(0, 30))):
            if rnd.ended:
                break
            legal = rnd.legal_moves()
            if legal:
                rnd.play(legal[int(rs.integers(len(legal)))])
            else:
                rnd.pass_turn()
        if not rnd.ended and rnd.legal_moves():
            out.append(rnd)
    return out


def decide(rnd):
    obs, hist = rnd.observation(rnd.to_move).to_array()
    legal = rnd.legal_moves()
    moves = np.array([m.tile * 2 + m.end for m in legal], dtype=np.int64)
    return obs, squeeze(obs, hist, moves, len(moves), np.array([7], dtype=np.uint64)), legal


rs = np.random.default_rng(0)
for rnd in positions(seed=11, n=POSITIONS):
    obs, pick, legal = decide(rnd)
    assert 0 <= pick < len(legal), "not a legal move"
    seat = rnd.to_move
    hidden = list(rnd.observation(seat).unseen_tiles())
    rs.shuffle(hidden)
    k = 0
    for s in range(5):
        if s != seat:
            size = len(rnd.hands[s])
            rnd.hands[s] = set(hidden[k : k + size])
            k += size
    obs2, pick2, _ = decide(rnd)
    assert (obs2 == obs).all() and pick2 == pick, "the decision depends on hidden tiles"
print(f"{POSITIONS} positions: legal moves only, the same decision with the hidden tiles redealt")

# %% [markdown]
# A study runs it at full speed in the batch engine, and two runs with one
# seed give the same numbers (it draws nothing at random; a player that does
# must use `rng` with `domeng.core.nbrng.randbelow`).

# %%
lineup = [squeeze, "random", "heavy", "keeper", "hunter"]
a = domeng.simulate(tables=20, rounds=ROUNDS, seed=1, players=lineup, progress=False)
b = domeng.simulate(tables=20, rounds=ROUNDS, seed=1, players=lineup, progress=False)
assert a.summary() == b.summary()  # every estimate, to the last digit
a.win_by_player().query("kind == 'ALL'")[["player", "rate", "ci_low", "ci_high"]]

# %% [markdown]
# ## 3. Ranking it
#
# A win rate depends on the seat and the neighbours. A **duplicate
# tournament** plays the same deals once for every seating of the five
# players, so the luck of the deal and of the seat cancels; players are
# ranked by net stones per round (stones are penalties: lower is better),
# with 95% intervals across deals, and `margins()` gives the paired
# difference between every two players.

# %%
res = tournament(lineup, deals=DEALS, rounds=ROUNDS, seed=1, orders=ORDERS)
print(res.to_text())
m = res.margins()
m[m.a == "squeeze"][["b", "net_diff", "ci_low", "ci_high", "significant"]]

# %% [markdown]
# A **ladder** ranks more than five players: every lineup of five plays the
# same deals. Here `squeeze` meets every heuristic and `expert`.

# %%
lad = ladder(
    [squeeze, "random", "heavy", "keeper", "hunter", "expert"],
    deals=max(2, DEALS // 2),
    rounds=ROUNDS,
    seed=1,
    orders=ORDERS,
)
print(lad.to_text())
assert "squeeze" in set(lad.ranking().player)

# %% [markdown]
# ## Where to go next
#
# * The same on the command line: put `squeeze` in a module `mine.py` and run
#   `PYTHONPATH=. domeng ladder --players mine:squeeze,random,heavy,keeper,hunter,expert --out results/ladder`.
# * A Python object with `choose(obs, moves, rng)` also plays (on the slow
#   reference engine), for prototyping: [players.md](../players.md).
