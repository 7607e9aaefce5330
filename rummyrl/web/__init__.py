"""The browser app: play Gin Rummy or Rummy against an agent, replay recorded games, and
see why each agent moved (``rummyrl-web``, or ``python -m rummyrl.web``; docs/web.md).

:mod:`.server` is the HTTP API and the command line, :mod:`.guard` what every request is
checked for before it reaches a game, :mod:`.play` the games in play, :mod:`.replays` the
recorded games, :mod:`.why` the reasons, computed within a time limit, as rows a person
reads; the pages are plain HTML, CSS and JavaScript in ``static/``, and the card table is
drawn by :mod:`rummyrl.envs.render_html`, as in notebooks. It needs the ``web`` extra
(``pip install -e ".[web]"``: Starlette and uvicorn); without it, :func:`main` says so in
one line instead of a traceback.
"""

from __future__ import annotations

import sys

NEEDS = ("starlette", "uvicorn")


def _missing() -> list[str]:
    """The modules of the web extra that cannot be imported here."""
    import importlib
    out = []
    for name in NEEDS:
        try:
            importlib.import_module(name)
        except ImportError:
            out.append(name)
    return out


def create_app(*args, **kwargs):
    """:func:`rummyrl.web.server.create_app` (imported on first use: it needs the web extra)."""
    from .server import create_app as make
    return make(*args, **kwargs)


def main(argv=None) -> int:
    """``rummyrl-web``: the server's command line (:func:`rummyrl.web.server.main`)."""
    missing = _missing()
    if missing:
        print(f"rummyrl-web: error: the web app needs the web extra ({', '.join(missing)} missing): "
              f"pip install -e \".[web]\" in a checkout, or pip install \"rummyrl[web]\"; "
              f"bash scripts/web.sh sets it up and starts the server", file=sys.stderr)
        return 2
    from .server import main as run
    return run(argv)


__all__ = ["create_app", "main"]
