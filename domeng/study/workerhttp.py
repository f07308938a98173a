"""The Dask worker plugin that closes each worker's HTTP server (issue 22):
``dask.distributed`` starts one on every worker, on a port of its own, even
with the dashboard off (plain HTTP: metrics and health routes).  Registered
by :func:`domeng.study.cluster.local_cluster` unless ``--dashboard``; a
worker started later (a restart) gets it too."""

from __future__ import annotations

from distributed.diagnostics.plugin import WorkerPlugin


class NoWorkerHTTP(WorkerPlugin):
    """Stop the worker's HTTP server as soon as the plugin reaches it."""

    name = "domeng-no-worker-http"
    idempotent = True

    def setup(self, worker) -> None:
        server = getattr(worker, "http_server", None)
        if server is not None:
            server.stop()
