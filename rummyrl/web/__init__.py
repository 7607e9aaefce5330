"""The browser app: play Gin Rummy or Rummy against an agent, replay recorded games, and
see why each agent moved (``rummyrl-web``, or ``python -m rummyrl.web``; docs/web.md).

:mod:`.server` is the HTTP API and the command line, :mod:`.play` the games in play,
:mod:`.replays` the recorded games, :mod:`.why` the reasons as rows a person reads; the
pages are plain HTML, CSS and JavaScript in ``static/``, and the card table is drawn by
:mod:`rummyrl.envs.render_html`, as in notebooks. It needs the ``web`` extra
(``pip install -e ".[web]"``: Starlette and uvicorn).
"""

from .server import create_app, main

__all__ = ["create_app", "main"]
