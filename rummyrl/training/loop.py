"""The main loop: :func:`train` calls the run's method's update (:mod:`.methods`: PPO's
rollouts and updates, :mod:`.ppo`; expert iteration's search data and distillation,
:mod:`.exit`) until the step budget, the time limit, ``max_updates`` or Ctrl-C, and logs,
evaluates and checkpoints on the way.
The rollouts come from the run's workers (:mod:`.workers`): the lanes in this process
(``workers=0``) or Ray actors (``workers=N``), which get the new weights after each update.

TensorBoard logs go to the run folder (``runs/<name>/`` by default) with ``config.yaml``
and the checkpoints ``last.pt`` (every ``checkpoint_every_minutes`` and on exit),
``best.pt`` (best periodic evaluation) and ``final.pt`` (a run that reached its end). The
first Ctrl-C finishes the current update and saves; a second one exits at once. Before the
first update the network the run starts from is played on the final report's deals
(:func:`~.evaluation.start_eval`), so that the report shows what training added.
"""

from __future__ import annotations

import dataclasses
import signal
import sys
import time
from pathlib import Path

import numpy as np
import torch
import yaml
from torch.utils.tensorboard import SummaryWriter
from tqdm import tqdm

from .config import TrainConfig
from .evaluation import periodic_eval, start_eval, start_summary
from .methods import Update
from .trainer import Trainer
from .workers import make_workers

#: the TensorBoard keys this module logs (patterns: an f-string's fields as <expr>) and what
#: each means; the training guide's table of keys is generated from the METRICS of each module
METRICS = {
    "charts/steps_per_second": "environment steps (all seats' actions) per second of the last update, rollout and update together",
    "charts/rollout_seconds": "seconds the last rollout (or search data) took",
    "charts/update_seconds": "seconds the last PPO update (or distillation) took",
    "charts/learner_samples": "transitions (or search records) the last update trained on",
    "charts/learning_rate": "the optimizer's learning rate (`lr_schedule`)",
    "charts/minutes": "minutes of training so far",
    "charts/snapshots": "snapshots in the opponent pool",
    "charts/win_rate_vs_pool": "share of the games that ended in the last rollout won by the learner, against whatever the pool drew",
    "workers/gather_seconds": "`workers > 0`: seconds the learner waited for the workers' rollouts",
    "workers/overhead_seconds": "`workers > 0`: Ray's cost beyond the slowest worker (receiving, concatenating, broadcasting the weights)",
    "workers/restarts": "`workers > 0`: workers replaced after a failure so far",
    "hands/<k[6:]>_rate": "share of the deals that ended in the last rollout that ended so, one key per end (the game's `END_NAMES`)",
    "<section>/<k>": "the update's own statistics, in its method's section: `losses/...` with `algo: ppo`, `exit/...` with `algo: exit` (rows below)",
}


class _StopFlag:
    """First Ctrl-C: finish the current update, save, exit. Second: exit at once."""

    def __init__(self):
        self.stop = False

    def __call__(self, signum, frame):
        if self.stop:
            raise KeyboardInterrupt
        self.stop = True
        print("\nCtrl-C: saving after this update (press again to quit without saving)", file=sys.stderr)


def train(cfg: TrainConfig, run_dir: Path | None = None, resume: dict | None = None,
          max_updates: int | None = None, progress: bool = True, on_update=None,
          evaluate_start: bool = True) -> Trainer:
    """Train until ``total_steps``, the time limit, ``max_updates`` or Ctrl-C; returns the
    trainer (``last.pt`` and ``final.pt``/``best.pt`` are written to the run folder).
    ``on_update(trainer)``, if given, is called after every update. Ray workers, if any,
    are ended before this returns. With ``evaluate_start`` (and ``eval.final_games``) a run
    that has made no update yet first plays its network on the final report's deals
    (:func:`~.evaluation.start_eval`). With ``progress`` it says where it writes, shows a
    progress bar and takes Ctrl-C as "save and stop"."""
    run_dir = Path(run_dir or Path("runs") / cfg.name)
    run_dir.mkdir(parents=True, exist_ok=True)
    if progress:
        print(f"{'resuming' if resume is not None else 'training'} {cfg.name} ({cfg.game}, {cfg.algo}): "
              f"checkpoints and TensorBoard logs in {run_dir}/", file=sys.stderr)
    # Adam's second moments and the gradients of an untrained network fall below float32's
    # normal range; a CPU computes with such (denormal) numbers on a slow path, and
    # flushing them to zero changes no result that matters (they are < 1e-38). The flag is the
    # thread's: it is set for the run and cleared after it, so the caller's arithmetic is its own.
    torch.set_flush_denormal(True)
    try:
        return _train(cfg, run_dir, resume, max_updates, progress, on_update, evaluate_start)
    finally:
        torch.set_flush_denormal(False)


def _train(cfg, run_dir, resume, max_updates, progress, on_update, evaluate_start) -> Trainer:
    tr = Trainer(cfg, run_dir)
    tr.setup(fresh=resume is None)  # a resumed run's weights are the checkpoint's, not init's
    if resume is not None:
        tr.load_state_dict(resume)
    if progress and cfg.precision != tr.precision:
        print(f"precision={cfg.precision}: the trunk computes in {tr.precision} on {tr.device}", file=sys.stderr)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(dataclasses.asdict(cfg), sort_keys=False))
    tr.workers = make_workers(tr)
    try:
        _run(tr, max_updates, progress, on_update, evaluate_start)
    finally:
        tr.workers.close()
        tr.workers = None
        tr.method.close()
    return tr


