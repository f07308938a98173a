"""Array layouts shared by the batch engine, the reference aggregator and
the study layer: per-table aggregates, per-table state, per-round records.

Everything a study reports is a function of these arrays, so results can be
summed chunk by chunk (memory does not grow with rounds), saved, resumed and
compared between engines.

Per-table aggregates (``int64[AGG_LEN]``, offsets ``A_*``):

============================  ===========================================
``A_ROUNDS``                  rounds played
``A_TURNS``                   turns (plays incl. the lead, passes, and the
                              MANGUNO's closing pass)
``A_TILES``                   tiles played
``A_TILES_HIST`` [26]         rounds by tiles played (0..25)
``A_TURNS_HIST`` [128]        rounds by turns (0..127)
``A_WINS`` [5 seat, 5 kind]   rounds won, by seat and end kind
``A_WINS_OFFSET`` [5, 5]      rounds won, by seat offset from the starter and kind
``A_STARTS`` [5]              rounds started, by seat
``A_PASSES`` [5]              PASS events incl. PASSEBUNGE, by seat
``A_PASSEBUNGE`` [5]          PASSEBUNGE events, by seat
``A_PASS_ROUNDS`` [5]         rounds in which the seat passed at least once
``A_PASSEBUNGE_ROUNDS`` [5]   rounds with at least one PASSEBUNGE by the seat
``A_ANY_PASS_ROUNDS``         rounds with at least one pass by anyone
``A_ANY_PASSEBUNGE_ROUNDS``   rounds with at least one PASSEBUNGE
``A_MAPPAKULING`` [5]         MAPPAKULING plays, by seat
``A_MATTIKKENG`` [5]          times the seat was a MATTIKKENG
``A_CUCUQ`` [5]               times the seat was CUCUQ
``A_FLOW`` [6 src, 5 dst, 7]  stones moved: source (0 table, 1+s seat s),
                              destination seat, reason (``REASON_*``)
``A_UNPAID`` [5 dst, 7]       stones owed to a seat that nobody could pay (D7)
``A_CAMAT`` [5]               CAMAT designations, by seat
``A_CAMAT_GAP_HIST`` [128]    CAMATs by rounds since the previous CAMAT (or the
                              start of the game); bin 127 = 127 or more
``A_CAMAT_GAP_SUM``           sum of those gaps
============================  ===========================================

Per-table state (``int64[ST_LEN]``): stones held, table stones, CAMAT, next
starter (-1 before the first round), rounds played, CAMATs, rounds since the
last CAMAT, and the generators' states (stored as int64 bits): the deal
stream and one stream per seat's player (see :mod:`domeng.core.rng`).  A table can be
continued from its state, which is what checkpoints keep.

Per-round records (``int64[REC_LEN]``): the round's columns ``REC_COLUMNS``,
then one block of ``SEAT_LEN`` per seat (``SEAT_COLUMNS``, offset
:func:`seat_col`): stones received and given by reason, received from the
table, owed to the seat and unpaid (D7), passes and PASSEBUNGE (D6), stones
held after the round (after a CAMAT's return, D15), tiles left and their pip
sum at the round's end (D12).  A study writes the blocks as its long
``records_seats`` table (one row per table x round x seat).
"""

from __future__ import annotations

import numpy as np

N_SEATS = 5
N_KINDS = 5
N_REASONS = 7
# end kinds and reasons; the order is fixed (arrays are indexed by it)
KIND_NAMES = ("CAPPU", "CEKI", "POLLO", "MANGUNO", "MATTIKKENG")
REASON_NAMES = ("PASS", "PASSEBUNGE", "CAPPU", "CEKI", "POLLO", "MANGUNO", "MATTIKKENG")
K_CAPPU, K_CEKI, K_POLLO, K_MANGUNO, K_MATTIKKENG = range(5)
(
    REASON_PASS,
    REASON_PASSEBUNGE,
    REASON_CAPPU,
    REASON_CEKI,
    REASON_POLLO,
    REASON_MANGUNO,
    REASON_MATTIKKENG,
) = range(7)
#: reason index of each end kind's award
KIND_REASON = (REASON_CAPPU, REASON_CEKI, REASON_POLLO, REASON_MANGUNO, REASON_MATTIKKENG)

