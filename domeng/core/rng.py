"""The random number generator shared by both engines.

Both the reference engine and the batch engine draw from the same generator,
in the same order, so a table's whole history is a function of
``(seed, table index)`` alone (issue: reproducibility) and the two engines
can be compared move by move.

Generator: SplitMix64 (Steele, Lea and Flood 2014; the seeding generator of
xoshiro), one 64-bit word of state per table.  The state of table ``t`` of a
study with seed ``s`` starts at ``mix64(mix64(s + GAMMA) ^ (t * 0xD1B54A32D192ED03 + 1))``.
Each draw adds ``GAMMA`` to the state and returns ``mix64(state)``.  Integers
below ``n`` are drawn from the upper 32 bits by Lemire's nearly-divisionless
method, with rejection, so they are exactly uniform.

Each table has six streams: the *deal stream* (``table_state``), from which
the deals are drawn (D2), and one *seat stream* per seat (``seat_state``),
which is the only generator that seat's player ever gets.  A player cannot
learn anything about the deal, or about another player's draws, from its own
generator (D17): the streams start at unrelated points, derived through
``mix64`` from ``(seed ^ SEAT_SALT, 5 * table + seat)``.

All tables lie on the one SplitMix64 cycle of length 2**64 at pseudo-random
starting points; the chance that two of T tables that each draw N numbers
overlap is about T*T*N / 2**64 (1e5 tables x 4e4 draws: 2e-5).
"""

from __future__ import annotations

MASK64 = (1 << 64) - 1
MASK32 = (1 << 32) - 1
GAMMA = 0x9E3779B97F4A7C15
MUL1 = 0xBF58476D1CE4E5B9
MUL2 = 0x94D049BB133111EB
TABLE_MUL = 0xD1B54A32D192ED03
SEAT_SALT = 0x5EA75EA7C0FFEE11  #: separates the seat streams from the deal streams


def mix64(z: int) -> int:
    """The SplitMix64 output function (a bijection of 64-bit words)."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * MUL1) & MASK64
    z = ((z ^ (z >> 27)) * MUL2) & MASK64
    return z ^ (z >> 31)


def table_state(seed: int, table: int) -> int:
    """Initial generator state of table ``table`` in a study seeded ``seed``."""
    if seed < 0 or table < 0:
        raise ValueError("seed and table index must be >= 0")
    return mix64(mix64((seed + GAMMA) & MASK64) ^ ((table * TABLE_MUL + 1) & MASK64))


def seat_state(seed: int, table: int, seat: int) -> int:
    """Initial state of the generator of ``seat`` at table ``table``."""
    if not 0 <= seat < 5:
        raise ValueError("seat must be 0..4")
    return table_state(seed ^ SEAT_SALT, 5 * table + seat)


class SplitMix64:
    """A seeded SplitMix64 stream (pure Python, the reference implementation).

    ``SplitMix64.for_table(seed, t)`` is the stream of table ``t``.
    """

    __slots__ = ("state",)

    def __init__(self, state: int = 0) -> None:
        self.state = int(state) & MASK64

    @classmethod
    def for_table(cls, seed: int, table: int = 0) -> SplitMix64:
        """The deal stream of table ``table``."""
        return cls(table_state(seed, table))

    @classmethod
    def for_seat(cls, seed: int, table: int, seat: int) -> SplitMix64:
        """The stream of ``seat``'s player at table ``table``."""
        return cls(seat_state(seed, table, seat))

    def next64(self) -> int:
        """The next 64-bit output."""
        self.state = (self.state + GAMMA) & MASK64
        return mix64(self.state)

    def randbelow(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, ``1 <= n < 2**32`` (Lemire, with rejection)."""
        if n < 1:
            raise ValueError("randbelow needs n >= 1")
        m = (self.next64() >> 32) * n
        low = m & MASK32
        if low < n:
            threshold = ((1 << 32) - n) % n
            while low < threshold:
                m = (self.next64() >> 32) * n
                low = m & MASK32
        return m >> 32

    def shuffle(self, items: list) -> None:
        """Fisher-Yates shuffle in place: for i = len-1 down to 1, swap i with randbelow(i+1)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.randbelow(i + 1)
            items[i], items[j] = items[j], items[i]
