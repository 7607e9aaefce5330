"""The web app's server: its HTTP API, its pages, and the ``rummyrl-web`` command line.

    rummyrl-web                                        # play expert, simple or random at http://127.0.0.1:8000
    rummyrl-web --opponent pretrained --opponent runs/gin/best.pt
    rummyrl-web --records eval_results/gin/            # replay the games evaluate.py --record wrote

The agents a person may play, and the records to replay, are given here on the command
line and nowhere else: the browser picks one by its number, never by a path. The server
listens on 127.0.0.1 unless ``--host`` says otherwise. docs/web.md describes the pages;
the API is:

=======================================  ================================================
request                                  answer
=======================================  ================================================
``GET  /api/config``                     the games, the opponents, the record count
``POST /api/games``                      a new game: ``{"game", "opponent", "players",
                                         "seat", "seed"}`` (all optional; ``seed`` a
                                         number or a string of digits, and then the
                                         game is marked ``deal_known``)
``GET  /api/games/{id}``                 the game as its person sees it
``POST /api/games/{id}/move``            ``{"command": "x Kd"}`` or ``{"action": 12}``,
                                         with ``"step"`` (the game's step it was made at)
``GET  /api/games/{id}/hint``            what the opponent's agent weighs in your seat
``GET  /api/games/{id}/record``          the game's record, once the game is over
``DELETE /api/games/{id}``               close the game
``GET  /api/records``                    the records (``?offset=&limit=``)
``GET  /api/records/{n}?step=i``         the table before action ``i``, every hand face up
``GET  /api/records/{n}/why?step=i``     the reasons of the move at step ``i``, computed now
=======================================  ================================================

Every refused request gets a 4xx answer ``{"error": "...", "status": n}`` saying what was
wrong and what is allowed, and changes nothing; an explanation past ``--why-timeout`` gets 503.
Before any route, :class:`~.guard.Guard` checks the host a request names, that a request
which changes something comes from the table's own page, and the declared body size.
"""

from __future__ import annotations

import argparse
import socket
import sys
import threading
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from rummyrl import games as registry
from rummyrl.agents import load_agent
from rummyrl.agents.play_session import opponent_label
from rummyrl.envs.options import parse_key_values
from rummyrl.envs.render_html import TABLE_CSS
from rummyrl.records import FILE_NAME, RecordError, write_records

from .guard import (SECURITY_HEADERS, Guard, HostRule, error_response, in_range, int_param, is_every_address,
                    is_loopback, json_body, parse_seed, path_int)
from .play import ApiError, GameStore, Opponent, new_game
from .replays import Library
from .why import Explainer

STATIC = Path(__file__).resolve().parent / "static"
DEFAULT_OPPONENTS = ("expert", "simple", "random")


class Server:
    """What the app serves: the opponents, the rules, the games in play and the records."""

    def __init__(self, opponents=DEFAULT_OPPONENTS, records=(), rules: dict | None = None,
                 save: str | Path | None = None, max_games: int = 1000, per_client: int | None = None,
                 why_timeout: float = 10.0):
        self.rules = dict(rules or {})
        self.opponents = [self._opponent(spec) for spec in opponents]
        usable = [o for o in self.opponents if any(v is None for v in o.games.values())]
        if not usable:
            why = "; ".join(f"{o.spec}: {', '.join(f'{g} {v}' for g, v in o.games.items())}" for o in self.opponents)
            raise ValueError(f"no opponent can play any game: {why}")
        self.store = GameStore(max_games, per_client)
        self.library = Library(records, allowed_specs=[o.spec for o in self.opponents])
        self.explainer = Explainer(why_timeout)
        self.save = Path(save) if save else None
        self._save_lock = threading.Lock()

    def game_rules(self, game) -> dict:
        """The command line's rule options that ``game`` has."""
        fields = registry.get(game).config_cls.__dataclass_fields__
        return {k: v for k, v in self.rules.items() if k in fields}

    def _opponent(self, spec: str) -> Opponent:
        if not isinstance(spec, str) or not spec:
            raise ValueError(f"an opponent is an agent spec or a checkpoint path, got {spec!r}")
        o = Opponent(spec, opponent_label(spec))
        for name in registry.names():
            try:
                load_agent(spec, game=name, seed=0)
                o.games[name] = None
            except (ValueError, FileNotFoundError, KeyError, RuntimeError) as e:
                o.games[name] = str(e.args[0] if isinstance(e, KeyError) and e.args else e)
        return o

    def config(self) -> dict:
        gs = []
        for name in registry.names():
            g = registry.get(name)
            cfg = g.make_config(self.game_rules(name), episode="game")
            gs.append({"name": name, "title": g.title, "min_players": g.min_players, "max_players": g.max_players,
                       "default_players": g.default_players, "target": int(cfg.target), "deal": g.deal})
        broken = sum(e.broken is not None for e in self.library.entries)
        return {"games": gs, "records": len(self.library.entries) - broken, "broken_records": broken,
                "why_timeout": self.explainer.timeout,
                "opponents": [{"index": i, "label": o.label, "spec": o.spec,
                               "games": {g: v is None for g, v in o.games.items()},
                               "why_not": {g: v for g, v in o.games.items() if v}} for i, o in enumerate(self.opponents)]}

    def finished(self, game) -> None:
        """A game just ended: its record joins the replays (and ``--save``'s file)."""
        if game.record_saved or not game.session.game_over:
            return
        game.record_saved = True
        game.replay_id = self.library.add(game.recorder.record, f"played: {game.id}")
        if self.save is not None:
            with self._save_lock:
                write_records(self.save / FILE_NAME, [game.recorder.record])


