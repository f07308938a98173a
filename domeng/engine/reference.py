"""The reference engine: the rules of Domeng as plain, readable Python.

This module is the oracle.  Every rule is implemented once, here, in the
order ``docs/rules.md`` states it, with the decision ids (D1..D17) beside the code
that implements them.  The batch engine (:mod:`domeng.engine.kernel`) must agree
with it move by move; the tests replay the same deals and choices through
both.

Two objects:

* :class:`Table` -- one game (D16): five seats, the stones each holds, the
  stones on the table, the CAMAT, the round number and the next starter.
* :class:`Round` -- one round being played at a table: hands, the chain's
  open ends, whose turn it is, and the round's event log.

A round can be dealt at random (D2) from the table's generator, dealt by
hand (``Table.new_round(hands=...)``), or started from any position built by
hand (:meth:`Round.from_position`), so that every worked example of
``docs/rules.md`` can be set up exactly.

Seats are 0..4 and the turn passes from seat ``s`` to ``(s + 1) % 5`` (D1).
A move is ``Move(tile, end)`` with ``end`` LEFT (0) or RIGHT (1) (D5).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from domeng.core.errors import IllegalMoveError, PlayerError
from domeng.core.events import (
    CAPPU,
    CEKI,
    END_NAMES,
    LEFT,
    MANGUNO,
    MATTIKKENG,
    PASS,
    PASSEBUNGE,
    POLLO,
    REASONS,
    RIGHT,
    TABLE,
    render_events,
)
from domeng.core.layout import N_SEATS
from domeng.core.observation import Observation
from domeng.core.rng import SplitMix64
from domeng.core.rules import Rules
from domeng.core.tiles import DOUBLE_OF, N_TILES, is_double, numbers, other_end, pips, tile_str
from domeng.engine.records import Move, RoundResult, Transfer

# ---------------------------------------------------------------------------
# Stone settlement (D7)
# ---------------------------------------------------------------------------


def pay(
    stones: list[int],
    table_stones: int,
    size: int,
    dest: int,
    payers: Sequence[int],
    reason: str,
) -> tuple[int, list[Transfer], int]:
    """Pay an award "up to ``size`` to ``dest``" stone by stone (D7): from the
    table while it has stones, then from each of ``payers`` in order while he
    has any.  Mutates ``stones``; returns the new table count, the transfers
    (one per source that paid) and the part nobody could pay."""
    transfers: list[Transfer] = []
    due = size
    from_table = min(due, table_stones)
    if from_table:
        table_stones -= from_table
        stones[dest] += from_table
        transfers.append(Transfer(TABLE, dest, from_table, reason))
        due -= from_table
    for p in payers:
        if due == 0:
            break
        if p == dest:
            continue  # a seat never pays himself
        given = min(due, stones[p])
        if given:
            stones[p] -= given
            stones[dest] += given
            transfers.append(Transfer(p, dest, given, reason))
            due -= given
    return table_stones, transfers, due


# ---------------------------------------------------------------------------
# Table: one game (D16)
# ---------------------------------------------------------------------------


class Table:
    """One game of Domeng (D16): five seats playing rounds in sequence.

    Stones held, the table's stones, the CAMAT and the next starter carry
    over from round to round.  Deals come from ``rng``, by default the deal
    stream of table ``table_index`` in a study seeded ``seed``; the player at
    seat ``s`` draws only from ``seat_rngs[s]``, its own stream, so that no
    player can learn the deal from its generator (D17; see :mod:`domeng.core.rng`).

    Parameters
    ----------
    rules:
        The rules in force (None: the defaults).
    seed, table_index:
        The study seed and table whose streams the table draws from.
    rng, seat_rngs:
        The deal stream and the five seats' streams, to use instead.

    Examples
    --------
    >>> from domeng import Table
    >>> from domeng.players.registry import make_player
    >>> table = Table(seed=7)
    >>> results = table.play([make_player("random")] * 5, rounds=2)
    >>> [r.kind for r in results], table.rounds_played
    (['CAPPU', 'CAPPU'], 2)
    >>> table.total_stones()  # stones move, none is made or lost
    25
    """

    def __init__(
        self,
        rules: Rules | None = None,
        seed: int = 0,
        table_index: int = 0,
        rng: SplitMix64 | None = None,
        seat_rngs: Sequence[SplitMix64] | None = None,
    ) -> None:
        self.rules = rules if rules is not None else Rules()
        self.rng = rng if rng is not None else SplitMix64.for_table(seed, table_index)
        if seat_rngs is None:
            seat_rngs = [SplitMix64.for_seat(seed, table_index, s) for s in range(N_SEATS)]
        if len(seat_rngs) != N_SEATS:
            raise PlayerError("a table needs 5 seat generators")
        self.seat_rngs = list(seat_rngs)
        self.stones = [0] * N_SEATS
        self.table_stones = self.rules.stones
        self.camat: int | None = None
        self.rounds_played = 0
        self.next_starter: int | None = None  # None: the first round (D3)
        self.round: Round | None = None
        self.history: list[RoundResult] = []

    # -- generators -------------------------------------------------------
    def rng_states(self) -> list[int]:
        """The deal stream's state, then the five seat streams' states."""
        return [self.rng.state] + [r.state for r in self.seat_rngs]

    def set_rng_states(self, states: Sequence[int]) -> None:
        if len(states) != 1 + N_SEATS:
            raise ValueError("6 generator states: the deal stream and one per seat")
        self.rng.state = int(states[0])
        for r, v in zip(self.seat_rngs, states[1:]):
            r.state = int(v)

    # -- invariants -------------------------------------------------------
    def total_stones(self) -> int:
        """Stones on the table plus stones held: ``rules.stones`` always."""
        return self.table_stones + sum(self.stones)

    # -- rounds -----------------------------------------------------------
    def deal(self) -> list[list[int]]:
        """A uniformly random deal (D2): shuffle the 28 tiles (Fisher-Yates
        from the table's generator); seat i gets tiles 5i..5i+4."""
        tiles = list(range(N_TILES))
        self.rng.shuffle(tiles)
        return [sorted(tiles[5 * i : 5 * i + 5]) for i in range(N_SEATS)]

    def new_round(self, hands: Sequence[Iterable[int]] | None = None) -> Round:
        """Start the next round, dealt at random or with the given ``hands``
        (five collections of five tile ids; the other 3 tiles are out of play).

        Returns the :class:`Round`; raises :class:`IllegalMoveError` while a
        round is in progress, or for hands that are not a deal (D2).

        >>> rnd = Table(seed=7).new_round()
        >>> rnd.to_move, rnd.legal_moves()  # D3: the opener leads his double
        (3, [Move(tile=27, end=0)])
        """
        if self.round is not None and not self.round.ended:
            raise IllegalMoveError("the current round has not ended yet")
        if hands is None:
            hands = self.deal()
        dealt = [sorted(int(t) for t in h) for h in hands]
        _check_deal(dealt)
        must_lead = None
        if self.next_starter is None:
            # D3: the first round is opened by the holder of [6|6], else [5|5], [4|4], [3|3].
            starter, double = _first_opener(dealt)
            if self.rules.opener_leads_double:
                must_lead = double
        else:
            starter = self.next_starter  # D4
        self.round = Round(
            self, dealt, starter, must_lead=must_lead, d3_opener=self.next_starter is None
        )
        return self.round

    def play_round(
        self, players: Sequence[PlayerLike], hands: Sequence[Iterable[int]] | None = None
    ) -> RoundResult:
        """Play one whole round with five players (one per seat: objects with
        ``choose``, see :class:`domeng.players.registry.Player`), dealt at
        random or with ``hands``; returns its :class:`RoundResult`.

        >>> from domeng.players.registry import make_player
        >>> Table(seed=7).play_round([make_player("random")] * 5).winner
        0
        """
        if len(players) != N_SEATS:
            raise PlayerError(f"a table needs exactly 5 players, got {len(players)}")
        rnd = self.new_round(hands)
        while not rnd.ended:
            moves = rnd.legal_moves()
            if not moves:
                rnd.pass_turn()
                continue
            seat = rnd.to_move
            move = players[seat].choose(rnd.observation(seat), moves, self.seat_rngs[seat])
            if move not in moves:
                raise PlayerError(f"player at seat {seat} chose an illegal move {move!r}")
            rnd.play(move)
        assert rnd.result is not None
        return rnd.result

    def play(self, players: Sequence[PlayerLike], rounds: int) -> list[RoundResult]:
        """Play ``rounds`` rounds with ``players`` (as :meth:`play_round`);
        returns their results, in order."""
        return [self.play_round(players) for _ in range(rounds)]

    def _finish_round(self, rnd: Round, result: RoundResult) -> None:
        """After a round's stones are settled: CAMAT (D15), next starter (D4)."""
        self.rounds_played += 1
        if (
            result.first_cappu is not None
            and self.table_stones == 0
            and self.stones[result.first_cappu] == 0
        ):
            # D15: the table is empty and the FIRST CAPPU holds no stones -> CAMAT;
            # every stone returns to the table.
            self.camat = result.first_cappu
            result.camat = self.camat
            self.stones = [0] * N_SEATS
            self.table_stones = self.rules.stones
            rnd.events.append(
                {"type": "camat", "seat": self.camat, "table_stones": self.table_stones}
            )
        # D4: the CAMAT starts every round; without one, the round's winner.
        self.next_starter = self.camat if self.camat is not None else result.winner
        self.history.append(result)


def _whole(x: object) -> bool:
    """An int (or numpy integer), not a bool, float or string."""
    import numbers as _n

    return isinstance(x, _n.Integral) and not isinstance(x, bool)


def _check_deal(hands: list[list[int]]) -> None:
    if len(hands) != N_SEATS:
        raise IllegalMoveError(f"a deal has 5 hands, got {len(hands)}")
    seen: set[int] = set()
    for i, h in enumerate(hands):
        if len(h) != 5:
            raise IllegalMoveError(f"seat {i} must be dealt 5 tiles, got {len(h)}")
        for t in h:
            if not 0 <= t < N_TILES:
                raise IllegalMoveError(f"no tile with id {t}")
            if t in seen:
                raise IllegalMoveError(f"tile {tile_str(t)} dealt twice")
            seen.add(t)


def _first_opener(hands: Sequence[Sequence[int]]) -> tuple[int, int]:
    """D3: (seat, double) of the holder of [6|6], else [5|5], [4|4], [3|3]."""
    for n in (6, 5, 4, 3):
        d = int(DOUBLE_OF[n])
        for seat, h in enumerate(hands):
            if d in h:
                return seat, d
    raise IllegalMoveError("no seat holds [6|6], [5|5], [4|4] or [3|3]")  # impossible with 3 out


# ---------------------------------------------------------------------------
# Round: the play of one round
# ---------------------------------------------------------------------------


class Round:
    """One round in play.  Use :meth:`legal_moves`, :meth:`play` and
    :meth:`pass_turn`; read :attr:`events`, :attr:`result`, :meth:`observation`.

    Made by :meth:`Table.new_round` (or :meth:`from_position` for a position
    set up by hand), not directly.

    Examples
    --------
    >>> from domeng import Table
    >>> rnd = Table(seed=7).new_round()
    >>> rnd.play(rnd.legal_moves()[0])  # seat 3 leads [6|6]
    >>> rnd.to_move, (rnd.left, rnd.right)
    (4, (6, 6))
    >>> rnd.observation(4).hand  # seat 4 sees its own hand (D17)
    (2, 6, 19, 23, 25)
    """

    def __init__(
        self,
        table: Table,
        hands: list[list[int]],
        starter: int,
        must_lead: int | None = None,
        *,
        log_deal: bool = True,
        d3_opener: bool = False,
    ) -> None:
        self.table = table
        self.rules = table.rules
        self.hands: list[set[int]] = [set(h) for h in hands]
        dealt = set().union(*self.hands)
        self.out_of_play: set[int] = set(range(N_TILES)) - dealt
        self.starter = starter
        self.number = table.rounds_played + 1
        self.must_lead = must_lead
        # D3, public for the whole round: the starter holds the highest double
        # dealt; with opener_leads_double, which one (it is led first)
        self.d3_opener = d3_opener
        self.d3_double = must_lead
        self.to_move = starter
        self.left: int | None = None
        self.right: int | None = None
        self.chain: list[tuple[int, int, int]] = []  # (seat, tile, end) in order played
        # (seat, tile or None for a pass, end, left, right); the ends are None before the lead
        self.history: list[tuple[int, int | None, int, int | None, int | None]] = []
        self.has_played = [False] * N_SEATS
        self.passebunge_taken = [False] * N_SEATS  # for passebunge_every_pass=False (D6)
        self.last_mappano: int | None = None
        self.passes_since_play = 0
        self.n_passes = 0  # PASS + PASSEBUNGE events
        self.n_passebunge = 0
        self.transfers: list[Transfer] = []
        self.unpaid: dict[str, int] = {r: 0 for r in REASONS}
        self.ended = False
        self.result: RoundResult | None = None
        self.events: list[dict[str, Any]] = []
        if log_deal:
            self.events.append(
                {
                    "type": "deal",
                    "round": self.number,
                    "starter": starter,
                    "hands": [sorted(h) for h in self.hands],
                    "out": sorted(self.out_of_play),
                    "must_lead": must_lead,
                }
            )

    @classmethod
    def from_position(
        cls,
        table: Table,
        hands: Sequence[Iterable[int]],
        to_move: int,
        ends: tuple[int, int] | None = None,
        *,
        last_mappano: int | None = None,
        has_played: Sequence[bool] | None = None,
        passes_since_play: int = 0,
        chain: Sequence[tuple[int, int, int]] = (),
    ) -> Round:
        """A round in a position built by hand (for worked examples and tests).

        ``hands`` may hold fewer than five tiles each; ``ends`` is the open
        ends as a ``(left, right)`` pair (None before the lead).  Stones are
        taken from the table as it stands (set ``table.stones`` and
        ``table.table_stones`` first).  The round's starter is ``to_move``;
        for another, set ``rnd.starter`` on the round returned (public, D3).
        """
        hands_l = [sorted(int(t) for t in h) for h in hands]
        if len(hands_l) != N_SEATS:
            raise IllegalMoveError("a position has 5 hands")
        rnd = cls(table, hands_l, to_move, log_deal=False)
        rnd.to_move = to_move
        rnd.left, rnd.right = (None, None) if ends is None else ends
        rnd.chain = list(chain)
        for seat, t, end in rnd.chain:
            rnd.history.append((seat, t, end, -1, -1))
        rnd.out_of_play -= {t for _, t, _ in rnd.chain}
        rnd.last_mappano = last_mappano
        if has_played is not None:
            rnd.has_played = list(bool(x) for x in has_played)
        elif last_mappano is not None:
            rnd.has_played[last_mappano] = True
        rnd.passes_since_play = passes_since_play
        table.round = rnd
        return rnd

    # -- queries ----------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        """The legal moves of the seat to move (D5), sorted by (tile, end);
        empty when that seat must pass, or when the round has ended.

        On a lead every tile in hand is one move (end LEFT), unless D3 forces
        the first round's double.  Otherwise a tile that fits one end is one
        move; [L|R] with L != R is two moves, one per end; with L == R each
        fitting tile is one move, since both placements leave the same ends.
        """
        if self.ended:
            return []
        hand = self.hands[self.to_move]
        if self.left is None:
            if self.must_lead is not None:
                return [Move(self.must_lead, LEFT)]
            return [Move(t, LEFT) for t in sorted(hand)]
        moves = []
        for t in sorted(hand):
            a, b = numbers(t)
            fits_left = self.left in (a, b)
            fits_right = self.right in (a, b)
            if fits_left:
                moves.append(Move(t, LEFT))
            if fits_right and not (fits_left and self.left == self.right):
                moves.append(Move(t, RIGHT))
        return moves

    def can_play(self, seat: int | None = None) -> bool:
        """Whether ``seat`` (None: the seat to move) holds a tile that fits."""
        seat = self.to_move if seat is None else seat
        if self.left is None:
            return bool(self.hands[seat])
        return any(self.left in numbers(t) or self.right in numbers(t) for t in self.hands[seat])

    def pip_sums(self) -> list[int]:
        """Each seat's pips still in hand (the MATTIKKENG comparison, D14)."""
        return [sum(pips(t) for t in h) for h in self.hands]

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may know now (D17): its own hand and public facts only."""
        if not _whole(seat) or not 0 <= seat < N_SEATS:
            raise IllegalMoveError(f"a seat is 0..{N_SEATS - 1}, got {seat!r}")
        t = self.table
        return Observation(
            seat=seat,
            round=self.number,
            starter=self.starter,
            camat=t.camat,
            table_stones=t.table_stones,
            stones=tuple(t.stones),
            hand_sizes=tuple(len(h) for h in self.hands),
            hand=tuple(sorted(self.hands[seat])),
            left=self.left,
            right=self.right,
            history=tuple(self.history),
            last_mappano=self.last_mappano,
            passes_since_play=self.passes_since_play,
            must_lead=self.must_lead if self.left is None else None,
            has_played=tuple(self.has_played),
            rules=tuple(int(x) for x in self.rules.to_array()),
            d3_opener=self.d3_opener,
            d3_double=self.d3_double,
        )

    # -- actions ----------------------------------------------------------
    def _check_turn(self, seat: int | None) -> None:
        if self.ended:
            raise IllegalMoveError("the round has ended; start a new round")
        if seat is not None and seat != self.to_move:
            raise IllegalMoveError(f"it is seat {self.to_move}'s turn, not seat {seat}'s")

    def play(self, move: Move | tuple[int, int], seat: int | None = None) -> None:
        """Play ``move`` for the seat to move.  An illegal move raises
        :class:`IllegalMoveError` and leaves the state unchanged."""
        self._check_turn(seat)
        try:
            if len(move) != 2 or not all(_whole(x) for x in move):
                raise ValueError(move)  # 3.7 is no tile id: never truncated to 3
            move = Move(int(move[0]), int(move[1]))
        except (TypeError, ValueError, IndexError):
            # bad input is a DomengError (domeng.core.errors), never a bare TypeError
            raise IllegalMoveError(
                f"a move is (tile id, end) with end 0 (left) or 1 (right), got {move!r}"
            ) from None
        legal = self.legal_moves()
        if move not in legal:
            raise IllegalMoveError(self._why_illegal(move, legal))
        s = self.to_move
        t, end = move
        self.hands[s].discard(t)
        if self.left is None:  # the lead
            hi, lo = numbers(t)
            self.left, self.right = hi, lo
            self.must_lead = None
            kind = "lead"
            mappakuling = False  # a lead joins nothing: never a MAPPAKULING
        else:
            assert self.left is not None and self.right is not None  # the chain has ends
            if end == LEFT:
                self.left = other_end(t, self.left)
            else:
                self.right = other_end(t, self.right)
            kind = "play"
            mappakuling = self.left == self.right  # D8, term 7
        self.chain.append((s, t, end))
        self.history.append((s, t, end, self.left, self.right))
        self.has_played[s] = True
        self.last_mappano = s  # terms 4, 5: LAST DOMINO, LAST MAPPANO
        self.passes_since_play = 0
        ev: dict[str, Any] = {"type": kind, "seat": s, "tile": t}
        if kind == "play":
            ev["end"] = END_NAMES[end]
        ev.update(left=self.left, right=self.right)
        if kind == "play":
            ev["mappakuling"] = mappakuling
        self.events.append(ev)
        if not self.hands[s]:
            # D9: FIRST CAPPU ends the round at once (even if the chain is now blocked, D11).
            if mappakuling:
                self._end_cappu(s, POLLO if is_double(t) else CEKI)  # D8
            else:
                self._end_cappu(s, CAPPU)
            return
        self.to_move = (s + 1) % N_SEATS  # D1

    def pass_turn(self, seat: int | None = None) -> None:
        """The seat to move passes.  Allowed only when it has no playable
        tile (D5); raises :class:`IllegalMoveError` otherwise."""
        self._check_turn(seat)
        s = self.to_move
        if self.can_play(s):
            raise IllegalMoveError(f"seat {s} has a playable tile and must play (D5)")
        if s == self.last_mappano:
            # D11: everyone else passed and the LAST MAPPANO cannot play: blocked.
            self._end_block(s)
            return
        # D6: a PASS before the passer's first play in this round is a PASSEBUNGE.
        passebunge = not self.has_played[s]
        if passebunge and not self.rules.passebunge_every_pass and self.passebunge_taken[s]:
            passebunge = False  # option D6: only the first such pass counts
        if passebunge:
            self.passebunge_taken[s] = True
            self.n_passebunge += 1
        self.n_passes += 1
        self.history.append((s, None, LEFT, self.left, self.right))
        self.passes_since_play += 1
        self.events.append(
            {
                "type": "pass",
                "seat": s,
                "passebunge": passebunge,
                "left": self.left,
                "right": self.right,
            }
        )
        # D7 / term 2, 3: up to 1 (2) stones, from the table, then from the LAST MAPPANO.
        reason = PASSEBUNGE if passebunge else PASS
        size = self.rules.passebunge_award if passebunge else self.rules.pass_award
        payers = [self.last_mappano] if self.last_mappano is not None else []
        self._award(size, s, payers, reason)
        self.to_move = (s + 1) % N_SEATS

    def advance(self) -> None:
        """Make every forced pass until a seat has a choice or the round ends."""
        while not self.ended and not self.legal_moves():
            self.pass_turn()

    # -- settlement -------------------------------------------------------
    def _award(self, size: int, dest: int, payers: Sequence[int], reason: str) -> None:
        t = self.table
        t.table_stones, transfers, unpaid = pay(
            t.stones, t.table_stones, size, dest, payers, reason
        )
        self.transfers.extend(transfers)
        self.events.extend(tr.to_dict() for tr in transfers)
        if unpaid:
            self.unpaid[reason] += unpaid
            self.events.append({"type": "unpaid", "reason": reason, "to": dest, "amount": unpaid})

    def _end_cappu(self, s: int, kind: str) -> None:
        """FIRST CAPPU (term 6): the CUCUQ (seat before, D10) gets up to
        1 / 3 (CEKI) / 5 (POLLO); the rest is given by the FIRST CAPPU."""
        cucuq = (s - 1) % N_SEATS
        size = {
            CAPPU: self.rules.cappu_award,
            CEKI: self.rules.ceki_award,
            POLLO: self.rules.pollo_award,
        }[kind]
        self._log_end(
            kind, winner=s, first_cappu=s, cucuq=cucuq, manguno=None, mattikkeng=[], award=size
        )
        self._award(size, cucuq, [s], kind)
        self._close(kind, s, first_cappu=s, cucuq=cucuq, manguno=None, mattikkeng=[])

    def _end_block(self, m: int) -> None:
        """MANGUNO (term 10, D11..D14)."""
        if self.rules.penalize_manguno_pass:
            # D11 option: M's closing pass is a PASS, up to 1 from the table only.
            self.n_passes += 1
            self.history.append((m, None, LEFT, self.left, self.right))
            self.events.append(
                {
                    "type": "pass",
                    "seat": m,
                    "passebunge": False,
                    "left": self.left,
                    "right": self.right,
                }
            )
            self._award(self.rules.pass_award, m, [], PASS)
        else:
            self.history.append((m, None, LEFT, self.left, self.right))
        self.events.append({"type": "block", "seat": m, "left": self.left, "right": self.right})
        sums = self.pip_sums()
        order = [(m + k) % N_SEATS for k in range(1, N_SEATS)]  # turn order after M
        matt = [p for p in order if sums[p] <= sums[m]]  # D12
        if not matt:
            # D13: M wins; the CUCUQ gets up to 1, M gives the rest.
            cucuq = (m - 1) % N_SEATS
            self._log_end(
                MANGUNO,
                winner=m,
                first_cappu=None,
                cucuq=cucuq,
                manguno=m,
                mattikkeng=[],
                award=self.rules.manguno_award,
            )
            self._award(self.rules.manguno_award, cucuq, [m], MANGUNO)
            self._close(MANGUNO, m, first_cappu=None, cucuq=cucuq, manguno=m, mattikkeng=[])
            return
        # D14: the winner is the MATTIKKENG with the lowest sum, ties to the first after M.
        winner = min(matt, key=lambda p: (sums[p], order.index(p)))
        reduced = len(matt) >= 2 or sums[matt[0]] == sums[m]
        size = self.rules.mattikkeng_reduced_award if reduced else self.rules.mattikkeng_award
        self._log_end(
            MATTIKKENG,
            winner=winner,
            first_cappu=None,
            cucuq=None,
            manguno=m,
            mattikkeng=matt,
            award=size,
        )
        payers = [winner] + [p for p in matt if p != winner]
        self._award(size, m, payers, MATTIKKENG)
        self._close(MATTIKKENG, winner, first_cappu=None, cucuq=None, manguno=m, mattikkeng=matt)

    def _log_end(
        self,
        kind: str,
        *,
        winner: int,
        first_cappu: int | None,
        cucuq: int | None,
        manguno: int | None,
        mattikkeng: Iterable[int],
        award: int,
    ) -> None:
        self.events.append(
            {
                "type": "end",
                "kind": kind,
                "winner": winner,
                "first_cappu": first_cappu,
                "cucuq": cucuq,
                "manguno": manguno,
                "mattikkeng": list(mattikkeng),
                "pip_sums": self.pip_sums(),
                "award": award,
            }
        )

    def _close(
        self,
        kind: str,
        winner: int,
        *,
        first_cappu: int | None,
        cucuq: int | None,
        manguno: int | None,
        mattikkeng: Iterable[int],
    ) -> None:
        self.ended = True
        self.result = RoundResult(
            kind=kind,
            winner=winner,
            first_cappu=first_cappu,
            cucuq=cucuq,
            manguno=manguno,
            mattikkeng=list(mattikkeng),
            pip_sums=self.pip_sums(),
            transfers=list(self.transfers),
            unpaid={k: v for k, v in self.unpaid.items() if v},
            camat=None,
            turns=len(self.history),
            tiles_played=len(self.chain),
            passes=self.n_passes,
            passebunge=self.n_passebunge,
        )
        self.table._finish_round(self, self.result)

    def _why_illegal(self, move: Move, legal: list[Move]) -> str:
        s = self.to_move
        t = move.tile
        if not 0 <= t < N_TILES:
            return f"no tile with id {t}"
        if move.end not in (LEFT, RIGHT):
            return "the end must be left (0) or right (1)"
        if t not in self.hands[s]:
            return f"seat {s} does not hold {tile_str(t)}"
        if not legal:
            return f"seat {s} has no playable tile and must pass"
        if self.left is None and self.must_lead is not None:
            return f"the first round must be opened with {tile_str(self.must_lead)} (D3)"
        if self.left is not None:
            a, b = numbers(t)
            end_n = self.left if move.end == LEFT else self.right
            if end_n not in (a, b):
                return (
                    f"{tile_str(t)} does not fit the {END_NAMES[move.end]} end "
                    f"(open ends {self.left} and {self.right})"
                )
            return f"{tile_str(t)} on the left and on the right leave the same ends: play it left"
        return f"{move} is not a legal move"

    # -- text -------------------------------------------------------------
    def to_json(self) -> str:
        """The round's events as JSON (every hand included: not for a seat)."""
        return json.dumps(self.events)

    def describe(self) -> str:
        """The round's events in the game's words, one line each.

        >>> from domeng import Table
        >>> Table(seed=7).new_round().describe().splitlines()[0]
        'round 1: seat 3 starts'
        """
        return render_events(self.events)


class PlayerLike:  # documentation-only protocol; see domeng.players.registry.Player
    def choose(self, obs: Observation, moves: list[Move], rng: SplitMix64) -> Move:
        raise NotImplementedError
