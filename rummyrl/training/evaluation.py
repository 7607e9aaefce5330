"""Evaluation during and after training, with evaluate.py's code (greedy policy, duplicate deals).

:func:`periodic_eval` logs the win rate against each baseline on fixed seeds and keeps the
best checkpoint (``best.pt``); :func:`final_report` plays the best checkpoint on fresh
seeds and writes the table, ``eval/results.json``, its chart and the learning curve that
:func:`plot_learning_curve` reads back from the TensorBoard logs.
"""

from __future__ import annotations

import json
import shlex
import sys
import typing
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from rummyrl import games as registry
from rummyrl import report, tournament
from rummyrl.agents.checkpoint import build_net, load_checkpoint
from rummyrl.agents.network import PolicyNet
from rummyrl.agents.neural import NeuralAgent

from .config import TrainConfig

if typing.TYPE_CHECKING:
    from .trainer import Trainer

EVAL_SEED = 10_007  # periodic evaluations: the seeds checkpoints are chosen on
FINAL_EVAL_SEED = 20_011  # the report after training: fresh seeds


def evaluate_policy(net: PolicyNet, cfg: TrainConfig, games: int, seed: int, opponents=None):
    """Greedy play of a copy of ``net`` against each baseline; returns a rummyrl.tournament.Tournament."""
    copy = PolicyNet(net.game, net.cfg)
    copy.load_state_dict(net.state_dict())
    agent = NeuralAgent(copy.eval(), name="policy")
    specs = ["policy"] + list(opponents if opponents is not None else cfg.eval.opponents)
    return tournament.run_tournament(specs, game=cfg.game, games=games, unit=cfg.eval.unit,
                                   players=cfg.num_players, seed=seed, options=eval_rules(cfg),
                                   show_progress=False, agents={"policy": agent}, pairs_with=0)


def eval_rules(cfg: TrainConfig) -> dict:
    """The rules of the evaluation games: the run's, with ``eval.max_hands`` as the cap on
    a game's deals (the rule option ``max_<deal>s``: Gin's ``max_hands``, Rummy's
    ``max_rounds``), which bounds an evaluation's cost whatever the policy plays."""
    if not cfg.eval.max_hands or cfg.eval.unit != "game":
        return dict(cfg.rules)
    key = f"max_{registry.get(cfg.game).deal}s"
    return {**cfg.rules, key: min(cfg.eval.max_hands, cfg.rules.get(key, cfg.eval.max_hands))}


def periodic_eval(tr: Trainer, writer) -> None:
    """Evaluate the current policy on the fixed seeds, log it at the current step and save
    ``best.pt`` when its score (``eval.best_by``: the mean win rate, or the win rate against
    one opponent) is the best so far."""
    cfg = tr.cfg
    t = evaluate_policy(tr.net, cfg, cfg.eval.games, EVAL_SEED)
    rates = {p.b: p.win_rate for p in t.pairings}
    for opp, r in rates.items():
        writer.add_scalar(f"eval/win_rate_vs_{opp}", r, tr.global_step)
    for p in t.pairings:
        writer.add_scalar(f"eval/points_per_game_vs_{p.b}", p.margin_a, tr.global_step)
    writer.add_scalar("eval/minutes", tr.elapsed / 60, tr.global_step)
    by = cfg.eval.best_by
    score = float(np.mean(list(rates.values()))) if by == "mean" else float(rates[by])
    tr.last_eval = {"step": tr.global_step, "minutes": tr.elapsed / 60, "win_rate": rates, "score": score}
    if score > tr.best_score:
        tr.best_score = score
        tr.save("best.pt")
    writer.flush()


def plot_learning_curve(run_dir: Path, out: Path | None = None, players: int = 2) -> Path | None:
    """Win rate against each baseline over training time, read from the TensorBoard logs;
    a dashed line at chance, 1 / ``players``."""
    acc = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    acc.Reload()
    tags = [t for t in acc.Tags().get("scalars", []) if t.startswith("eval/win_rate_vs_")]
    if not tags or "eval/minutes" not in acc.Tags()["scalars"]:
        return None
    minutes = {e.step: e.value for e in acc.Scalars("eval/minutes")}
    fig = Figure(figsize=(7, 4))
    ax = fig.subplots()
    for tag in tags:
        ev = [(minutes.get(e.step, np.nan), e.value) for e in acc.Scalars(tag)]
        ev.sort()
        ax.plot([m for m, _ in ev], [v for _, v in ev], marker="o", label=tag.split("_vs_")[1])
    ax.axhline(1 / players, color="grey", lw=0.8, ls="--", label="chance")
    ax.set_xlabel("training minutes")
    ax.set_ylabel("win rate (games to the target)")
    ax.set_ylim(0, 1)
    ax.legend()
    ax.set_title(f"learning curve: {run_dir.name}")
    fig.tight_layout()
    out = out or run_dir / "learning_curve.png"
    fig.savefig(out, dpi=110)
    return out


def reproduce_command(cfg: TrainConfig, checkpoint: Path, games: int) -> str:
    """The ``evaluate.py`` command that plays the final report's games again: the same
    opponents in the same order (each pairing's deals come from the seed and its place in
    the tournament), the same seed, unit, players and rules."""
    cmd = ["python", "evaluate.py", str(checkpoint), *cfg.eval.opponents, "--game", cfg.game,
           "--games", str(games), "--unit", cfg.eval.unit, "--seed", str(FINAL_EVAL_SEED)]
    game = registry.get(cfg.game)
    if game.min_players != game.max_players:  # evaluate.py's default is the game's own count
        cmd += ["--players", str(cfg.num_players)]
    for key, value in eval_rules(cfg).items():
        cmd += ["--option", f"{key}={json.dumps(value)}"]
    return shlex.join(cmd)


def final_report(tr: Trainer, games: int | None = None) -> None:
    """Evaluate the best checkpoint on fresh seeds against the baselines and print the table."""
    cfg = tr.cfg
    games = cfg.eval.final_games if games is None else games
    if games <= 0:
        return
    best = tr.run_dir / "best.pt"
    if best.exists():
        data = load_checkpoint(best, cfg.game)
        net = build_net(data)
        c = data.get("counters", {})
        what = f"{best} (saved at step {int(c.get('global_step', 0)):,} after {c.get('elapsed', 0) / 60:.1f} minutes" + \
               (", the untrained network: no later evaluation beat it" if c.get("updates") == 0 else "") + ")"
        path = best
    else:
        net, what = tr.net, "the final policy"
        path = tr.run_dir / "final.pt" if (tr.run_dir / "final.pt").exists() else None
    print(f"\nevaluating {what} on fresh deals ({games} games per opponent) ...", file=sys.stderr)
    t = evaluate_policy(net, cfg, games, FINAL_EVAL_SEED, opponents=cfg.eval.opponents)
    print(report.format_table(t))
    # which network the table is of (best.pt may be the untrained one when the curve only
    # fell), and the evaluate.py command that plays the same games again
    about = {"evaluated": what}
    if path is not None:
        about["reproduce"] = reproduce_command(cfg, path, games)
        print(f"\nthe same games again: {about['reproduce']}")
    jpath, ppath = report.write_outputs(t, tr.run_dir / "eval", about)
    curve = plot_learning_curve(tr.run_dir, players=cfg.num_players)
    print(f"\nwrote {jpath}, {ppath}" + (f" and {curve}" if curve else ""))
