"""The ``ismcts`` player: information-set Monte Carlo tree search (issue 13).

Single-observer IS-MCTS (Cowling, Powley and Whitehouse, 2012).  In Domeng
every move is public (D17: only the hands and the 3 tiles out of play are
hidden), so the searching seat's information sets after its decision are
exactly the sequences of public actions that follow it: one tree whose
nodes are action histories (a play ``tile * 2 + end`` or a pass) serves as
the tree of the seat's information sets, for every seat's moves.

Each of the ``N`` iterations of ``ismcts-N``:

1. **Determinize.** Deal the tiles the seat cannot see, uniformly among the
   deals consistent with what it knows (D17): every other seat gets its hand
   size and never a tile showing a number it has shown it lacks by passing,
   and in the first round what D3 shows (:mod:`domeng.players.determinize`,
   the one determinizer of every search player).  A fresh deal every
   iteration.
2. **Select** down the tree with the determinized hands: at a node, only the
   actions legal in this determinization are candidates (a pass when no
   play is); each legal child's *availability* count goes up, and UCB1 picks
   ``mean + c * sd * sqrt(ln(availability) / visits)``, the mean taken from
   the point of view of the seat that moves there (every seat minimises its
   own stones).  ``sd`` is the running standard deviation of the rewards
   seen in this decision, so ``c`` (:data:`C_UCT`) does not depend on the
   rules' award sizes.
3. **Expand** one untried legal action (drawn at random) as a new node.
4. **Roll out** the rest of the round with ``expert`` (or ``heavy``)
   players at every seat, through the step API (:mod:`domeng.engine.step`),
   so every rule in force applies: the rollout player of the one search
   core (:func:`domeng.players.searchcore.policy_move`).
5. **Back up** each seat's reward on the path: minus the stones it gained
   by the end of the round (stones are penalties), plus ``CAMAT_BONUS`` if
   the engine makes it CAMAT (D15): the score ``search`` uses
   (:func:`domeng.players.searchcore.seat_value`).

The move played is the root's most visited child (ties: the higher mean,
then the engine's order).  Every random number comes from the seat's
generator (deals and rollouts), so games are reproducible from the seed; the
player reads only its observation and the round's public history.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from domeng.core.nbrng import next64, randbelow
from domeng.core.observation import MAX_TURNS, OBS_RULES, OBS_SEAT
from domeng.core.rules import R_LEN
from domeng.engine import kernel as K
from domeng.engine import step as E
from domeng.players.determinize import draw, new_dealer, prepare
from domeng.players.heuristics import P_EXPERT, P_HEAVY
from domeng.players.scoring import compile_player, runtime_ints
from domeng.players.searchcore import keeps_public_fields, policy_move, seat_value

#: iterations per decision when the name gives no budget
DEFAULT_ITERATIONS = 1000
#: the largest budget a name may ask for (the tree holds one node per iteration)
MAX_ITERATIONS = 200_000
#: the exploration constant, in units of the rewards' standard deviation
C_UCT = 0.7
#: the other seats' moves inside the tree: True, the rollout player's move
#: (an opponent model); False, UCB1 on their own rewards (plain SO-ISMCTS)
MODEL_OTHERS = False
#: the rollout players by name: ``expert`` (tuned, reads hand sizes and voids) or ``heavy``
ROLLOUT_POLICIES = {"expert": P_EXPERT, "heavy": P_HEAVY}


@njit(cache=True, inline="always")
def _new_node(tree, c, parent, a, s):
    """Node ``c``: action ``a`` taken by seat ``s`` at node ``parent``
    (``tree``: the arrays ``action, seat, first, sibling, avail``)."""
    action, seat, first, sibling, avail = tree
    action[c] = a
    seat[c] = s
    sibling[c] = first[parent]
    first[parent] = c
    avail[c] = 1
    return c


@njit(cache=True, inline="always")
def _new_tree(size):
    """The tree of ``size`` nodes, empty (no rule): the arrays ``(action,
    seat, first, sibling, avail, visits, total)``; node 0 is the root."""
    action = np.full(size, -1, dtype=np.int64)
    seat = np.full(size, -1, dtype=np.int64)
    first = np.full(size, -1, dtype=np.int64)
    sibling = np.full(size, -1, dtype=np.int64)
    avail = np.zeros(size, dtype=np.int64)
    visits = np.zeros(size, dtype=np.int64)
    total = np.zeros(size, dtype=np.float64)
    return action, seat, first, sibling, avail, visits, total


@njit(cache=True, inline="always")
def _scale(r_n, r_sum, r_sq):
    """Step 2's scale of exploration: the running standard deviation of the
    rewards seen (1 before two rewards)."""
    sd = 1.0
    if r_n > 1.0:
        var = (r_sq - r_sum * r_sum / r_n) / (r_n - 1.0)
        sd = math.sqrt(var) if var > 1e-9 else 1e-3
    return sd


@njit(cache=True, inline="always")
def _searcher(obs, hist):
    """Step 1's fixed part: the dealer of the tiles the seat cannot see (D17,
    D3) and the rollout state with the round's counters from its public
    history; returns ``(dealer, counters, state)``."""
    dealer = new_dealer()
    if not prepare(obs, dealer):
        raise ValueError("no deal of the unseen tiles is consistent with the observation")
    w0 = np.zeros(K.W_LEN, dtype=np.int64)
    S = E.new_rollout_state(obs[OBS_RULES : OBS_RULES + R_LEN].copy())
    K.counters_from_history(obs, hist, w0)
    return dealer, w0, S


@njit(cache=True, inline="always")
def _most_visited(tree, visits, total, moves, n_moves):
    """The move played: the index into ``moves`` of the root's most visited
    child (ties: the higher mean, then the engine's order)."""
    action, _seat, first, sibling, _avail = tree
    best = 0
    best_v = -1
    best_m = -1e300
    for i in range(n_moves):
        c = first[0]
        while c >= 0 and action[c] != moves[i]:
            c = sibling[c]
        if c < 0:
            continue
        m = total[c] / visits[c]
        if visits[c] > best_v or (visits[c] == best_v and m > best_m):
            best = i
            best_v = visits[c]
            best_m = m
    return best


@njit(cache=True)
def ismcts_core(obs, hist, moves, n_moves, rng, iterations, policy, c_uct, model, pb):
    """The decision of ``ismcts``: an index into ``moves`` (see the module
    docstring).  ``policy``: the rollout player's built-in id; ``model``:
    True for the other seats to play the rollout player's move in the tree
    too (an opponent model), False for UCB1 at every seat's node.  ``pb > 0``
    (progressive bias, a research variant): at each node the rollout
    player's move in this deal is expanded first, and UCB1 gives it
    ``pb * sd / (visits + 1)`` more.  The descent stays here (helpers taking
    its arrays ran 2-12% more instructions); the rest are inline helpers."""
    if n_moves == 1:
        return 0
    me = obs[OBS_SEAT]
    # the tree: node 0 is the root (the seat to move is ``me``); a node is the
    # action that leads to it from its parent, taken by ``seat``
    action, seat, first, sibling, avail, visits, total = _new_tree(iterations + 1)
    tree = (action, seat, first, sibling, avail)
    n_nodes = 1
    path = np.zeros(MAX_TURNS + 2, dtype=np.int64)
    legal = np.zeros(64, dtype=np.int64)
    kids = np.zeros(64, dtype=np.int64)
    reward = np.zeros(5, dtype=np.float64)
    hands = np.zeros(5, dtype=np.int64)
    s_rng = np.zeros(1, dtype=np.uint64)
    dealer, w0, S = _searcher(obs, hist)
    full = 1 if keeps_public_fields(policy) else 0
    # running moments of the rewards, for the scale of exploration
    r_n = r_sum = r_sq = 0.0
    for _it in range(iterations):
        # step 1: determinize (D17, D3: the one determinizer)
        draw(obs, dealer, rng, hands)
        E.set_position(S, obs, w0, hands)
        S.ctl[E.C_FULL] = full
        s_rng[0] = next64(rng)
        sd = _scale(r_n, r_sum, r_sq)
        node = depth = 0
        path[0] = 0
        in_tree = True
        ended = 0
        while in_tree and not ended:  # step 2: select down the tree
            n = E.legal_moves(S)
            s = S.ctl[E.C_SEAT]
            if n == 0:  # the candidates: this deal's legal actions (a pass: D6)
                legal[0] = E.PASS
                n = 1
            else:
                for i in range(n):
                    legal[i] = S.moves[i]
            n_untried = 0
            for i in range(n):
                c = first[node]
                while c >= 0 and action[c] != legal[i]:
                    c = sibling[c]
                kids[i] = c
                if c < 0:
                    n_untried += 1
                else:  # a tried child: its availability up
                    avail[c] += 1
            if model and s != me:  # the other seats play the rollout player's move
                a = policy_move(S, n if legal[0] != E.PASS else 0, policy, s_rng)
                c = -1
                for i in range(n):
                    if legal[i] == a:
                        c = kids[i]
                if c < 0:
                    c = _new_node(tree, n_nodes, node, a, s)
                    n_nodes += 1
                    in_tree = False
            elif n_untried > 0:  # step 3: expand
                a = -1
                if pb > 0.0:  # the rollout player's move first, if untried
                    pref = policy_move(S, n if legal[0] != E.PASS else 0, policy, s_rng)
                    for i in range(n):
                        if kids[i] < 0 and legal[i] == pref:
                            a = pref
                if a < 0:
                    j = randbelow(s_rng, n_untried) if n_untried > 1 else 0
                    for i in range(n):
                        if kids[i] < 0:
                            if j == 0:
                                a = legal[i]
                                break
                            j -= 1
                c = _new_node(tree, n_nodes, node, a, s)
                n_nodes += 1
                in_tree = False
            else:  # UCB1
                pref = -2
                if pb > 0.0 and n > 1:
                    pref = policy_move(S, n if legal[0] != E.PASS else 0, policy, s_rng)
                best_u = -1e300
                c = kids[0]
                for i in range(n):
                    k = kids[i]
                    explore = c_uct * sd * math.sqrt(math.log(avail[k]) / visits[k])
                    u = total[k] / visits[k] + explore
                    if legal[i] == pref:
                        u += pb * sd / (visits[k] + 1.0)
                    if u > best_u:
                        best_u = u
                        c = k
                a = action[c]
            depth += 1
            path[depth] = c
            node = c
            ended = E.step(S, a)
        while not ended:  # step 4: roll out the rest of the round
            ended = E.step(S, policy_move(S, E.legal_moves(S), policy, s_rng))
        # step 5: back up each seat's reward (its stones, D15's CAMAT bonus)
        for p in range(5):
            reward[p] = seat_value(S, obs, p)
        for d in range(1, depth + 1):
            c = path[d]
            visits[c] += 1
            total[c] += reward[seat[c]]
        r = reward[me]
        r_n += 1.0
        r_sum += r
        r_sq += r * r
    return _most_visited(tree, visits, total, moves, n_moves)


_MADE: dict[tuple[int, int, float, bool, float], object] = {}


def make_ismcts_strategy(
    iterations: int | None = None,
    rollout: str = "expert",
    c_uct: float = C_UCT,
    model: bool = MODEL_OTHERS,
    pb: float = 0.0,
):
    """The ``ismcts`` player with ``iterations`` per decision (default
    :data:`DEFAULT_ITERATIONS`), ``rollout`` players (``expert`` or
    ``heavy``), exploration constant ``c_uct``, with ``model`` the
    other seats playing the rollout player's move inside the tree too, and
    with ``pb > 0`` a progressive bias towards the rollout player's moves
    (see :func:`ismcts_core`), compiled for the player signature."""
    n = DEFAULT_ITERATIONS if iterations is None else int(iterations)
    if not 1 <= n <= MAX_ITERATIONS:
        raise ValueError(f"iterations must be from 1 to {MAX_ITERATIONS}")
    if rollout not in ROLLOUT_POLICIES:
        raise ValueError(
            f"unknown rollout player {rollout!r}; choose one of {', '.join(ROLLOUT_POLICIES)}"
        )
    policy = ROLLOUT_POLICIES[rollout]
    c = float(c_uct)
    m = bool(model)
    bias = float(pb)
    if not bias >= 0.0:
        raise ValueError("pb must be >= 0")
    key = (n, policy, c, m, bias)
    if key not in _MADE:
        ints = runtime_ints(n, policy, int(m))
        floats = np.array([c, bias])

        def strategy(obs, hist, moves, n_moves, rng):
            return ismcts_core(
                obs, hist, moves, n_moves, rng, ints[0], ints[1], floats[0], ints[2] != 0, floats[1]
            )

        strategy.__name__ = f"ismcts_{n}" + (
            ""
            if (rollout, c, m, bias) == ("expert", C_UCT, MODEL_OTHERS, 0.0)
            else f"_{rollout}_c{c:g}_{'model' if m else 'uct'}_pb{bias:g}"
        )
        _MADE[key] = compile_player(strategy)
    return _MADE[key]


__all__ = ["C_UCT", "DEFAULT_ITERATIONS", "MAX_ITERATIONS", "ismcts_core", "make_ismcts_strategy"]
