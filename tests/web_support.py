"""What the web app's tests share: the skip where the web extra is missing, Starlette's test
client, and the origin of the table's own page, which every state-changing request carries."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("httpx", reason="the web extra is not installed (pip install -e '.[web]')")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note that its test client will move to httpx2
    from starlette.testclient import TestClient

#: where the test client says it is: a loopback address the server answers (not
#: "testserver"), and so the origin of the table's own page
ORIGIN = "http://127.0.0.1:8000"


def web_client(app, **kwargs) -> TestClient:
    """A client of ``app`` as the table's own page is: same origin, JSON bodies."""
    return TestClient(app, base_url=ORIGIN, headers={"Origin": ORIGIN, "Content-Type": "application/json"}, **kwargs)


__all__ = ["ORIGIN", "TestClient", "web_client"]
