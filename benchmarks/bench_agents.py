"""Decisions per second of the agents, batched: the baselines, the trained networks (with the
expert's preference as input, and plain) and search; prints a markdown table.

    python benchmarks/bench_agents.py [--batch 1024] [--calls 5] [--repeat 3] [--game gin] [--agent NAME=SPEC ...]

Each agent decides for the same ``--batch`` positions (taken from expert-vs-expert games,
every phase of a hand; in Rummy from 400 moves of each game, so that late rounds with a
turned-over stock, where ``planner`` races, are among them), ``--calls`` batches in a row
(as a tournament or a training run calls it: one batch alone after another agent's measures
the caches that agent emptied more than the agent), in rounds that alternate between the
agents; a row is the agent's best round of ``--repeat`` (a shared machine's slow spells then
fall on all of them).
``pretrained`` is the shipped network (``pretrained-plain`` the plain one, where a game has it), and the row after the baselines' the tuned rule whose
preference it reads (``expert:lookahead=4,...`` in Gin); ``network (plain)`` an untrained plain network of
the same width (its cost does not depend on its weights). Search decides for 1/16 of the
batch (it is that much slower), and its rate is scaled to decisions per second all the same.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numpy as np
import torch

from rummyrl import games


def positions(game: str, batch: int, seed: int = 0):
    from rummyrl import gin, rummy
    from rummyrl.agents import load_agent

    engine = gin if game == "gin" else rummy
    expert = load_agent("expert", game=game)
    st = engine.init(batch, seed=seed)
    obs, masks = [], []
    rng = np.random.default_rng(seed)
    for _ in range(40 if game == "gin" else 400):
        live = np.flatnonzero(~st.game_over)
        if live.size == 0:
            break
        o = engine.observe(st)
        pick = live[rng.random(live.size) < 0.1]
        obs.append(o[pick])
        masks.append(st.mask[pick].copy())
        a = np.zeros(batch, np.int64)
        a[live] = expert.act(o[live], st.mask[live])
        engine.step(st, a, inplace=True, active=~st.game_over)
    obs, masks = np.concatenate(obs), np.concatenate(masks)
    idx = rng.choice(len(obs), batch, replace=len(obs) < batch)
    return obs[idx], masks[idx]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--calls", type=int, default=5, help="batches each agent decides in a row per round (default 5)")
    ap.add_argument("--game", default="gin", choices=games.names())
    ap.add_argument("--json", type=Path, help="also write the table to this JSON file (for docs/results)")
    ap.add_argument("--agent", action="append", default=[], metavar="NAME=SPEC",
                    help="one more row: the agent SPEC (a name or a checkpoint) as NAME (repeatable), e.g. an "
                         "earlier network measured in the same run")
    args = ap.parse_args(argv)
    extra = {}
    for item in args.agent:
        name, sep, spec = item.partition("=")
        if not (sep and name and spec):
            ap.error(f"--agent takes NAME=SPEC, got {item!r}")
        extra[name] = spec
    from rummyrl.agents import load_agent
    from rummyrl.agents.checkpoint import pretrained_path
    from rummyrl.agents.network import NetConfig, PolicyNet
    from rummyrl.agents.neural import NeuralAgent

    torch.set_num_threads(1)
    obs, masks = positions(args.game, args.batch)
    names = ("random", *games.get(args.game).agents, "pretrained")
    if pretrained_path(args.game, "pretrained-plain").is_file():  # the shipped plain network
        names += ("pretrained-plain",)
    agents = {name: load_agent(name, game=args.game, seed=0) for name in names}
    pre = agents["pretrained"].net.cfg
    if pre.expert_params:  # the tuned rule whose preference the shipped network reads
        rule = f"{'planner' if pre.features == 'expert_plan' else 'expert'}:{pre.expert_params}"
        agents[rule] = load_agent(rule, game=args.game, seed=0)
    plain = NetConfig(hidden=pre.hidden, layers=pre.layers, prior_scale=0.0,
                      features="engine" if games.get(args.game).engine_features else "none")
    agents["network (plain)"] = NeuralAgent(PolicyNet(args.game, plain))
    if "planner" in games.get(args.game).agents:  # the planner's race as the network's features
        planned = NetConfig(hidden=pre.hidden, layers=pre.layers, prior_scale=pre.prior_scale, features="expert_plan")
        agents["network (expert_plan)"] = NeuralAgent(PolicyNet(args.game, planned))
    agents.update({name: load_agent(spec, game=args.game, seed=0) for name, spec in extra.items()})
    agents["search"] = load_agent("search", game=args.game, seed=0)
    for name, a in agents.items():  # compile and warm up, at the batch measured
        a.act(obs[:16] if name == "search" else obs, masks[:16] if name == "search" else masks)
    best = {name: 0.0 for name in agents}
    for _ in range(args.repeat):
        for name, agent in agents.items():
            # each agent decides --calls batches in a row, as a tournament calls it: the first
            # batch after another agent's pays for the caches that agent emptied
            n, calls = (max(args.batch // 16, 1), 1) if name == "search" else (args.batch, args.calls)
            t0 = time.perf_counter()
            for _ in range(calls):
                agent.act(obs[:n], masks[:n])
            best[name] = max(best[name], n * calls / (time.perf_counter() - t0))
    print(f"{args.game}: decisions per second, batches of {args.batch} positions, {args.calls} in a row "
          f"(search: one of {max(args.batch // 16, 1)}), best of {args.repeat} alternating rounds, torch on 1 thread\n")
    print("| agent | decisions / s |")
    print("| --- | ---: |")
    for name, rate in best.items():
        print(f"| {name} | {rate:,.0f} |")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({
            "game": args.game, "batch": args.batch, "search_batch": max(args.batch // 16, 1),
            "repeat": args.repeat, "calls": args.calls, "torch_threads": 1, "machine": f"{platform.machine()}, {os.cpu_count()} cores",
            "measured": time.strftime("%Y-%m-%d"), "decisions_per_second": best}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