# --------------------------------------------------------------------------------------
# Endpoints
# --------------------------------------------------------------------------------------
def srv(request: Request) -> Server:
    return request.app.state.server


async def index(request: Request):
    return FileResponse(STATIC / "index.html", headers=SECURITY_HEADERS)


async def table_css(request: Request):
    return Response(TABLE_CSS, media_type="text/css", headers=SECURITY_HEADERS)


async def get_config(request: Request):
    return JSONResponse(srv(request).config())


async def create_game(request: Request):
    s = srv(request)
    body = await json_body(request, {"game": str, "opponent": int, "players": int, "seat": int, "seed": (int, str)})
    game = body.get("game", "gin")
    if game not in registry.names():
        raise ApiError(422, f"unknown game {game[:40]!r}; choose one of {registry.names()}")
    g = registry.get(game)
    k = body.get("opponent", 0)
    if not 0 <= k < len(s.opponents):
        raise ApiError(422, f"opponent must be the number of one of the {len(s.opponents)} opponents given on the "
                            f"command line, 0..{len(s.opponents) - 1}, got {k}")
    opp = s.opponents[k]
    if opp.games.get(game) is not None:
        raise ApiError(422, f"{opp.label} cannot play {g.title}: {opp.games[game]}")
    players = body.get("players", g.default_players)
    if not g.min_players <= players <= g.max_players:
        allowed = f"{g.min_players}" if g.min_players == g.max_players else f"{g.min_players}..{g.max_players}"
        raise ApiError(422, f"{g.title} is played by {allowed} players, not {players}")
    seat = body.get("seat", 0)
    if not 0 <= seat < players:
        raise ApiError(422, f"seat must be 0..{players - 1} for {players} players, got {seat}")
    seed = parse_seed(body["seed"]) if "seed" in body else None  # None: a secret one (play.new_game)
    client = request.client.host if request.client else ""

    def start():
        gm = new_game(s.store, opp, game, players, seat, seed, s.game_rules(game), client)
        with gm.lock:
            s.finished(gm)
            return gm.response(gm.opening)

    return JSONResponse(await run_in_threadpool(start), status_code=201)


async def get_game(request: Request):
    gm = srv(request).store.get(request.path_params["gid"])

    def read():
        with gm.lock:
            return gm.response([])

    return JSONResponse(await run_in_threadpool(read))


async def move(request: Request):
    s = srv(request)
    gm = s.store.get(request.path_params["gid"])
    body = await json_body(request, {"command": str, "action": int, "step": int})
    if ("command" in body) == ("action" in body):
        raise ApiError(400, "send one of 'command' (a move as typed in the terminal game, e.g. 'x Kd') or "
                            "'action' (an action id of 'moves'), with 'step'")
    if "step" in body:
        in_range("field 'step'", body["step"], 0, 10**9)

    def play():
        with gm.lock:
            events = gm.move(body)
            s.finished(gm)
            return gm.response(events)

    return JSONResponse(await run_in_threadpool(play))


async def hint(request: Request):
    s = srv(request)
    gm = s.store.get(request.path_params["gid"])

    def prepare():
        with gm.lock:
            return gm.hint_task()

    return JSONResponse(await s.explainer.run(await run_in_threadpool(prepare)))


