"""Every web test keeps its saved tables (``$XDG_DATA_HOME/domeng/tables``,
``domeng serve``'s default ``--data``) in a temporary folder, never in the
user's data folder."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _data_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("data-home")
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home


# A page's answer waits on the server, which on a loaded CI machine can take
# longer than Playwright's default 5 s for an ``expect``: 30 s (a failure still
# fails, later).
try:
    from playwright.sync_api import expect
except ImportError:  # the browser tests skip without Playwright
    pass
else:
    expect.set_options(timeout=30_000)