TILES_BINS = 26
TURNS_BINS = 128
GAP_BINS = 128

_fields = [
    ("A_ROUNDS", 1),
    ("A_TURNS", 1),
    ("A_TILES", 1),
    ("A_TILES_HIST", TILES_BINS),
    ("A_TURNS_HIST", TURNS_BINS),
    ("A_WINS", N_SEATS * N_KINDS),
    ("A_WINS_OFFSET", N_SEATS * N_KINDS),
    ("A_STARTS", N_SEATS),
    ("A_PASSES", N_SEATS),
    ("A_PASSEBUNGE", N_SEATS),
    ("A_PASS_ROUNDS", N_SEATS),
    ("A_PASSEBUNGE_ROUNDS", N_SEATS),
    ("A_ANY_PASS_ROUNDS", 1),
    ("A_ANY_PASSEBUNGE_ROUNDS", 1),
    ("A_MAPPAKULING", N_SEATS),
    ("A_MATTIKKENG", N_SEATS),
    ("A_CUCUQ", N_SEATS),
    ("A_FLOW", 6 * N_SEATS * N_REASONS),
    ("A_UNPAID", N_SEATS * N_REASONS),
    ("A_CAMAT", N_SEATS),
    ("A_CAMAT_GAP_HIST", GAP_BINS),
    ("A_CAMAT_GAP_SUM", 1),
]
AGG_FIELDS: dict[str, tuple[int, int]] = {}
_off = 0
for _name, _n in _fields:
    AGG_FIELDS[_name] = (_off, _n)
    globals()[_name] = _off
    _off += _n
AGG_LEN = _off

A_ROUNDS: int
A_TURNS: int
A_TILES: int
A_TILES_HIST: int
A_TURNS_HIST: int
A_WINS: int
A_WINS_OFFSET: int
A_STARTS: int
A_PASSES: int
A_PASSEBUNGE: int
A_PASS_ROUNDS: int
A_PASSEBUNGE_ROUNDS: int
A_ANY_PASS_ROUNDS: int
A_ANY_PASSEBUNGE_ROUNDS: int
A_MAPPAKULING: int
A_MATTIKKENG: int
A_CUCUQ: int
A_FLOW: int
A_UNPAID: int
A_CAMAT: int
A_CAMAT_GAP_HIST: int
A_CAMAT_GAP_SUM: int


def flow_index(src: int, dst: int, reason: int) -> int:
    """Offset in the aggregate vector of stones from ``src`` (-1 = table, or a
    seat) to ``dst`` for ``reason``."""
    # A_FLOW is bound through globals() above; its annotation alone is what a linter sees
    return A_FLOW + ((src + 1) * N_SEATS + dst) * N_REASONS + reason  # noqa: F821


def agg_field(agg: np.ndarray, name: str) -> np.ndarray:
    """A named field of aggregates (last axis), reshaped to its natural shape."""
    off, n = AGG_FIELDS[name]
    part = agg[..., off : off + n]
    shape = {
        "A_WINS": (N_SEATS, N_KINDS),
        "A_WINS_OFFSET": (N_SEATS, N_KINDS),
        "A_FLOW": (6, N_SEATS, N_REASONS),
        "A_UNPAID": (N_SEATS, N_REASONS),
    }.get(name)
    if shape is not None:
        part = part.reshape(part.shape[:-1] + shape)
    elif n == 1:
        part = part[..., 0]
    return part


# Per-table state
ST_STONES = 0  # [5]
ST_TABLE = 5
ST_CAMAT = 6
ST_NEXT_STARTER = 7
ST_ROUNDS = 8
ST_CAMATS = 9
ST_SINCE_CAMAT = 10
ST_RNG = 11  # the deal stream
ST_SEAT_RNG = 12  # [5] each seat's player stream
ST_BAD_MOVES = 17  # moves a compiled player chose out of range (replaced by its first move)
ST_LEN = 18

