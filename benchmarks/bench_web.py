"""How many requests a second the web app answers for a game in play: a bounded load test
on 127.0.0.1.

    python benchmarks/bench_web.py                 # 400 requests per row, at most 20 s each
    python benchmarks/bench_web.py --requests 2000 --seconds 60 --clients 1 4 8

It starts ``python -m rummyrl.web`` on a free port of 127.0.0.1 (one uvicorn process, the
``expert`` opponent), then for each request kind and number of clients sends at most
``--requests`` requests, for at most ``--seconds``, and prints a table: requests a second
and the median and 95th-percentile latency. The kinds are reading a game's state, a move
(the person's move, which the server checks and plays, then the agent's answer: the
person plays the first legal move the server lists, and a finished game is replaced by a
new one) and a hint (the expert's preferences in the person's seat). Every request goes to
127.0.0.1 only, and the server is stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import numpy as np


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "rummyrl.web", "--port", str(port), "--opponent", "expert"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for _ in range(600):
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/config", timeout=1.0)
            return proc
        except httpx.TransportError:
            if proc.poll() is not None:
                raise RuntimeError(f"the server did not start: {proc.stderr.read()[-2000:]}")
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not answer within 60 s")


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


def run(base: str, kind: str, game: str, clients: int, requests: int, seconds: float) -> dict:
    lat: list[float] = []
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds
    budget = [requests]

    def work(k: int):
        with httpx.Client(base_url=base, timeout=30.0) as client:
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=400, help="requests per row at most (default 400)")
    ap.add_argument("--seconds", type=float, default=20.0, help="seconds per row at most (default 20)")
    ap.add_argument("--clients", type=int, nargs="+", default=[1, 4], help="concurrent clients (default 1 4)")
    ap.add_argument("--games", nargs="+", default=["gin", "rummy"], choices=["gin", "rummy"])
    ap.add_argument("--json", type=Path, help="also write the rows to this JSON file (for docs/results)")
    args = ap.parse_args(argv)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start_server(port)
    rows = []
    try:
        for game in args.games:
            for _ in range(2):  # warm-up: numba's first calls, the agent's first decisions
                run(base, "move", game, 1, 20, 10)
            for kind in ("read", "move", "hint"):
                for c in args.clients:
                    rows.append(run(base, kind, game, c, args.requests, args.seconds))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    print(f"rummyrl-web on 127.0.0.1, one uvicorn process, {os.cpu_count()} CPUs; opponent expert")
    print()
    print("| game | request | clients | requests | seconds | requests / s | median ms | p95 ms |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    what = {"read": "GET state", "move": "POST move (+ agent's reply)", "hint": "GET hint"}
    for r in rows:
        print(f"| {r['game']} | {what[r['kind']]} | {r['clients']} | {r['requests']} | {r['seconds']:.1f} | "
              f"{r['rate']:,.0f} | {r['p50']:.1f} | {r['p95']:.1f} |")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"machine": f"{platform.machine()}, {os.cpu_count()} cores",
                                         "measured": time.strftime("%Y-%m-%d"), "opponent": "expert",
                                         "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
