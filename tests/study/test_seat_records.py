"""Per-seat records (issue 23, item 6): each round's record carries one block
per seat (``layout.SEAT_COLUMNS``), written by the compiled engine and the
reference batch alike, and a study writes them as the long table
``records_seats.parquet`` beside ``records.parquet``."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import domeng
from domeng.batch.reference import run_reference
from domeng.batch.tables import run_tables
from domeng.core import layout as L
from domeng.core.rules import Rules
from domeng.players.registry import make_player
from domeng.study import records as records_mod

LINEUP = ["random", "heavy", "keeper", "hunter", "random"]
#: small award sizes and few stones: tables run dry, so unpaid stones (D7)
#: and CAMATs (D15) happen in a few rounds
TIGHT = Rules.parse("stones=7,pollo=2,ceki=4,cappu=0,pass=2,passebunge=3,mattikkeng=6,manguno=3")


def _seats(recs: np.ndarray) -> np.ndarray:
    """The seat blocks of records as ``[m, seat, SEAT_LEN]``."""
    return recs[:, L.RC_SEATS :].reshape(len(recs), L.N_SEATS, L.SEAT_LEN)


@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules(penalize_manguno_pass=True, passebunge_every_pass=False),
        TIGHT,
    ],
    ids=["default", "options", "tight"],
)
def test_compiled_and_reference_records_agree_exactly(rules):
    """The same seed gives the same records, every column of every seat,
    on the compiled engine and the pure-Python reference batch."""
    compiled = run_tables(LINEUP, rules, seed=5, n_tables=3, rounds=60, records=True)
    agg, state, recs, _ = run_reference(
        [make_player(p) for p in LINEUP], rules, 5, tables=3, rounds=60, records=True
    )
    np.testing.assert_array_equal(compiled.agg, agg)
    np.testing.assert_array_equal(compiled.state, state)
    assert recs is not None and recs.shape == (180, L.REC_LEN)
    np.testing.assert_array_equal(compiled.records, recs)
    # the seat blocks are not all zero (the comparison compared something)
    seats = _seats(recs)
    assert seats[:, :, L.SC_TILES_LEFT].sum() > 0 and seats[:, :, L.SC_STONES].sum() > 0


@pytest.mark.parametrize("rules", [Rules(), TIGHT], ids=["default", "tight"])
def test_seat_blocks_add_up_to_the_aggregates(rules):
    n, rounds = 6, 80
    out = run_tables(LINEUP, rules, seed=2, n_tables=n, rounds=rounds, records=True)
    rec = out.records
    seats = _seats(rec)
    tot = out.agg.sum(0)
    flow = L.agg_field(tot, "A_FLOW")  # [src (0 table, 1+s seat), dst, reason]
    received = seats[:, :, L.SC_RECEIVED : L.SC_RECEIVED + L.N_REASONS].sum(0)
    given = seats[:, :, L.SC_GIVEN : L.SC_GIVEN + L.N_REASONS].sum(0)
    np.testing.assert_array_equal(received, flow.sum(0))  # by destination seat and reason
    np.testing.assert_array_equal(given, flow[1:].sum(1))  # by paying seat and reason
    np.testing.assert_array_equal(seats[:, :, L.SC_FROM_TABLE].sum(0), flow[0].sum(1))
    np.testing.assert_array_equal(
        seats[:, :, L.SC_UNPAID].sum(0), L.agg_field(tot, "A_UNPAID").sum(1)
    )
    np.testing.assert_array_equal(seats[:, :, L.SC_PASSES].sum(0), L.agg_field(tot, "A_PASSES"))
    np.testing.assert_array_equal(
        seats[:, :, L.SC_PASSEBUNGE].sum(0), L.agg_field(tot, "A_PASSEBUNGE")
    )
    # each round: the seats' sums are the round's columns
    for r in range(L.N_REASONS):
        np.testing.assert_array_equal(
            seats[:, :, L.SC_RECEIVED + r].sum(1), rec[:, L.RC_STONES + r]
        )
    np.testing.assert_array_equal(seats[:, :, L.SC_FROM_TABLE].sum(1), rec[:, L.RC_FROM_TABLE])
    np.testing.assert_array_equal(seats[:, :, L.SC_UNPAID].sum(1), rec[:, L.RC_UNPAID])
    np.testing.assert_array_equal(seats[:, :, L.SC_PASSES].sum(1), rec[:, L.RC_PASSES])
    np.testing.assert_array_equal(seats[:, :, L.SC_PASSEBUNGE].sum(1), rec[:, L.RC_PASSEBUNGE])
    # D2: 25 tiles are dealt; those not played are in the hands at the end
    np.testing.assert_array_equal(
        seats[:, :, L.SC_TILES_LEFT].sum(1) + rec[:, L.RC_TILES], np.full(len(rec), 25)
    )
    # D8, D9: a CAPPU, CEKI or POLLO winner played out; D12: pip sums >= 0
    kind = rec[:, L.RC_KIND]
    out_of_tiles = np.isin(kind, [L.K_CAPPU, L.K_CEKI, L.K_POLLO])
    winner = rec[:, L.RC_WINNER]
    left = seats[np.arange(len(rec)), winner, L.SC_TILES_LEFT]
    assert (left[out_of_tiles] == 0).all()
    assert (seats[:, :, L.SC_PIP_SUM] >= 0).all()
    # stones are conserved (D7, D15): held after the round = held before +
    # received - given, except after a CAMAT (everything back on the table)
    held = seats[:, :, L.SC_STONES].reshape(n, rounds, L.N_SEATS)
    change = (
        seats[:, :, L.SC_RECEIVED : L.SC_RECEIVED + L.N_REASONS].sum(2)
        - seats[:, :, L.SC_GIVEN : L.SC_GIVEN + L.N_REASONS].sum(2)
    ).reshape(n, rounds, L.N_SEATS)
    before = np.concatenate([np.zeros((n, 1, L.N_SEATS), dtype=np.int64), held[:, :-1]], axis=1)
    camat = (rec[:, L.RC_CAMAT] >= 0).reshape(n, rounds)
    np.testing.assert_array_equal(held[~camat], (before + change)[~camat])
    assert (held[camat] == 0).all()
    on_table = rules.stones - held.sum(2)
    assert (held >= 0).all() and (on_table >= 0).all()
    np.testing.assert_array_equal(held[:, -1], out.state[:, L.ST_STONES : L.ST_STONES + 5])
    np.testing.assert_array_equal(on_table[:, -1], out.state[:, L.ST_TABLE])
    if rules == TIGHT:  # the checks above met the rare cases
        assert camat.any() and rec[:, L.RC_UNPAID].sum() > 0


def test_a_study_writes_the_long_seat_table(tmp_path, monkeypatch):
    monkeypatch.setattr(records_mod, "RECORD_ROW_GROUP", 8)  # several row groups
    path = tmp_path / "records.parquet"
    res = domeng.simulate(
        tables=4, rounds=6, players=LINEUP, seed=3, chunk_tables=3, records=path, progress=False
    )
    rounds = pd.read_parquet(path)
    assert list(rounds.columns) == list(L.REC_COLUMNS)  # the per-round file as before
    seats_file = tmp_path / "records_seats.parquet"
    seats = pd.read_parquet(seats_file)
    assert list(seats.columns) == ["table", "round", "seat", "player", *L.SEAT_COLUMNS]
    assert len(seats) == 5 * len(rounds) == 5 * 24
    keys = list(zip(seats.table, seats["round"], seats.seat))
    assert keys == [(t, r, s) for t in range(4) for r in range(1, 7) for s in range(5)]
    assert list(seats.player.astype(str)[:5]) == LINEUP
    meta = pq.read_schema(seats_file).metadata
    assert json.loads(meta[b"domeng.players"]) == LINEUP
    # the long table sums to the study's aggregates
    by_seat = seats.groupby("seat").sum(numeric_only=True)
    assert by_seat.passes.tolist() == res.totals("A_PASSES").tolist()
    assert by_seat.passebunge.tolist() == res.totals("A_PASSEBUNGE").tolist()
    flow = res.totals("A_FLOW")  # [src, dst, reason]
    assert by_seat.received_pollo.tolist() == flow[:, :, L.REASON_POLLO].sum(0).tolist()
    assert by_seat.given_pass.tolist() == flow[1:, :, L.REASON_PASS].sum(1).tolist()
    # the same rows whatever the chunking, and through a checkpoint (parts merged)
    other = tmp_path / "whole.parquet"
    domeng.simulate(
        tables=4, rounds=6, players=LINEUP, seed=3, chunk_tables=4, records=other, progress=False
    )
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "whole_seats.parquet"), seats)
    folder = tmp_path / "study"
    domeng.simulate(
        tables=4,
        rounds=6,
        players=LINEUP,
        seed=3,
        chunk_tables=1,
        checkpoint=folder,
        records=folder / "records.parquet",
        progress=False,
    )
    pd.testing.assert_frame_equal(pd.read_parquet(folder / "records_seats.parquet"), seats)
    pd.testing.assert_frame_equal(pd.read_parquet(folder / "records.parquet"), rounds)
    assert not list((folder / "chunks").glob("records-*"))


def test_a_seat_file_that_cannot_be_written_leaves_nothing(tmp_path):
    """The per-seat file's name taken by a folder: one clear refusal, and no
    per-round file or temporary is left behind."""
    (tmp_path / "r_seats.parquet").mkdir()
    with pytest.raises(domeng.DomengError, match="is a directory"):
        domeng.simulate(tables=1, rounds=1, records=tmp_path / "r.parquet", progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r_seats.parquet"]


def test_a_records_part_round_trips_and_a_foreign_one_is_refused():
    recs = run_tables(LINEUP, seed=1, n_tables=2, rounds=3, records=True).records
    part = records_mod.records_table(recs, records_mod.parts_schema())
    np.testing.assert_array_equal(records_mod.table_records(part), recs)
    with pytest.raises(ValueError, match="other columns"):
        records_mod.table_records(records_mod.records_table(recs))  # the seats' columns missing