# Per-round records
REC_COLUMNS = (
    "table",
    "round",
    "starter",
    "kind",
    "winner",
    "cucuq",
    "manguno",
    "n_mattikkeng",
    "passes",
    "passebunge",
    "tiles",
    "turns",
    "stones_pass",
    "stones_passebunge",
    "stones_cappu",
    "stones_ceki",
    "stones_pollo",
    "stones_manguno",
    "stones_mattikkeng",
    "stones_from_table",
    "unpaid",
    "camat",
    "lead",
    "second_passed",
)
#: per-seat fields of a record (one block of ``SEAT_LEN`` per seat after the
#: round's columns); ``received_*`` include stones from the table, ``given_*``
#: count stones the seat paid (D7)
SEAT_COLUMNS = (
    tuple(f"received_{r.lower()}" for r in REASON_NAMES)
    + tuple(f"given_{r.lower()}" for r in REASON_NAMES)
    + ("received_from_table", "unpaid", "passes", "passebunge", "stones", "tiles_left", "pip_sum")
)
SEAT_LEN = len(SEAT_COLUMNS)
SC_RECEIVED = 0  #: [7] stones received, by reason (from the table or a seat)
SC_GIVEN = SC_RECEIVED + N_REASONS  #: [7] stones given to another seat, by reason
SC_FROM_TABLE = SC_GIVEN + N_REASONS  #: stones received from the table
SC_UNPAID = SC_FROM_TABLE + 1  #: stones owed to the seat that nobody could pay (D7)
SC_PASSES = SC_UNPAID + 1  #: passes incl. PASSEBUNGE
SC_PASSEBUNGE = SC_PASSES + 1  #: PASSEBUNGE (D6)
SC_STONES = SC_PASSEBUNGE + 1  #: stones held after the round (after a CAMAT's return, D15)
SC_TILES_LEFT = SC_STONES + 1  #: tiles in hand at the round's end
SC_PIP_SUM = SC_TILES_LEFT + 1  #: their pip sum (D12)
#: offset of the first seat's block in a record
RC_SEATS = len(REC_COLUMNS)
REC_LEN = RC_SEATS + N_SEATS * SEAT_LEN


def seat_col(seat: int, field: int) -> int:
    """Offset in a record of seat ``seat``'s field ``field`` (``SC_*``)."""
    return RC_SEATS + seat * SEAT_LEN + field


(
    RC_TABLE,
    RC_ROUND,
    RC_STARTER,
    RC_KIND,
    RC_WINNER,
    RC_CUCUQ,
    RC_MANGUNO,
    RC_N_MATT,
    RC_PASSES,
    RC_PASSEBUNGE,
    RC_TILES,
    RC_TURNS,
    RC_STONES,
    _,
    _,
    _,
    _,
    _,
    _,
    RC_FROM_TABLE,
    RC_UNPAID,
    RC_CAMAT,
    RC_LEAD,
    RC_SECOND_PASSED,
) = range(RC_SEATS)
#: ``lead``: the tile led; ``second_passed``: 1 if the seat after the starter
#: passed on its first turn (the foundation's exact first-round values are
#: checked on these)

# Per-group sums of the final per-table state (``ST_*``), int64[S_LEN]: the
# ``group_state`` of a study's results (see domeng.study.summary)
S_STONES = 0  #: [5] stones held at the end, by seat
S_TABLE = 5  #: stones on the table at the end
S_CAMAT_HOLDER = 6  #: [6] tables whose current CAMAT is seat 0..4; [5]: no CAMAT
S_CAMATS = 12  #: CAMATs designated over the whole game
S_SINCE_CAMAT = 13  #: rounds since the last CAMAT (or since the start)
S_ROUNDS = 14  #: rounds played
S_CAMATS_HIST = 15  #: [32] tables by number of CAMATs (bin 31: 31 or more)
CAMATS_BINS = 32
S_LEN = S_CAMATS_HIST + CAMATS_BINS
