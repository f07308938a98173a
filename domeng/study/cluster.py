"""Running studies on a Dask cluster (``dask.distributed``).

``domeng.simulate(..., client=client)`` sends each chunk of tables to the
cluster as one task (see :mod:`domeng.study.chunks`); this module opens the
client for the ``domeng simulate`` options::

    --scheduler tcp://HOST:PORT   connect to a running scheduler
    --cluster local:N             start a LocalCluster of N worker processes
                                  (1 thread each) and close it at the end

Every worker must run the same domeng as the client: each task checks the
client's :func:`fingerprint` (package version and a hash of the engine's
source) and refuses to run otherwise.  See ``docs/cluster.md``.
"""

from __future__ import annotations

import contextlib
import logging
import re
from typing import Iterator

from domeng.core.errors import DomengError


class ClusterError(DomengError, RuntimeError):
    """A cluster that cannot be reached or started, a worker running another
    domeng, or a task that keeps killing its workers."""


_FINGERPRINT: tuple[str, str] | None = None


def fingerprint() -> tuple[str, str]:
    """``(package version, engine source hash)`` of this process's domeng.

    The hash covers the modules whose code is compiled into the kernel, so
    two installs with the same fingerprint play the same numbers."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        from domeng.core.numba_cache import _source_hash
        from domeng.results.results import package_version

        _FINGERPRINT = (package_version(), _source_hash())
    return _FINGERPRINT


def parse_local(spec: str) -> int:
    """``"local:N"`` -> N (worker processes), else :class:`ClusterError`."""
    m = re.fullmatch(r"\s*local\s*:\s*(\d+)\s*", spec or "")
    if not m or int(m.group(1)) < 1:
        raise ClusterError(f"--cluster must be local:N with N >= 1 worker processes, got {spec!r}")
    return int(m.group(1))


def _dask():
    try:
        import distributed  # noqa: F401
    except ImportError:  # pragma: no cover - a dependency of the package
        raise ClusterError("dask.distributed is not installed: pip install 'dask[distributed]'") \
            from None
    import distributed

    return distributed


@contextlib.contextmanager
def local_cluster(workers: int, **kwargs) -> Iterator[object]:
    """A ``Client`` on a new ``LocalCluster`` of ``workers`` processes with
    one thread each (the dashboard off, logs quiet); both closed at the end."""
    distributed = _dask()
    opts = dict(n_workers=workers, threads_per_worker=1, processes=True,
                dashboard_address=None, silence_logs=logging.ERROR)
    opts.update(kwargs)
    try:
        cluster = distributed.LocalCluster(**opts)
    except Exception as e:
        raise ClusterError(f"cannot start a local Dask cluster of {workers} workers: "
                           f"{_one_line(e)}") from None
    try:
        with distributed.Client(cluster) as client:
            yield client
    finally:
        cluster.close()


@contextlib.contextmanager
def connect(address: str, timeout: float = 10.0) -> Iterator[object]:
    """A ``Client`` connected to the scheduler at ``address`` (closed at the end)."""
    distributed = _dask()
    try:
        client = distributed.Client(address, timeout=timeout)
    except Exception as e:
        raise ClusterError(f"cannot connect to the Dask scheduler at {address}: "
                           f"{_one_line(e)}") from None
    try:
        yield client
    finally:
        client.close()


@contextlib.contextmanager
def client_for(scheduler: str | None = None, cluster: str | None = None) -> Iterator[object | None]:
    """The client the ``--scheduler`` / ``--cluster`` options ask for (None: a local run)."""
    if scheduler and cluster:
        raise ClusterError("give either --scheduler or --cluster, not both")
    if scheduler:
        with connect(scheduler) as client:
            yield client
    elif cluster:
        with local_cluster(parse_local(cluster)) as client:
            yield client
    else:
        yield None


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return text or type(e).__name__
