"""Running studies on a Dask cluster (``dask.distributed``).

``domeng.simulate(..., client=client)`` sends each chunk of tables to the
cluster as one task (see :mod:`domeng.study.chunks`); this module opens the
client for the ``domeng simulate`` options::

    --scheduler tcp://HOST:PORT   connect to a running scheduler
    --cluster local:N             start a LocalCluster of N worker processes
                                  (1 thread each) and close it at the end

A local cluster is secured with dask.distributed's own TLS: temporary
credentials made for this run (``Security.temporary()``; every connection
is encrypted and mutually authenticated, so another local user cannot run
code on the workers), listening on 127.0.0.1 only, and no HTTP server
(dashboard), neither the scheduler's nor any worker's
(:mod:`domeng.study.workerhttp`), unless ``dashboard=True`` (``--dashboard``).  N is bounded by the
machine (cores and memory).  An external scheduler (``--scheduler``) is as
safe as its own configuration: see ``docs/security.md``.

Every worker must run the same domeng as the client: each task checks the
client's :func:`fingerprint` (package version and a hash of the engine's
source) and refuses to run otherwise.  See ``docs/cluster.md``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import Iterator
from typing import Any

from domeng.core.errors import ClusterError, ClusterFailure
from domeng.core.wording import counted

#: memory a worker process needs at least (numba, numpy, pandas, a chunk)
WORKER_BYTES = 400 * 2**20


_FINGERPRINT: tuple[str, str] | None = None


def fingerprint() -> tuple[str, str]:
    """``(package version, engine source hash)`` of this process's domeng.

    The hash covers the modules whose code is compiled into the kernel, so
    two installs with the same fingerprint play the same numbers."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        from domeng import __version__
        from domeng.core.numba_cache import _source_hash

        _FINGERPRINT = (__version__, _source_hash())
    return _FINGERPRINT


def parse_local(spec: str) -> int:
    """``"local:N"`` -> N (worker processes), else :class:`ClusterError`."""
    m = re.fullmatch(r"\s*local\s*:\s*([0-9]{1,12})\s*", spec or "")
    if not m or int(m.group(1)) < 1:
        raise ClusterError(
            f"--cluster must be local:N with N >= 1 worker processes, got {str(spec)[:40]!r}"
        )
    n = int(m.group(1))
    top = max_local_workers()
    if n > top:
        raise ClusterError(
            f"--cluster local:{n}: this machine can run at most {top} worker "
            f"processes ({os.cpu_count() or 1} cores); ask for fewer"
        )
    return n


def max_local_workers() -> int:
    """The most worker processes a local cluster may start here: four per
    core, and no more than the memory holds (:data:`WORKER_BYTES` each)."""
    cores = os.cpu_count() or 1
    top = 4 * cores
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        top = min(top, max(1, mem // WORKER_BYTES))
    except (ValueError, OSError, AttributeError):
        pass
    return max(1, int(top))


def _dask():
    try:
        import distributed
    except ImportError:  # pragma: no cover - a dependency of the package
        raise ClusterError(
            "dask.distributed is not installed: pip install 'dask[distributed]'"
        ) from None
    import distributed

    return distributed


def local_security():
    """Temporary TLS credentials for a local cluster (``Security.temporary()``)."""
    distributed = _dask()
    try:
        return distributed.Security.temporary()
    except ImportError:
        raise ClusterError(
            "a local cluster is secured with TLS, which needs the "
            "'cryptography' package: pip install 'domeng[cluster]' "
            "(in a checkout: .venv/bin/pip install -e '.[cluster]')"
        ) from None


@contextlib.contextmanager
def local_cluster(workers: int, dashboard: bool = False, **kwargs) -> Iterator[Any]:
    """A ``Client`` on a new ``LocalCluster`` of ``workers`` processes with
    one thread each, secured with temporary TLS credentials, on 127.0.0.1,
    with no HTTP server unless ``dashboard`` (then on a free local port;
    ``client.dashboard_link``), logs quiet; both closed at the end."""
    distributed = _dask()
    security = local_security()
    opts = dict(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        protocol="tls://",
        security=security,
        dashboard_address="127.0.0.1:0" if dashboard else None,
        worker_dashboard_address=None,
        silence_logs=logging.CRITICAL,
        # dask starts an HTTP server even with the dashboard off, by default on
        # port 8787: bind it to a free local port (it is closed at once below)
        scheduler_kwargs={"dashboard": dashboard, "dashboard_address": "127.0.0.1:0"},
    )
    opts.update(kwargs)
    try:
        cluster = distributed.LocalCluster(**opts)
    except Exception as e:
        raise ClusterFailure(
            f"cannot start a local Dask cluster of {counted(workers, 'worker')}: {_one_line(e)}"
        ) from None
    try:
        if not dashboard:
            _stop_http(cluster)
        with distributed.Client(cluster, security=security) as client:
            if not dashboard:  # each worker's own HTTP server too
                from domeng.study.workerhttp import NoWorkerHTTP

                client.register_plugin(NoWorkerHTTP())
            yield client
    finally:
        cluster.close()


def _stop_http(cluster) -> None:
    """Close the scheduler's HTTP server (dask starts one even with the dashboard off)."""
    sched = getattr(cluster, "scheduler", None)
    server = getattr(sched, "http_server", None)
    if server is not None:
        server.stop()


@contextlib.contextmanager
def connect(address: str, timeout: float = 10.0) -> Iterator[object]:
    """A ``Client`` connected to the scheduler at ``address`` (closed at the end)."""
    distributed = _dask()
    try:
        client = distributed.Client(address, timeout=timeout)
    except Exception as e:
        raise ClusterFailure(
            f"cannot connect to the Dask scheduler at {address}: {_one_line(e)}"
        ) from None
    try:
        yield client
    finally:
        client.close()


@contextlib.contextmanager
def client_for(
    scheduler: str | None = None, cluster: str | None = None, dashboard: bool = False
) -> Iterator[Any | None]:
    """The client the ``--scheduler`` / ``--cluster`` options ask for (None: a local run)."""
    if scheduler and cluster:
        raise ClusterError("give either --scheduler or --cluster, not both")
    if scheduler:
        with connect(scheduler) as client:
            yield client
    elif cluster:
        with local_cluster(parse_local(cluster), dashboard=dashboard) as client:
            if dashboard:
                import sys

                print(f"domeng: Dask dashboard at {client.dashboard_link}", file=sys.stderr)
            yield client
    else:
        yield None


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text or type(e).__name__
