"""Studies on a real Dask cluster (a LocalCluster of worker processes):
bit-identical to a single-process run whatever the chunking and the number
of workers, records in table order, the CLI's --scheduler / --cluster, a
worker killed in the middle of a study, and a checkpoint resumed on a
cluster."""

from __future__ import annotations

import json
import os
import signal
import time

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("distributed")

import domeng
from domeng.cli.main import main
from domeng.core.rules import Rules
from domeng.study.chunks import Plan, chunk_task
from domeng.study.cluster import ClusterError, fingerprint, local_cluster, parse_local
from domeng.study.simulate import simulate

MIXED = "random,heavy,keeper,hunter,random"
STUDY = dict(tables=13, rounds=17, players=MIXED, seed=9, rules="pollo=4")


def same(a, b) -> None:
    assert np.array_equal(a.group_agg, b.group_agg)
    assert np.array_equal(a.group_state, b.group_state)
    assert np.array_equal(a.group_tables, b.group_tables)
    assert a.summary() == b.summary()


@pytest.fixture(scope="module")
def client():
    with local_cluster(2) as c:
        c.wait_for_workers(2, timeout=60)
        yield c


@pytest.fixture(scope="module")
def local():
    return simulate(progress=False, **STUDY)


@pytest.mark.parametrize("chunk_tables", [1, 4, 13, None])
def test_cluster_equals_local_whatever_the_chunking(client, local, chunk_tables):
    res = simulate(client=client, chunk_tables=chunk_tables, progress=False, **STUDY)
    same(res, local)
    assert res.total_rounds == 13 * 17


def test_both_workers_take_part_and_tasks_run_in_worker_processes(client):
    seen = []
    res = simulate(
        client=client,
        chunk_tables=1,
        progress=lambda d, t: seen.append((d, t)),
        tables=24,
        rounds=3000,
        seed=1,
    )
    assert res.total_rounds == 24 * 3000
    # the progress callable followed the cluster: one call per chunk, up to all tables
    assert [t for _, t in seen] == [24] * 24 and [d for d, _ in seen] == list(range(1, 25))
    # each worker process ran chunks
    done = client.run(lambda dask_worker: dask_worker.state.executed_count)
    assert len(done) == 2 and all(n > 0 for n in done.values()), done
    assert os.getpid() not in client.run(os.getpid).values()


def test_records_on_a_cluster_are_written_in_table_order(client, tmp_path):
    a, b = tmp_path / "cluster.parquet", tmp_path / "local.parquet"
    kw = dict(tables=9, rounds=6, players=MIXED, seed=4, progress=False)
    res = simulate(client=client, chunk_tables=2, records=a, **kw)
    simulate(chunk_tables=9, records=b, **kw)
    ra, rb = pd.read_parquet(a), pd.read_parquet(b)
    assert len(ra) == 54 and res.meta["records_rows"] == 54
    pd.testing.assert_frame_equal(ra, rb)
    assert list(ra.table) == sorted(ra.table)


def test_cli_scheduler_gives_the_local_numbers(client, capsys):
    argv = [
        "simulate",
        "--tables",
        "13",
        "--rounds",
        "17",
        "--players",
        MIXED,
        "--seed",
        "9",
        "--rule",
        "pollo=4",
        "--json",
        "--no-progress",
    ]
    assert main(argv) == 0
    here = json.loads(capsys.readouterr().out)
    import dask

    sec = client.security  # the local cluster's temporary TLS credentials, given as a user
    with dask.config.set(
        {
            "distributed.comm.tls.ca-file": sec.tls_ca_file,  # would (docs)
            "distributed.comm.tls.client.cert": sec.tls_client_cert,
            "distributed.comm.tls.client.key": sec.tls_client_key,
        }
    ):
        assert main(argv + ["--scheduler", client.scheduler.address, "--chunk-tables", "3"]) == 0
    there = json.loads(capsys.readouterr().out)
    assert there == here and there["total_rounds"] == 221


