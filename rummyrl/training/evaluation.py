"""Evaluation during and after training, with evaluate.py's code (greedy policy, duplicate deals).

:func:`periodic_eval` logs the win rate against each baseline on fixed seeds and keeps the
best checkpoint (``best.pt``); :func:`start_eval` plays the network a run starts from (step
0, before any update) on the final report's deals; :func:`final_report` plays the best
checkpoint on those deals and writes the table, beside it the step-0 result (what training
added), ``eval/results.json``, its chart and the learning curve that
:func:`plot_learning_curve` reads back from the TensorBoard logs.
"""

from __future__ import annotations

import json
import sys
import typing
from pathlib import Path

import numpy as np
import torch
from matplotlib.figure import Figure
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from rummyrl import games as registry
from rummyrl import records, report, tournament
from rummyrl.agents.checkpoint import build_net, load_checkpoint
from rummyrl.agents.network import PolicyNet
from rummyrl.agents.neural import NeuralAgent

from .commands import command_line
from .config import TrainConfig

if typing.TYPE_CHECKING:
    from .trainer import Trainer

EVAL_SEED = 10_007  # periodic evaluations: the seeds checkpoints are chosen on
FINAL_EVAL_SEED = 20_011  # the report after training: fresh seeds

#: the TensorBoard keys this module logs, and what each means
METRICS = {
    "eval/win_rate_vs_<opp>": "periodic evaluation: the greedy policy's win rate against each of `eval.opponents`",
    "eval/points_per_game_vs_<p.b>": "periodic evaluation: its mean final margin per game against that opponent",
    "eval/minutes": "minutes of training at that evaluation",
    "start/win_rate_vs_<p.b>": "at step 0: the starting network's win rate against each of `eval.opponents` on the final report's deals (`eval.final_games` games), which the final report sets beside its own",
}


def evaluate_policy(net: PolicyNet, cfg: TrainConfig, games: int, seed: int, opponents=None, record: bool = False):
    """Greedy play of a copy of ``net`` against each baseline; returns a rummyrl.tournament.Tournament
    (with every game's record in its pairings' ``records`` when ``record``)."""
    copy = PolicyNet(net.game, net.cfg)
    copy.load_state_dict(net.state_dict())
    agent = NeuralAgent(copy.eval(), name="policy")
    specs = ["policy"] + list(opponents if opponents is not None else cfg.eval.opponents)
    return tournament.run_tournament(specs, game=cfg.game, games=games, unit=cfg.eval.unit,
                                   players=cfg.num_players, seed=seed, options=eval_rules(cfg),
                                   show_progress=False, agents={"policy": agent}, pairs_with=0, record=record)


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
    rates = {p.b: p.win_rate for p in t.pairings}  # by label: a checkpoint's folder/file
    by_spec = {spec: p.win_rate for spec, p in zip(cfg.eval.opponents, t.pairings)}  # what eval.best_by names
    for opp, r in rates.items():
        writer.add_scalar(f"eval/win_rate_vs_{opp}", r, tr.global_step)
    for p in t.pairings:
        writer.add_scalar(f"eval/points_per_game_vs_{p.b}", p.margin_a, tr.global_step)
    writer.add_scalar("eval/minutes", tr.elapsed / 60, tr.global_step)
    by = cfg.eval.best_by
    score = float(np.mean(list(rates.values()))) if by == "mean" else float(by_spec[by])
    tr.last_eval = {"step": tr.global_step, "minutes": tr.elapsed / 60, "win_rate": rates, "score": score}
    if score > tr.best_score:
        tr.best_score = score
        tr.save("best.pt")
    writer.flush()


def eval_curves(run_dir: Path) -> dict[str, list[dict]]:
    """The periodic evaluations of a run, read from its TensorBoard log: per opponent's
    label, ``[{"step", "minutes", "win_rate"}]`` in order of steps ({} before the first)."""
    acc = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    acc.Reload()
    tags = [t for t in acc.Tags().get("scalars", []) if t.startswith("eval/win_rate_vs_")]
    if not tags or "eval/minutes" not in acc.Tags()["scalars"]:
        return {}
    minutes = {e.step: e.value for e in acc.Scalars("eval/minutes")}
    return {tag.split("_vs_", 1)[1]: [{"step": int(e.step), "minutes": round(float(minutes.get(e.step, np.nan)), 3),
                                       "win_rate": round(float(e.value), 4)}
                                      for e in sorted(acc.Scalars(tag), key=lambda e: e.step)] for tag in tags}


