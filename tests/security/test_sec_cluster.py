"""Issue 10, items 4 and 7 for clusters: ``--cluster local:N`` speaks TLS
with temporary credentials (a client without them cannot connect, so no
other local user can run code on the workers), serves no HTTP unless
asked, and a cluster that makes no progress fails with one line, the
checkpoint intact."""

from __future__ import annotations

import gc
import shutil
import subprocess
import urllib.request

import pytest

pytest.importorskip("distributed")
pytest.importorskip("cryptography")

from _crafted import STUDY, one_line

import domeng
from domeng.core.errors import ClusterFailure
from domeng.study.cluster import local_cluster

pytestmark = pytest.mark.slow


def _listening_ports(pid: int) -> set[int]:
    if shutil.which("ss") is None:
        pytest.skip("no `ss` to list listening sockets")
    out = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True).stdout
    return {
        int(line.split()[3].rsplit(":", 1)[1]) for line in out.splitlines() if f"pid={pid}," in line
    }


def _answers_http(port: int) -> bool:
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=3)
        return True
    except urllib.error.HTTPError:
        return True  # an HTTP answer, even an error
    except Exception:
        return False


def test_a_local_cluster_needs_its_credentials_and_serves_no_http():
    import os

    import distributed

    with local_cluster(1) as c:
        addr = c.scheduler.address
        assert addr.startswith("tls://127.0.0.1:")
        assert c.submit(lambda x: x + 1, 1).result() == 2
        for attempt in (addr, addr.replace("tls://", "tcp://")):
            # a half-built Client finalized by the garbage collector while the next one
            # starts deadlocks distributed's shared loop runner: collect between attempts
            gc.collect()
            gc.disable()
            try:
                with pytest.raises(Exception):  # no credentials: refused
                    distributed.Client(attempt, timeout=3)
            finally:
                gc.enable()
                gc.collect()
        ports = _listening_ports(os.getpid())
        assert ports and not any(_answers_http(p) for p in ports)
        assert 8787 not in ports
        # each worker process serves no HTTP either (issue 22: only its TLS port listens)
        for pid in c.run(os.getpid).values():
            worker_ports = _listening_ports(pid)
            assert worker_ports and not any(_answers_http(p) for p in worker_ports), worker_ports


def test_the_dashboard_only_when_asked_on_a_free_local_port():
    with local_cluster(1, dashboard=True) as c:
        link = c.dashboard_link
        assert "127.0.0.1" in link and ":8787" not in link
        port = int(link.split(":")[2].split("/")[0])
        assert _answers_http(port)


def test_a_cluster_without_progress_fails_with_one_line_and_keeps_the_checkpoint(tmp_path):
    d = tmp_path / "s"
    with local_cluster(0) as c:  # a scheduler with no worker: nothing ever finishes
        with pytest.raises(ClusterFailure, match="finished no chunk for 2 s") as e:
            domeng.simulate(
                client=c, checkpoint=d, chunk_tables=1, stall_seconds=2, progress=False, **STUDY
            )
    assert "\n" not in str(e.value) and "--resume" in str(e.value)
    assert (d / "manifest.json").is_file() and not (d / "results.npz").exists()
    res = domeng.resume(d, progress=False)
    assert res.summary() == domeng.simulate(progress=False, **STUDY).summary()


def test_cli_stall_timeout_exits_1(tmp_path, capsys, monkeypatch):
    from domeng.study import cluster

    real = cluster.local_cluster
    monkeypatch.setattr(cluster, "local_cluster", lambda n, **kw: real(0, **kw))
    one_line(
        capsys,
        [
            "simulate",
            "--tables",
            "3",
            "--rounds",
            "3",
            "--cluster",
            "local:1",
            "--stall-timeout",
            "2",
            "--no-progress",
            "--out",
            tmp_path / "s",
        ],
        "finished no chunk",
        code=1,
    )
    assert (tmp_path / "s" / "manifest.json").is_file()