def test_cli_local_cluster_writes_a_resumable_study(tmp_path, capsys, local):
    out = tmp_path / "study"
    argv = [
        "simulate",
        "--tables",
        "13",
        "--rounds",
        "17",
        "--players",
        MIXED,
        "--seed",
        "9",
        "--rule",
        "pollo=4",
        "--json",
        "--progress",  # a bar beside --json only when asked (issue 23 item 2)
        "--out",
        str(out),
        "--records",
        "--chunk-tables",
        "2",
    ]
    assert main(argv + ["--cluster", "local:2"]) == 0
    cap = capsys.readouterr()
    assert "100.0%" in cap.err  # the progress bar followed the cluster
    s = json.loads(cap.out)
    assert s == local.summary()
    assert domeng.Results.load(out).summary() == s
    # finished: the 7 chunk files were pruned (issue 12), results.npz holds their sums
    assert json.loads((out / "manifest.json").read_text())["n_chunks"] == 7
    assert not list((out / "chunks").glob("chunk-*.npz")) and (out / "chunks" / "pruned").is_file()
    assert pd.read_parquet(out / "records.parquet").shape[0] == 13 * 17
    assert (out / "report.html").is_file()


def test_a_checkpoint_started_locally_is_finished_on_the_cluster_and_back(client, tmp_path, local):
    class Stop(Exception):
        pass

    def stop_after(k):
        def progress(done, total):
            if done >= k:
                raise Stop

        return progress

    d1 = tmp_path / "one"
    with pytest.raises(Stop):  # a "crash" after 3 chunks of 1 table
        simulate(chunk_tables=1, checkpoint=d1, progress=stop_after(3), **STUDY)
    assert len(list((d1 / "chunks").glob("chunk-*.npz"))) == 3
    assert not (d1 / "results.npz").exists()
    same(domeng.resume(d1, client=client, progress=False), local)

    d2 = tmp_path / "two"
    with pytest.raises(Stop):
        simulate(client=client, chunk_tables=2, checkpoint=d2, progress=stop_after(6), **STUDY)
    n = len(list((d2 / "chunks").glob("chunk-*.npz")))
    assert 3 <= n < 7
    same(domeng.resume(d2, progress=False), local)


def test_a_worker_killed_in_the_middle_is_replaced_and_the_result_is_identical():
    kw = dict(tables=40, rounds=20_000, players=MIXED, seed=21, chunk_tables=1)
    expected = simulate(progress=False, **kw)
    with local_cluster(2) as c:
        c.wait_for_workers(2, timeout=60)
        pids = c.run(os.getpid)
        victim = sorted(pids.values())[0]
        killed = []

        def kill_once(done, total):
            if done >= 4 and not killed:
                os.kill(victim, signal.SIGKILL)
                killed.append(done)

        res = simulate(client=c, progress=kill_once, **kw)
        assert killed and killed[0] < 40  # the worker died while chunks were left
        same(res, expected)
        # the scheduler did compute again chunks that the dead worker was playing or held
        log = c.run_on_scheduler(
            lambda dask_scheduler: [
                (str(t[0]), t[1], t[2])
                for t in dask_scheduler.transition_log
                if str(t[0]).startswith("domeng-chunk")
            ]
        )
        lost = {k for k, start, finish in log if start == "processing" and finish == "released"}
        entered = [k for k, _, finish in log if finish == "processing"]
        again = {k for k in entered if entered.count(k) >= 2}
        assert again and lost <= again, (lost, again)
        deadline = time.monotonic() + 180  # a bound for a hung nanny, not a timing bet
        while time.monotonic() < deadline:  # the nanny starts a new worker process
            c.wait_for_workers(2, timeout=180)  # event-driven: returns when it registered
            now = c.run(os.getpid)
            if victim not in now.values() and len(now) == 2:
                break
            time.sleep(0.2)
        assert victim not in c.run(os.getpid).values()


def test_a_worker_with_another_engine_refuses_its_task():
    plan = Plan(tables=2, rounds=2, seed=0, players=("random",) * 5, rules=Rules(), chunk_tables=1)
    assert chunk_task(plan, 1, 1, fingerprint()).n == 1
    with pytest.raises(ClusterError, match="same version"):
        chunk_task(plan, 0, 1, ("0.0.0", "deadbeef"))