def plot_learning_curve(run_dir: Path, out: Path | None = None, players: int = 2) -> Path | None:
    """Win rate against each baseline over training time, read from the TensorBoard logs;
    a dashed line at chance, 1 / ``players``."""
    curves = eval_curves(run_dir)
    if not curves:
        return None
    fig = Figure(figsize=(7, 4))
    ax = fig.subplots()
    for label, points in curves.items():
        ax.plot([p["minutes"] for p in points], [p["win_rate"] for p in points], marker="o", label=label)
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


def start_eval(tr: Trainer, writer=None) -> dict | None:
    """Play the network the run starts from (before any update) on the final report's deals
    (``eval.final_games`` per opponent, seed :data:`FINAL_EVAL_SEED`), so that the report
    can set the result beside it; kept in ``tr.start_eval`` (and so in the checkpoints, for
    resumed runs) and logged as ``start/win_rate_vs_<opponent>`` at step 0. Leaves every
    random generator as it was: the run trains as it would without it. None when the run
    has no final report (``eval.final_games: 0``)."""
    cfg = tr.cfg
    games = cfg.eval.final_games
    if games <= 0:
        return None
    state = np.random.get_state()
    with torch.random.fork_rng(devices=[]):
        t = evaluate_policy(tr.net, cfg, games, FINAL_EVAL_SEED)
    np.random.set_state(state)
    # plain data (json's), which checkpoints read back with torch.load(weights_only=True)
    tr.start_eval = json.loads(json.dumps({"network": start_label(cfg), "step": tr.global_step, **_deals(cfg, games),
                                           "pairings": [p.to_dict() for p in t.pairings]}))
    if writer is not None:
        for p in t.pairings:
            writer.add_scalar(f"start/win_rate_vs_{p.b}", p.win_rate, tr.global_step)
        writer.flush()
    return tr.start_eval


def start_label(cfg: TrainConfig) -> str:
    """What the network of step 0 is: the untrained network (which, with ``net.prior_scale``,
    plays close to its prior, the expert's preference), or the network of ``init``."""
    if cfg.init:
        return f"step 0: the network of init={cfg.init}"
    return "step 0: the untrained network" + (", which plays its prior" if cfg.net.prior_scale else "")


def _deals(cfg: TrainConfig, games: int) -> dict:
    """What makes two evaluations play the same games."""
    return {"games": games, "seed": FINAL_EVAL_SEED, "opponents": list(cfg.eval.opponents), "unit": cfg.eval.unit,
            "players": cfg.num_players, "rules": eval_rules(cfg)}


def start_summary(start: dict) -> str:
    """One line of the step-0 result: the network, its win rate against each opponent, the games."""
    rates = ", ".join(f"{p['b']} {p['win_rate_a']:.1%}" for p in start["pairings"])
    return f"{start['network']}: {rates} ({start['games']} games each, the final report's deals)"


def reproduce_command(cfg: TrainConfig, checkpoint: Path, games: int) -> str:
    """The ``evaluate.py`` command that plays the final report's games again: the same
    opponents in the same order (each pairing's deals come from the seed and its place in
    the tournament), the same seed, unit, players and rules; spelled as this process was
    started (:func:`~.commands.tool_command`: ``.venv/bin/python evaluate.py``,
    ``rummyrl-evaluate``), so that it runs where the run ran."""
    args = [str(checkpoint), *cfg.eval.opponents, "--game", cfg.game, "--games", str(games),
            "--unit", cfg.eval.unit, "--seed", str(FINAL_EVAL_SEED)]
    game = registry.get(cfg.game)
    if game.min_players != game.max_players:  # evaluate.py's default is the game's own count
        args += ["--players", str(cfg.num_players)]
    for key, value in eval_rules(cfg).items():
        args += ["--option", f"{key}={json.dumps(value)}"]
    return command_line("evaluate", *args)


def final_report(tr: Trainer, games: int | None = None) -> None:
    """Evaluate the best checkpoint on fresh seeds against the baselines and print the table,
    with the step-0 result beside it (:func:`start_eval`)."""
    report_run(tr.cfg, tr.run_dir, games, net=tr.net, start=tr.start_eval)