async def game_record(request: Request):
    gm = srv(request).store.get(request.path_params["gid"])
    with gm.lock:
        if not gm.session.game_over:
            raise ApiError(409, "the record holds every card of every deal: it is given once the game is over")
        return JSONResponse({"record": gm.recorder.record, "replay_id": getattr(gm, "replay_id", None)})


async def close_game(request: Request):
    srv(request).store.remove(request.path_params["gid"])
    return JSONResponse({"closed": request.path_params["gid"]})


async def list_records(request: Request):
    lib = srv(request).library
    return JSONResponse(lib.listing(int_param(request, "offset", 0), int_param(request, "limit", 200, 1, 1000)))


async def record_frame(request: Request):
    lib = srv(request).library
    rid = path_int(request, "rid", "record")
    step = int_param(request, "step", 0)
    return JSONResponse(await run_in_threadpool(lib.frame, rid, step))


async def record_why(request: Request):
    s = srv(request)
    rid = path_int(request, "rid", "record")
    step = int_param(request, "step")
    return JSONResponse(await s.explainer.run(await run_in_threadpool(s.library.why_task, rid, step)))


# --------------------------------------------------------------------------------------
# The app
# --------------------------------------------------------------------------------------
async def api_error(request: Request, exc: ApiError):
    return error_response(exc.status, exc.message)


async def http_error(request: Request, exc: HTTPException):
    if exc.status_code == 404:
        return error_response(404, f"no such page or API route: {request.method} {request.url.path[:80]} "
                                   f"(GET / for the app)")
    if exc.status_code == 405:
        return error_response(405, f"{request.method} is not allowed on {request.url.path[:80]}")
    return error_response(exc.status_code, str(exc.detail))


async def server_error(request: Request, exc: Exception):
    return error_response(500, f"internal error ({type(exc).__name__}); the game is as it was before this request")


