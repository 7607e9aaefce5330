"""How many requests a second the web app answers for a game in play, and how long ordinary
requests wait while another client asks for a long explanation: a bounded load test on
127.0.0.1.

    python benchmarks/bench_web.py                 # both sections, this checkout's server
    python benchmarks/bench_web.py --requests 2000 --seconds 60 --clients 1 4 8 --sections throughput
    git worktree add /tmp/before REV && python benchmarks/bench_web.py --compare /tmp/before --json docs/results/bench_web.json

Throughput (``--sections throughput``): it starts ``rummyrl-web`` on a free port of
127.0.0.1 (one uvicorn process, the ``expert`` opponent), then for each request kind and
number of clients sends at most ``--requests`` requests, for at most ``--seconds``, and
prints a table: requests a second and the median and 95th-percentile latency. The kinds are
reading a game's state, a move (the person's move, which the server checks and plays, then
the agent's answer: the person plays the first legal move the server lists, and a finished
game is replaced by a new one) and a hint (the expert's preferences in the person's seat).

Beside an explanation (``--sections why``): the server is started with ``--opponent expert
--opponent WHY_AGENT --records DIR``, where DIR holds games that ``WHY_AGENT`` (default
``search:worlds=512``, about a second and a half per explanation here) played against
``expert`` (made once, or reused with ``--why-records DIR``). ``--why-clients`` clients
send ordinary requests in turn (GET a game's state, GET a record's frame
``/api/records/{n}?step=i``, POST a move), at most ``--why-requests`` and ``--why-seconds``
per phase, first alone, then while one more client asks
``GET /api/records/{n}/why?step=i`` over and over (a step where ``WHY_AGENT`` is to act,
computed now); ``--rounds`` times. It prints the median and 99th-percentile latency of each
kind, alone and beside the explanation, and how long the explanations took.

``--compare ROOT`` also starts a server from the checkout ROOT (``git worktree add ROOT
REV``), labelled ``before``, and alternates the two servers phase by phase in the same run,
so that the ratio comes from one run on one machine; this checkout's (or ``--server-root``'s)
server is ``after`` (``--label``). Each server runs its own checkout's ``rummyrl``, agents
and environments included, and says so at start (the JSON's ``code``); the throughput
section measures only the ``after`` server. Every request goes to 127.0.0.1 only, each
carries the ``Origin`` and ``Content-Type`` the server asks of a browser, and the servers
are stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def checkout_name(root: Path, commit: str) -> str:
    """What the JSON says of a checkout: this one, or another at its commit (never a path of
    this machine: the results must not name folders outside the repository)."""
    return "this checkout" if Path(root).resolve() == ROOT else f"a checkout of {commit[:12]}"
WHY_AGENT = "search:worlds=512"

#: run ``rummyrl-web`` from the checkout ``argv[1]`` (its ``rummyrl``, ``agents`` and ``envs``
#: as pyproject.toml maps them, whatever this interpreter has installed), check once the app
#: is built that every ``rummyrl`` module loaded came from there, and say so on stderr
LAUNCH = r"""
import importlib.abc, importlib.util, os, sys
root = os.path.realpath(sys.argv[1])
DIRS = {"rummyrl": "rummyrl", "rummyrl.agents": "agents", "rummyrl.envs": "envs"}
class Checkout(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name in DIRS:
            d = os.path.join(root, DIRS[name])
            return importlib.util.spec_from_file_location(name, os.path.join(d, "__init__.py"),
                                                          submodule_search_locations=[d])
        return None
sys.meta_path.insert(0, Checkout())
import rummyrl.web.server as srv
make = srv.create_app
def create_app(*a, **k):
    app = make(*a, **k)
    mods = [m for m in list(sys.modules.values()) if m.__name__.split(".")[0] == "rummyrl"
            and getattr(m, "__file__", None)]
    away = sorted(m.__name__ for m in mods if not os.path.realpath(m.__file__).startswith(root + os.sep))
    if away:
        sys.exit(f"bench_web: modules not from {root}: {away}")
    print(f"bench_web code: {len(mods)} rummyrl modules from {root}", file=sys.stderr, flush=True)
    return app
srv.create_app = create_app
sys.exit(srv.main(sys.argv[2:]))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def git(root: Path, *args) -> str:
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


class Server:
    """``rummyrl-web`` from the checkout ``root`` on a free port of 127.0.0.1."""

    def __init__(self, root: Path, label: str, args: list[str]):
        self.root, self.label = Path(root).resolve(), label
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        self.proc = subprocess.Popen([sys.executable, "-c", LAUNCH, str(self.root), "--port", str(self.port), *args],
                                     cwd=self.root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True)
        self.err: list[str] = []
        threading.Thread(target=lambda: self.err.extend(self.proc.stderr), daemon=True).start()
        for _ in range(1200):
            try:
                httpx.get(f"{self.base}/api/config", timeout=1.0)
                break
            except httpx.TransportError:
                if self.proc.poll() is not None:
                    time.sleep(0.2)
                    raise RuntimeError(f"the server of {self.root} did not start: {''.join(self.err)[-2000:]}")
                time.sleep(0.1)
        else:
            self.stop()
            raise RuntimeError(f"the server of {self.root} did not answer within 120 s")
        said = [line.strip() for line in self.err if line.startswith("bench_web code:")]
        if not said:
            self.stop()
            raise RuntimeError(f"the server of {self.root} did not say where its code came from")
        commit = git(self.root, "rev-parse", "HEAD")
        where = checkout_name(self.root, commit)
        self.code = {"label": label, "root": where, "commit": commit,
                     "changed_files": len(git(self.root, "status", "--porcelain", "--untracked-files=no").splitlines()),
                     "said": said[0].replace(str(self.root), where)}

    def client(self, timeout: float = 30.0) -> httpx.Client:
        # what the page itself sends: the new server refuses a POST or DELETE without them
        return httpx.Client(base_url=self.base, timeout=timeout, headers={"Origin": self.base})

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


class Player:
    """One client's game in play (a new one when it ends)."""

    def __init__(self, client: httpx.Client, game: str, seed: int):
        self.client, self.game, self.seed = client, game, seed
        self.new()

    def new(self):
        self.seed += 1
        body = {"game": self.game, "seed": self.seed}
        self.state = self.client.post("/api/games", json=body).raise_for_status().json()

    def move(self):
        s = self.state
        r = self.client.post(f"/api/games/{s['id']}/move", json={"action": s["moves"][0]["action"], "step": s["step"]})
        self.state = r.raise_for_status().json()
        if self.state["over"]:
            self.new()

    def read(self):
        self.client.get(f"/api/games/{self.state['id']}").raise_for_status()

    def hint(self):
        self.client.get(f"/api/games/{self.state['id']}/hint").raise_for_status()


def run(server: Server, kind: str, game: str, clients: int, requests: int, seconds: float) -> dict:
    lat: list[float] = []
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds
    budget = [requests]

    def work(k: int):
        with server.client() as client:
            p = Player(client, game, 1000 * k)
            call = getattr(p, kind)
            while time.perf_counter() < deadline:
                with lock:
                    if budget[0] <= 0:
                        return
                    budget[0] -= 1
                t0 = time.perf_counter()
                call()
                dt = time.perf_counter() - t0
                with lock:
                    lat.append(dt)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    ms = np.array(lat) * 1000
    return {"kind": kind, "game": game, "clients": clients, "requests": len(lat), "seconds": wall,
            "rate": len(lat) / wall, "p50": float(np.median(ms)), "p95": float(np.percentile(ms, 95))}


# --------------------------------------------------------------------------------------
# Ordinary requests beside a long explanation
# --------------------------------------------------------------------------------------
def why_records(folder: Path | None, agent: str, games: int, seed: int) -> tuple[Path, list[tuple[int, int]], int]:
    """The records folder (made when it holds no games.jsonl: ``agent`` against ``expert``,
    ``games`` single hands of Gin Rummy), the (record, step) pairs where ``agent`` is to act
    with a choice to make, and the number of steps of the first record."""
    from rummyrl import records
    from rummyrl.tournament import run_tournament

    folder = Path(folder) if folder is not None else Path(tempfile.mkdtemp(prefix="bench_web_"))
    path = folder / records.FILE_NAME
    if not path.is_file() or not path.read_text().strip():
        print(f"playing {games} hands of expert against {agent} for the records ({path}) ...", file=sys.stderr)
        t = run_tournament(["expert", agent], game="gin", games=games, unit="hand", seed=seed,
                           show_progress=False, record=True)
        records.write_records(path, [r for p in t.pairings for r in p.records], append=False)
    recs = records.read_records(path)
    steps = []
    for rid, rec in enumerate(recs):
        if agent not in (rec.get("seat_specs") or []):
            raise SystemExit(f"bench_web: {path} record {rid} was not played by {agent}: its seat_specs are "
                             f"{rec.get('seat_specs')}; choose another --why-records folder")
        rp = records.replay(rec)
        for i in range(rp.steps):
            st = rp._states[i]
            if rec["seat_specs"][int(st.current[0])] == agent and int(np.asarray(st.mask).sum()) > 1:
                steps.append((rid, i))
    if not steps:
        raise SystemExit(f"bench_web: {agent} has no decision to explain in {path}")
    return folder, steps, [records.replay(r).steps for r in recs]


class Why(threading.Thread):
    """One client asking for explanations, one after another, until told to stop."""

    def __init__(self, server: Server, steps: list[tuple[int, int]], start_at: int):
        super().__init__(daemon=True)
        self.server, self.steps, self.k = server, steps, start_at
        self.lat: list[float] = []
        self.status: dict[str, int] = {}
        self.stop, self.started = threading.Event(), threading.Event()

    def run(self):
        with self.server.client(timeout=120.0) as client:
            while not self.stop.is_set():
                rid, step = self.steps[self.k % len(self.steps)]
                self.k += 1
                self.started.set()
                t0 = time.perf_counter()
                try:
                    code = str(client.get(f"/api/records/{rid}/why", params={"step": step}).status_code)
                except httpx.TransportError as e:
                    code = type(e).__name__
                self.lat.append(time.perf_counter() - t0)
                self.status[code] = self.status.get(code, 0) + 1


KINDS = ("read", "frame", "move")


def ordinary(server: Server, clients: int, requests: int, seconds: float, frames: list[int], seed: int) -> dict:
    """``clients`` clients sending GET state, GET a record's frame and POST a move in turn;
    the latencies of each kind (seconds)."""
    lat: dict[str, list[float]] = {k: [] for k in KINDS}
    lock = threading.Lock()
    budget = [requests]
    failed: list[str] = []
    deadline = time.perf_counter() + seconds

    def work(c: int):
        rng = np.random.default_rng(seed + c)
        with server.client() as client:
            p = Player(client, "gin", seed * 1000 + 100 * c)
            n = c
            while time.perf_counter() < deadline:
                with lock:
                    if budget[0] <= 0:
                        return
                    budget[0] -= 1
                kind = KINDS[n % len(KINDS)]
                n += 1
                t0 = time.perf_counter()
                try:
                    if kind == "frame":
                        rid = int(rng.integers(len(frames)))
                        client.get(f"/api/records/{rid}", params={"step": int(rng.integers(frames[rid] + 1))}
                                   ).raise_for_status()
                    else:
                        getattr(p, kind)()
                except httpx.HTTPError as e:
                    failed.append(f"{kind}: {e}")
                    continue
                dt = time.perf_counter() - t0
                with lock:
                    lat[kind].append(dt)

    threads = [threading.Thread(target=work, args=(c,)) for c in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failed:
        raise RuntimeError(f"{len(failed)} ordinary requests failed on the {server.label} server, e.g. {failed[0]}")
    return lat


def summary(ms: np.ndarray) -> dict:
    if ms.size == 0:
        return {"requests": 0, "p50": None, "p99": None, "max": None}
    return {"requests": int(ms.size), "p50": float(np.median(ms)), "p99": float(np.percentile(ms, 99)),
            "max": float(ms.max())}


def beside_why(servers: list[Server], agent: str, steps, frames, args) -> dict:
    """Alone, then beside a client asking for explanations, ``args.rounds`` times, the servers
    in turn phase by phase."""
    lat = {(s.label, ph): {k: [] for k in KINDS} for s in servers for ph in ("alone", "beside why")}
    whys = {s.label: Why(s, steps, 0) for s in servers}  # the same steps asked of each server
    for s in servers:  # warm-up: the agents' first decisions, numba's first calls, one explanation of each record
        ordinary(s, 1, 30, 20, frames, seed=9)
        with s.client(timeout=120.0) as client:
            for rid in sorted({rid for rid, _ in steps}):
                step = next(i for r, i in steps if r == rid)
                r = client.get(f"/api/records/{rid}/why", params={"step": step})
                if r.status_code != 200:
                    raise RuntimeError(f"the {s.label} server does not explain record {rid} step {step} "
                                       f"({r.status_code}: {r.text[:300]}): start it with --opponent {agent}")
    for rnd in range(args.rounds):
        for s in servers:
            for phase in ("alone", "beside why"):
                why = None
                if phase == "beside why":
                    why = Why(s, steps, whys[s.label].k)
                    why.start()
                    why.started.wait(10)
                    time.sleep(0.05)  # the explanation is under way
                got = ordinary(s, args.why_clients, args.why_requests, args.why_seconds, frames, seed=100 + rnd)
                if why is not None:
                    why.stop.set()
                    why.join(150)
                    w = whys[s.label]
                    w.k, w.lat, w.status = why.k, w.lat + why.lat, {c: w.status.get(c, 0) + why.status.get(c, 0)
                                                                    for c in set(w.status) | set(why.status)}
                for k in KINDS:
                    lat[(s.label, phase)][k] += got[k]
                print(f"  round {rnd + 1}, {s.label}, {phase}: {sum(len(v) for v in got.values())} requests",
                      file=sys.stderr)
    rows = []
    for s in servers:
        for phase in ("alone", "beside why"):
            per = lat[(s.label, phase)]
            for k in (*KINDS, "all"):
                ms = np.array(sum(per.values(), []) if k == "all" else per[k]) * 1000
                rows.append({"code": s.label, "phase": phase, "kind": k, **summary(ms)})
    return {"agent": agent, "clients": args.why_clients, "requests": args.why_requests, "seconds": args.why_seconds,
            "rounds": args.rounds, "records": len(frames), "steps_explained": len(steps),
            "code": [s.code for s in servers], "rows": rows,
            "why": [{"code": s.label, **summary(np.array(whys[s.label].lat) * 1000),
                     "status": dict(sorted(whys[s.label].status.items()))} for s in servers]}


def fmt(x) -> str:
    return "-" if x is None else f"{x:,.1f}"


def print_why(res: dict):
    what = {"read": "GET state", "frame": "GET record frame", "move": "POST move (+ agent's reply)", "all": "all three"}
    print(f"ordinary requests beside GET /api/records/{{n}}/why (agent {res['agent']}), {res['clients']} clients, "
          f"at most {res['requests']} requests or {res['seconds']:g} s per phase, {res['rounds']} rounds")
    for c in res["code"]:
        changed = f" with {c['changed_files']} files changed" if c["changed_files"] else ""
        print(f"  {c['label']}: {c['root']} at {c['commit'][:12]}{changed}; {c['said']}")
    print()
    print("| code | request | alone: n | p50 ms | p99 ms | beside why: n | p50 ms | p99 ms |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    by = {(r["code"], r["phase"], r["kind"]): r for r in res["rows"]}
    for c in res["code"]:
        for k in (*KINDS, "all"):
            a, b = by[(c["label"], "alone", k)], by[(c["label"], "beside why", k)]
            print(f"| {c['label']} | {what[k]} | {a['requests']} | {fmt(a['p50'])} | {fmt(a['p99'])} | "
                  f"{b['requests']} | {fmt(b['p50'])} | {fmt(b['p99'])} |")
    for w in res["why"]:
        print(f"\n{w['code']}: {w['requests']} explanations, median {fmt(w['p50'])} ms, max {fmt(w['max'])} ms, "
              f"status {w['status']}", end="")
    print()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sections", nargs="+", default=["throughput", "why"], choices=["throughput", "why"])
    ap.add_argument("--requests", type=int, default=400, help="requests per row at most (default 400)")
    ap.add_argument("--seconds", type=float, default=20.0, help="seconds per row at most (default 20)")
    ap.add_argument("--clients", type=int, nargs="+", default=[1, 4], help="concurrent clients (default 1 4)")
    ap.add_argument("--games", nargs="+", default=["gin", "rummy"], choices=["gin", "rummy"])
    ap.add_argument("--why-agent", default=WHY_AGENT, help=f"the agent whose explanations are asked (default {WHY_AGENT})")
    ap.add_argument("--why-records", type=Path, default=None,
                    help="a folder of records the why agent played (made there when it holds none; default a "
                         "new temporary folder)")
    ap.add_argument("--why-hands", type=int, default=2, help="hands played to make the records (default 2)")
    ap.add_argument("--why-clients", type=int, default=2, help="clients sending ordinary requests (default 2)")
    ap.add_argument("--why-requests", type=int, default=450,
                    help="ordinary requests per phase at most (default 450)")
    ap.add_argument("--why-seconds", type=float, default=20.0, help="seconds per phase at most (default 20)")
    ap.add_argument("--rounds", type=int, default=2, help="alone / beside-why phases per server (default 2)")
    ap.add_argument("--server-root", type=Path, default=ROOT,
                    help="the checkout whose server is measured (default this one)")
    ap.add_argument("--label", default="after", help="its label in the why section (default after)")
    ap.add_argument("--compare", type=Path, default=None, metavar="ROOT",
                    help="also measure the server of the checkout ROOT in the why section, labelled before, "
                         "alternating with the other")
    ap.add_argument("--json", type=Path, help="also write the results to this JSON file (for docs/results)")
    args = ap.parse_args(argv)
    for root in [args.server_root] + ([args.compare] if args.compare else []):
        if not (root / "rummyrl" / "web" / "server.py").is_file():
            ap.error(f"{root} is not a rummyrl checkout (no rummyrl/web/server.py)")
    out: dict = {"machine": f"{platform.machine()}, {os.cpu_count()} cores", "measured": time.strftime("%Y-%m-%d"),
                 "opponent": "expert"}
    servers: list[Server] = []
    try:
        if "throughput" in args.sections:
            main_server = Server(args.server_root, args.label, ["--opponent", "expert"])
            servers.append(main_server)
            rows = []
            for game in args.games:
                for _ in range(2):  # warm-up: numba's first calls, the agent's first decisions
                    run(main_server, "move", game, 1, 20, 10)
                for kind in ("read", "move", "hint"):
                    for c in args.clients:
                        rows.append(run(main_server, kind, game, c, args.requests, args.seconds))
            main_server.stop()
            out["code"] = main_server.code
            out["rows"] = rows
            print(f"rummyrl-web on 127.0.0.1, one uvicorn process, {os.cpu_count()} CPUs; opponent expert "
                  f"({main_server.code['said']})")
            print()
            print("| game | request | clients | requests | seconds | requests / s | median ms | p95 ms |")
            print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
            what = {"read": "GET state", "move": "POST move (+ agent's reply)", "hint": "GET hint"}
            for r in rows:
                print(f"| {r['game']} | {what[r['kind']]} | {r['clients']} | {r['requests']} | {r['seconds']:.1f} | "
                      f"{r['rate']:,.0f} | {r['p50']:.1f} | {r['p95']:.1f} |")
            print()
        if "why" in args.sections:
            folder, steps, frames = why_records(args.why_records, args.why_agent, args.why_hands, seed=3)
            srv_args = ["--opponent", "expert", "--opponent", args.why_agent, "--records", str(folder.resolve())]
            pair = ([("before", args.compare)] if args.compare else []) + [(args.label, args.server_root)]
            whyers = []
            for label, root in pair:
                whyers.append(Server(root, label, srv_args))
                servers.append(whyers[-1])
            out["beside_why"] = beside_why(whyers, args.why_agent, steps, frames, args)
            print_why(out["beside_why"])
    finally:
        for s in servers:
            s.stop()
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