def report_run(cfg: TrainConfig, run_dir: Path, games: int | None = None, net: PolicyNet | None = None,
               start: dict | None = None, checkpoint: Path | None = None) -> Path | None:
    """The final report of the run in ``run_dir`` (:func:`final_report`): ``checkpoint`` when
    given, else ``best.pt`` (else ``net``, the final policy) on the final report's deals,
    beside ``start`` when it was played on the same deals; returns the ``results.json`` written."""
    games = cfg.eval.final_games if games is None else games
    if games <= 0:
        return None
    run_dir = Path(run_dir)
    best = Path(checkpoint) if checkpoint is not None else run_dir / "best.pt"
    if checkpoint is not None and not best.is_file():
        raise FileNotFoundError(f"{best}: no such checkpoint to report on")
    if best.exists():
        data = load_checkpoint(best, cfg.game)
        net = build_net(data)
        c = data.get("counters", {})
        what = f"{best} (saved at step {int(c.get('global_step', 0)):,} after {c.get('elapsed', 0) / 60:.1f} minutes" + \
               (", the untrained network: no later evaluation beat it" if c.get("updates") == 0 else "") + ")"
        path = best
    else:
        if net is None:
            raise FileNotFoundError(f"{run_dir} holds no best.pt to report on")
        what = "the final policy"
        path = run_dir / "final.pt" if (run_dir / "final.pt").exists() else None
    print(f"\nevaluating {what} on fresh deals ({games} games per opponent) ...", file=sys.stderr)
    t = evaluate_policy(net, cfg, games, FINAL_EVAL_SEED, opponents=cfg.eval.opponents, record=True)
    print(report.format_table(t))
    # which network the table is of (best.pt may be the untrained one when the curve only
    # fell), what training added to the network it started from, and the evaluate.py
    # command that plays the same games again
    about = {"evaluated": what}
    added = training_added(t, start, cfg, games)
    if added is not None:
        about["start"] = start
        about["training_added"] = added
        print("\n" + format_added(added, start, path.name if path is not None else "the final policy", games))
    elif start is not None:
        print(f"\n({start['network']} was played on other deals, {start['games']} games per opponent: "
              f"{start_summary(start)}; not set beside this table)")
    if path is not None:
        about["reproduce"] = reproduce_command(cfg, path, games)
        print(f"\nthe same games again: {about['reproduce']}")
    jpath, ppath = report.write_outputs(t, run_dir / "eval", about)
    # every game of the report, replayable (rummyrl-web --records RUN/eval)
    records.write_records(run_dir / "eval" / records.FILE_NAME, [r for p in t.pairings for r in p.records], append=False)
    curve = plot_learning_curve(run_dir, players=cfg.num_players)
    print(f"\nwrote {jpath}, {ppath}" + (f" and {curve}" if curve else ""))
    return jpath


def training_added(t, start: dict | None, cfg: TrainConfig, games: int) -> dict | None:
    """Per opponent, the win rate of step 0 and of the evaluated network on the same games
    and the difference (points of win rate); None when ``start`` is missing or was played
    on other games."""
    if not start or {k: start.get(k) for k in _deals(cfg, games)} != _deals(cfg, games):
        return None
    before = {p["b"]: p for p in start["pairings"]}
    out = {}
    for p in t.pairings:
        if p.b in before:
            r0 = before[p.b]["win_rate_a"]
            out[p.b] = {"start": r0, "start_ci95": before[p.b]["win_rate_a_ci95"], "result": p.win_rate,
                        "result_ci95": list(p.interval), "change": p.win_rate - r0}
    return out


def format_added(added: dict, start: dict, name: str, games: int) -> str:
    """The table of :func:`training_added`."""
    lines = [f"what training added, on the same {games:,} games per opponent (seed {FINAL_EVAL_SEED}):", "",
             f"| against | {start['network']} | {name} | change |", "| --- | --- | --- | ---: |"]
    for opp, a in added.items():
        (l0, h0), (l1, h1) = a["start_ci95"], a["result_ci95"]
        lines.append(f"| {opp} | {a['start']:.1%} [{l0:.1%}, {h0:.1%}] | {a['result']:.1%} [{l1:.1%}, {h1:.1%}] | "
                     f"{100 * a['change']:+.1f} |")
    return "\n".join(lines)