def _run(tr: Trainer, max_updates: int | None, progress: bool, on_update, evaluate_start: bool) -> None:
    cfg, run_dir = tr.cfg, tr.run_dir
    update_threads = cfg.torch_threads or torch.get_num_threads()
    writer = SummaryWriter(str(run_dir))
    if evaluate_start and tr.updates == 0 and not tr.start_eval and cfg.eval.final_games > 0:
        if progress:
            print(f"playing the network of step 0 on the final report's deals ({cfg.eval.final_games} games per "
                  f"opponent), to set beside the result ...", file=sys.stderr)
        start_eval(tr, writer)
        if progress:
            print(start_summary(tr.start_eval), file=sys.stderr)
    flag = _StopFlag()
    old_handler = signal.signal(signal.SIGINT, flag) if progress else None
    bar = tqdm(total=int(cfg.total_steps), initial=tr.global_step, unit="step", unit_scale=True,
               dynamic_ncols=True, file=sys.stderr, disable=not progress)
    start = time.perf_counter() - tr.elapsed
    periodic = bool(cfg.eval.every_minutes or cfg.eval.every_steps)
    if periodic and tr.updates == 0 and max_updates is None:
        periodic_eval(tr, writer)  # the starting point of the learning curve
        bar.set_postfix_str(_postfix(tr, 0.0))
    last_ckpt = last_eval = time.perf_counter()
    updates_here = 0
    try:
        while tr.global_step < cfg.total_steps and not flag.stop:
            if cfg.time_limit_minutes and tr.elapsed >= cfg.time_limit_minutes * 60:
                break
            if max_updates is not None and updates_here >= max_updates:
                break
            u = tr.method.update(update_threads)
            steps, (t0, t1, t2) = u.steps, u.times
            updates_here += 1
            tr.elapsed = time.perf_counter() - start
            _log_update(writer, tr, u)
            bar.update(steps)
            bar.set_postfix_str(_postfix(tr, steps / (t2 - t0)))
            if on_update is not None:
                on_update(tr)
            now = time.perf_counter()
            by_clock = cfg.eval.every_minutes and now - last_eval >= cfg.eval.every_minutes * 60
            every = cfg.eval.every_steps  # at each multiple passed: the same steps in a resumed run
            by_steps = every and tr.global_step // every > (tr.global_step - steps) // every
            if (by_clock or by_steps) and tr.global_step < cfg.total_steps:  # the last one comes after the loop
                periodic_eval(tr, writer)
                bar.set_postfix_str(_postfix(tr, steps / (t2 - t0)))  # the new evaluation, now
                last_eval = time.perf_counter()
            if cfg.checkpoint_every_minutes and now - last_ckpt >= cfg.checkpoint_every_minutes * 60:
                tr.save("last.pt")
                last_ckpt = time.perf_counter()
            tr.elapsed = time.perf_counter() - start
        done = tr.global_step >= cfg.total_steps or (cfg.time_limit_minutes and tr.elapsed >= cfg.time_limit_minutes * 60)
        if done and not flag.stop and periodic:
            periodic_eval(tr, writer)  # the end of the learning curve
            bar.set_postfix_str(_postfix(tr, 0.0))
    finally:
        bar.close()
        tr.save("last.pt")
        if old_handler is not None:
            signal.signal(signal.SIGINT, old_handler)
        writer.flush()
    if done and not flag.stop:
        tr.save("final.pt")
        if not periodic or not (run_dir / "best.pt").exists():
            # no evaluation chose one (also in a run continued to a larger budget): the final network
            tr.save("best.pt")
    writer.close()
    tr.interrupted = flag.stop


def _postfix(tr: Trainer, sps: float) -> str:
    """The bar's postfix: steps per second and the latest evaluation, with when it was made."""
    ev = tr.last_eval
    wins = " ".join(f"{k}={v:.0%}" for k, v in ev.get("win_rate", {}).items())
    when = f" at {ev['minutes']:.1f} min" if "minutes" in ev else ""
    return f"{sps:,.0f} steps/s" + (f" | eval{when}: {wins}" if wins else "")


def _log_update(writer, tr: Trainer, u: Update) -> None:
    s, stats, steps, samples, (t0, t1, t2) = tr.global_step, u.games, u.steps, u.samples, u.times
    section = tr.method.section
    for k, v in u.stats.items():
        writer.add_scalar(f"{section}/{k}", v, s)
    writer.add_scalar("charts/steps_per_second", steps / (t2 - t0), s)
    writer.add_scalar("charts/rollout_seconds", t1 - t0, s)
    writer.add_scalar("charts/update_seconds", t2 - t1, s)
    writer.add_scalar("charts/learner_samples", samples, s)
    writer.add_scalar("charts/learning_rate", tr.opt.param_groups[0]["lr"], s)
    writer.add_scalar("charts/minutes", tr.elapsed / 60, s)
    writer.add_scalar("charts/snapshots", len(tr.pool.snapshots), s)
    if tr.workers is not None and tr.workers.remote:
        t = tr.workers.timings
        writer.add_scalar("workers/gather_seconds", t.get("gather", 0.0), s)
        writer.add_scalar("workers/overhead_seconds",
                          t.get("wait_overhead", 0.0) + t.get("concat", 0.0) + t.get("broadcast", 0.0), s)
        writer.add_scalar("workers/restarts", tr.workers.restarts, s)
    total = stats.get("hands/total", 0)
    if total:
        for k, v in stats.items():
            if k.startswith("hands/") and k != "hands/total":
                writer.add_scalar(f"hands/{k[6:]}_rate", v / total, s)
    if stats.get("games/vs_pool"):
        writer.add_scalar("charts/win_rate_vs_pool", float(np.mean(stats["games/vs_pool"])), s)