class SecurityHeaders:
    """ASGI middleware: adds :data:`~.guard.SECURITY_HEADERS` to every answer."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with(message):
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = list(message.get("headers", [])) + [
                    (k.lower().encode(), v.encode()) for k, v in SECURITY_HEADERS.items() if k.lower().encode() not in have]
            await send(message)

        return await self.app(scope, receive, send_with)


def create_app(opponents=DEFAULT_OPPONENTS, records=(), rules: dict | None = None, save=None,
               max_games: int = 1000, host: str = "127.0.0.1", allowed_hosts=(), per_client: int | None = None,
               why_timeout: float = 10.0) -> Starlette:
    """The app (a Starlette application): ``opponents`` the agent specs a person may play,
    ``records`` files or folders of game records to replay, ``rules`` rule options of the
    games, ``save`` a folder for the records of the games played, ``max_games`` and
    ``per_client`` the games kept in all and per client, ``why_timeout`` the seconds an
    explanation may take. ``host`` is the address the server listens on and, with
    ``allowed_hosts``, decides which ``Host`` names it answers (:class:`~.guard.Guard`).
    Raises ValueError naming a bad argument."""
    server = Server(opponents, records, rules, save, max_games, per_client, why_timeout)
    routes = [
        Route("/", index),
        Route("/table.css", table_css),
        Route("/api/config", get_config),
        Route("/api/games", create_game, methods=["POST"]),
        Route("/api/games/{gid}", get_game, methods=["GET"]),
        Route("/api/games/{gid}", close_game, methods=["DELETE"]),
        Route("/api/games/{gid}/move", move, methods=["POST"]),
        Route("/api/games/{gid}/hint", hint),
        Route("/api/games/{gid}/record", game_record),
        Route("/api/records", list_records),
        Route("/api/records/{rid}", record_frame),
        Route("/api/records/{rid}/why", record_why),
        Mount("/static", StaticFiles(directory=STATIC)),
    ]
    middleware = [Middleware(SecurityHeaders), Middleware(Guard, hosts=HostRule(host, allowed_hosts))]
    app = Starlette(routes=routes, middleware=middleware,
                    exception_handlers={ApiError: api_error, HTTPException: http_error, Exception: server_error})
    app.router.redirect_slashes = False  # "/api/games/" is no route: a 404 in the API's form, not a redirect
    app.state.server = server
    return app


def _port(text: str) -> int:
    if not text.isascii() or not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number 0..65535 (0: any free one), got {text[:20]!r}")
    return int(text)


def _count(text: str) -> int:
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 1, got {text[:20]!r}")
    return int(text)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"must be a number of seconds in (0, 3600], got {text[:20]!r}")
    return value


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` and listening, so that the URL printed is one that
    works; OSError (the port in use, an address not of this machine) otherwise."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6 and is_every_address(host):
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind(address)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def exposure_warning(host: str) -> str:
    """What a server listening beyond this machine gives away (docs/web.md)."""
    return (f"rummyrl-web: warning: listening on {host}, not on this machine alone. Anyone who can reach it can "
            f"play here, see every replay with every hand face up (--records and the games finished here), and "
            f"make the server compute (agents' moves, explanations). It has no accounts: to put it on a network, "
            f"keep it on 127.0.0.1 behind a reverse proxy with authentication (docs/web.md).")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="rummyrl-web", description="Play and replay rummyrl games in a browser.",
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--opponent", action="append", default=None, metavar="SPEC",
                    help="an agent a person may play: a name (random, simple, expert, planner, search, pretrained, "
                         "with options as in evaluate.py) or a checkpoint path; repeatable (default: "
                         + ", ".join(DEFAULT_OPPONENTS) + ")")
    ap.add_argument("--records", action="append", default=[], metavar="PATH",
                    help=f"a records file (.jsonl) or a folder of them (evaluate.py --record's {FILE_NAME}) to "
                         "replay; repeatable")
    ap.add_argument("--save", default=None, metavar="DIR", help=f"append the record of each game played to DIR/{FILE_NAME}")
    ap.add_argument("--target", type=int, default=None, help="points that end a game (Gin 100, Rummy 200)")
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="a rule option, for each game that has it, e.g. --option knock_limit=5 (repeatable)")
    ap.add_argument("--host", default="127.0.0.1",
                    help="the address to listen on (default 127.0.0.1: this machine only; docs/web.md says what "
                         "another address exposes)")
    ap.add_argument("--port", type=_port, default=8000, help="the port (default 8000; 0: any free one)")
    ap.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                    help="a further host name the server answers to (e.g. a reverse proxy's); repeatable")
    ap.add_argument("--max-games", type=_count, default=1000, help="games kept at once (default 1000)")
    ap.add_argument("--games-per-client", type=_count, default=None,
                    help="games one client (address) may keep at once (default: a quarter of --max-games)")
    ap.add_argument("--why-timeout", type=_seconds, default=10.0,
                    help="seconds an explanation may take before it is answered 503 (default 10)")
    args = ap.parse_args(argv)
    try:
        rules = parse_key_values(args.option)
        if args.target is not None:
            rules["target"] = args.target
        known = set().union(*(registry.get(g).config_cls.__dataclass_fields__ for g in registry.names()))
        unknown = sorted(set(rules) - known)
        if unknown:
            raise ValueError(f"unknown rule option(s) {unknown}; the games' options: {sorted(known - {'episode'})}")
        for g in registry.names():  # every value checked by the games' configs now, not at the first game
            fields = registry.get(g).config_cls.__dataclass_fields__
            registry.get(g).make_config({k: v for k, v in rules.items() if k in fields}, episode="game")
        app = create_app(args.opponent or DEFAULT_OPPONENTS, args.records, rules, args.save, args.max_games,
                         args.host, args.allow_host, args.games_per_client, args.why_timeout)
    except (ValueError, FileNotFoundError, RecordError, KeyError) as e:
        msg = e.args[0] if isinstance(e, KeyError) and e.args else e
        print(f"rummyrl-web: error: {msg}", file=sys.stderr)
        return 2
    broken = app.state.server.library.listing(0, 0)["broken"]
    if broken:
        print(f"rummyrl-web: {broken} record(s) are broken and listed as such (the Replay tab says why)",
              file=sys.stderr)
    try:
        sock = listen(args.host, args.port)
    except OSError as e:
        print(f"rummyrl-web: error: cannot listen on {args.host}:{args.port}: {e.strerror or e}; choose another "
              f"--port (0 picks a free one) or --host", file=sys.stderr)
        return 2
    port = sock.getsockname()[1]
    if not is_loopback(args.host):
        print(exposure_warning(args.host), file=sys.stderr)
    shown = "127.0.0.1" if is_every_address(args.host) else (f"[{args.host}]" if ":" in args.host else args.host)
    print(f"rummyrl-web: http://{shown}:{port}/ (Ctrl-C stops it)", file=sys.stderr)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    try:
        server.run(sockets=[sock])
    finally:
        app.state.server.explainer.close()
    return 0


__all__ = ["Server", "create_app", "main"]