def test_bad_cluster_options(capsys, tmp_path):
    for argv, message in [
        (["--cluster", "local:0"], "local:N"),
        (["--cluster", "big"], "local:N"),
        (["--cluster", "local:1", "--scheduler", "tcp://127.0.0.1:9"], "not both"),
        (["--cluster", "local:1", "--workers", "2"], "--workers"),
    ]:
        assert main(["simulate", "--tables", "2", "--rounds", "2", *argv]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and message in err, err
    assert parse_local(" local : 3 ") == 3
    with pytest.raises(domeng.DomengError, match="workers"):
        simulate(tables=2, rounds=2, workers=2, client=object(), progress=False)


# ---------------------------------------------- records of long chunks in pieces
LONG = dict(tables=3, rounds=40, players=MIXED, seed=5)


@pytest.fixture(scope="module")
def long_local(tmp_path_factory):
    """The local, unsplit numbers and records of LONG (one chunk of 3 tables)."""
    path = tmp_path_factory.mktemp("long") / "local.parquet"
    from domeng.study import chunks as C

    plan = Plan(
        tables=3,
        rounds=40,
        seed=5,
        players=tuple(MIXED.split(",")),
        rules=Rules(),
        chunk_tables=3,
        records=True,
    )
    res = C.run_study(plan, records=path, piece_rounds=10**9)  # one piece: nothing cut
    return res, pd.read_parquet(path)


def _sizes(monkeypatch):
    """The size of every piece of records this process writes."""
    from domeng.study import records as R

    sizes = []
    real = R.RecordWriter.write

    def spy(self, recs):
        sizes.append(len(recs))
        return real(self, recs)

    monkeypatch.setattr(R.RecordWriter, "write", spy)
    return sizes


@pytest.mark.parametrize("chunk_tables", [1, 2, 3])
def test_a_long_chunk_travels_in_bounded_pieces_on_a_cluster(
    client, tmp_path, monkeypatch, long_local, chunk_tables
):
    """Pieces of at most 7 table-rounds (a table of 40 rounds in 6 slices,
    each continued from the state the one before returned on whichever
    worker): the records and numbers of the unsplit local run."""
    from domeng.study import chunks as C

    ref, ref_recs = long_local
    plan = Plan(
        tables=3,
        rounds=40,
        seed=5,
        players=tuple(MIXED.split(",")),
        rules=Rules(),
        chunk_tables=chunk_tables,
        records=True,
    )
    sizes = _sizes(monkeypatch)
    res = C.run_study(plan, client=client, records=tmp_path / "r.parquet", piece_rounds=7)
    same(res, ref)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "r.parquet"), ref_recs)
    assert max(sizes) <= 7 and sum(sizes) == 3 * 40 and len(sizes) == 3 * 6
    log = client.run_on_scheduler(
        lambda dask_scheduler: sorted(
            {
                str(t[0])
                for t in dask_scheduler.transition_log
                if str(t[0]).startswith(f"domeng-piece-{plan.token()}")
            }
        )
    )
    assert len(log) == 3 * 6  # one task per piece, none for a whole chunk


def test_pieces_are_written_to_the_checkpoint_and_a_cut_chain_resumes(
    client, tmp_path, monkeypatch, long_local
):
    """With --out: each piece goes to its chunk's records part as it arrives;
    a study stopped in the middle of a chain keeps the finished chunks only
    (the cut chunk's part is dropped) and resumes to the same records."""
    from domeng.study import chunks as C

    ref, ref_recs = long_local
    monkeypatch.setattr(C, "RECORD_PIECE_ROUNDS", 7)  # the client cuts the chunks
    sizes = _sizes(monkeypatch)
    kw = dict(LONG, chunk_tables=1, progress=False)
    done = tmp_path / "done"
    res = simulate(client=client, checkpoint=done, records=done / "records.parquet", **kw)
    same(res, ref)
    pd.testing.assert_frame_equal(pd.read_parquet(done / "records.parquet"), ref_recs)
    assert max(sizes) <= 7 and sum(sizes) == 3 * 40

    class Stop(Exception):
        pass

    from domeng.study import records as R

    real = R.RecordWriter.write
    seen = []

    def stop_in_chunk_1(self, recs):
        seen.append(len(recs))
        if len(seen) == 9:  # the 3rd piece of the 2nd chunk to arrive
            raise Stop
        return real(self, recs)

    monkeypatch.setattr(R.RecordWriter, "write", stop_in_chunk_1)
    cut = tmp_path / "cut"
    with pytest.raises(Stop):
        simulate(client=client, checkpoint=cut, records=cut / "records.parquet", **kw)
    parts = sorted(p.name for p in (cut / "chunks").glob("records-*.parquet"))
    chunk_files = sorted(p.name for p in (cut / "chunks").glob("chunk-*.npz"))
    assert len(parts) == len(chunk_files) <= 2  # a part only beside its finished chunk
    monkeypatch.setattr(R.RecordWriter, "write", real)
    same(domeng.resume(cut, client=client, progress=False), ref)
    pd.testing.assert_frame_equal(pd.read_parquet(cut / "records.parquet"), ref_recs)
