"""Offline distillation: train a network again on search records saved by an expert-iteration run.

Search data are what expert iteration pays for: on two cores a Rummy teacher makes about 40
decisions a second. With ``exit.save_records: true`` a run writes every iteration's records
to ``<run dir>/records/`` (:func:`~.exit.save_records`); :func:`fit` then trains a network on
all of them for several epochs, with any learning rate, weighting or width, in minutes
instead of hours (:func:`fit_to_file`, which also writes the epochs' metrics beside the
checkpoint, is what ``scripts/exit_fit.py`` and the recipes' ``fit`` stage run).

Whole iterations (files) are held out for validation, not single decisions: the decisions of
one hand are alike, and a split inside a hand would reward memorising it. The checkpoint
kept is the epoch with the lowest validation loss; it loads like any other
(``evaluate.py``, ``load_agent``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from pathlib import Path

import numpy as np
import torch
from torch.utils.tensorboard import SummaryWriter

from rummyrl.agents.checkpoint import build_net, load_checkpoint, save_weights
from rummyrl.agents.network import PolicyNet

from .config import TrainConfig
from .exit import ReplayBuffer, concat_records, distill, read_records, record_files

#: the TensorBoard keys the offline fit logs, and what each means
METRICS = {
    "distill/<k>": "`scripts/exit_fit.py` (the offline fit): per epoch, `train_<k>` of the distillation's minibatches and `valid_<k>` of the held-out decisions",
}


def load_split(folder: str | Path, valid_every: int, first: int | None = None) -> tuple[dict, dict, int]:
    """The records of ``folder`` (its ``first`` files in iteration order, when given: the
    data of a run's first minutes): (training, validation, files), every ``valid_every``-th
    file (the last of each run of ``valid_every``) held out for validation."""
    if valid_every < 2:
        raise ValueError(f"valid_every must be >= 2 (one file in valid_every is held out), got {valid_every}")
    files = record_files(folder)
    if first is not None:
        if first < 1 or first > len(files):
            raise ValueError(f"first must be between 1 and the {len(files)} records files of {folder}, got {first}")
        files = files[:first]
    if len(files) < valid_every:
        raise ValueError(f"{folder} holds {len(files)} records_*.npz files; at least {valid_every} are needed "
                         f"(one in {valid_every} is held out)")
    train, valid = [], []
    for i, f in enumerate(files):
        (valid if i % valid_every == valid_every - 1 else train).append(read_records(f))
    return concat_records(train), concat_records(valid), len(files)


@torch.no_grad()
def validate(net: PolicyNet, rec: dict, size: int = 4096) -> dict:
    """Mean cross-entropy to search's choice, accuracy, and accuracy on the decisions where
    search departed from the network that made the data (``departs``) and where it did
    not (``keeps``)."""
    net.eval()
    device = next(net.parameters()).device
    ce, hit, pick = [], [], []
    for s in range(0, len(rec["target"]), size):
        t = {k: torch.from_numpy(np.ascontiguousarray(rec[k][s:s + size])).to(device)
             for k in ("obs", "prior", "mask", "target")}
        logits, _ = net(t["obs"], t["prior"].float(), t["mask"])
        ce.append(torch.nn.functional.cross_entropy(logits, t["target"], reduction="none").cpu().numpy())
        pick.append(logits.argmax(1).cpu().numpy())
        hit.append(pick[-1] == rec["target"][s:s + size])
    ce, hit, pick = np.concatenate(ce), np.concatenate(hit), np.concatenate(pick)
    dep = rec["target"] != rec["net_choice"]
    out = {"loss": float(ce.mean()), "accuracy": float(hit.mean()),
           "departs": float(hit[dep].mean()) if dep.any() else float("nan"),
           "keeps": float(hit[~dep].mean()) if (~dep).any() else float("nan"),
           "depart_share": float(dep.mean())}
    if "q" in rec:  # search's values (exit.record_values): what the network's moves are worth
        out["q_gain"] = q_gain(rec, pick, rec["net_choice"])
        if net.cfg.prior_is_expert:
            expert = np.where(rec["mask"], rec["prior"].astype(np.float32), -np.inf).argmax(1)
            out["q_gain_expert"] = q_gain(rec, pick, expert)
    return out


def q_gain(rec: dict, pick: np.ndarray, base: np.ndarray) -> float:
    """Search's mean value of the moves ``pick`` minus that of the moves ``base``, per
    decision, over the records where search valued both (``cand`` and ``q``, written with
    ``exit.record_values``); a decision where they agree counts 0. On held-out records
    this is an unbiased estimate, in the game's points, of what choosing ``pick`` instead of
    ``base`` gains by search's reckoning, since neither saw the noise of those values. Its
    reckoning is not play: in Rummy a fit to its mean values gained 4.9 points per draw by
    it and lost 11 points of games won against three simple (docs/research/rummy.md)."""
    d = np.where(pick == base, 0.0, search_value(rec, pick) - search_value(rec, base))
    ok = np.isfinite(d)
    return float(d[ok].mean()) if ok.any() else float("nan")


def search_value(rec: dict, action: np.ndarray) -> np.ndarray:
    """Search's mean value of ``action`` in each record (``cand`` and ``q``); NaN where it
    did not value that action."""
    cand, q = rec["cand"].astype(np.int64), rec["q"].astype(np.float64)
    hit = (cand >= 0) & np.isfinite(q) & (cand == action[:, None])
    return np.where(hit.any(1), np.where(hit, q, 0.0).sum(1), np.nan)


def clear_departures(rec: dict, min_gain: float) -> tuple[dict, int]:
    """``rec`` with search's departures from the network that made the data kept as targets
    only where search valued its choice at least ``min_gain`` points above the network's;
    elsewhere the target is the network's own choice. Returns the records and how many
    departures were taught as the network's choice."""
    if not min_gain > 0:
        raise ValueError(f"min_gain must be > 0 (points of search's value), got {min_gain}")
    if "q" not in rec:
        raise ValueError("min_gain needs search's values in the records (written with exit.record_values: true)")
    dep = rec["target"] != rec["net_choice"]
    weak = dep & ~(search_value(rec, rec["target"]) - search_value(rec, rec["net_choice"]) >= min_gain)
    return {**rec, "target": np.where(weak, rec["net_choice"], rec["target"])}, int(weak.sum())


#: how :func:`fit` chooses the epoch it keeps: the lowest validation loss, or the highest
#: ``q_gain`` (search's value of the network's moves; records written with ``exit.record_values``)
SELECT = ("loss", "q_gain")


def score(row: dict, select: str) -> float:
    """How :func:`fit` ranks an epoch's row: higher is kept (``select`` of :data:`SELECT`)."""
    return -row["valid_loss"] if select == "loss" else row["valid_q_gain"]


def kept_row(rows: list[dict], select: str) -> dict:
    """The row of the epoch :func:`fit` kept (the first of equal scores, as it does)."""
    return max(rows, key=lambda r: score(r, select))


def fit(cfg: TrainConfig, folder: str | Path, out: str | Path, epochs: int, valid_every: int = 10,
        init: str | Path | None = None, log=print, select: str = "loss", first: int | None = None,
        logdir: str | Path | None = None, min_gain: float | None = None) -> list[dict]:
    """Train a network (``cfg.net``, or the one of checkpoint ``init``) on the records of
    ``folder`` (its ``first`` files only, when given): ``epochs`` (0: none, the starting
    network validated and written) epochs, each as many minibatches of ``minibatch_size`` (drawn
    with replacement) as the training records fill, the loss of
    :func:`~.exit.distill` (``exit.depart_weight``, ``vf_coef``), Adam at ``learning_rate``
    (with ``lr_schedule: linear``, lowered each epoch: epoch ``e`` of ``E`` at
    ``(E - e + 1) / E`` of it). The policy target is search's choice. Writes the epoch with
    the lowest validation loss (``select="q_gain"``: the highest ``valid_q_gain``) to
    ``out``; returns one row of metrics per epoch (epoch 0: before training). With
    ``min_gain``, search's departures worth less than that by its own values are taught
    (and validated) as the network's choice (:func:`clear_departures`). With ``logdir``,
    each row's metrics also go to TensorBoard there, as ``distill/<metric>`` at step
    ``epoch`` (the online run's losses are ``exit/...``)."""
    if epochs < 0:
        raise ValueError(f"epochs must be >= 0 (0: the starting network, validated and written), got {epochs}")
    if select not in SELECT:
        raise ValueError(f"select must be one of {list(SELECT)}, got {select!r}")
    if min_gain is not None and not min_gain > 0:  # before the records load
        raise ValueError(f"min_gain must be > 0 (points of search's value), got min_gain={min_gain}")
    train, valid, files = load_split(folder, valid_every, first)
    train.pop("pi", None)  # search's distribution, in records of runs with the removed soft-max targets
    if min_gain is not None:
        train, weak = clear_departures(train, min_gain)
        valid, weak_valid = clear_departures(valid, min_gain)
        log(f"min_gain {min_gain:g}: {weak + weak_valid} of search's departures taught as the network's choice")
    if select == "q_gain" and "q" not in valid:
        raise ValueError(f"select='q_gain' needs search's values in the records (exit.record_values: true); "
                         f"{folder} has none")
    torch.manual_seed(cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    if init is not None:
        data = load_checkpoint(init, cfg.game)
        net = build_net(data)
        net_cfg = data["net_config"]
    else:
        net = PolicyNet(cfg.game, cfg.net)
        net_cfg = dataclasses.asdict(cfg.net)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate, eps=1e-5)
    buffer = ReplayBuffer(len(train["target"]))
    buffer.add(train)
    per_epoch = max(1, len(train["target"]) // cfg.minibatch_size)
    log(f"{len(train['target'])} training and {len(valid['target'])} validation decisions from {files} files; "
        f"{per_epoch} minibatches per epoch")
    if net.cfg.prior_is_expert:  # the prior is the expert's preference: its argmax is the expert's move
        prior = np.where(valid["mask"], valid["prior"].astype(np.float32), -np.inf)
        log(f"the expert alone agrees with the teacher on {(prior.argmax(1) == valid['target']).mean():.4f} "
            f"of the validation decisions")
    rows, best = [], None
    with _board(logdir) as writer:
        for epoch in range(epochs + 1):
            row = {"epoch": epoch}
            if epoch:
                if cfg.lr_schedule == "linear":  # lower each epoch: the last ones settle
                    for group in opt.param_groups:
                        group["lr"] = cfg.learning_rate * (1.0 - (epoch - 1) / epochs)
                row.update({f"train_{k}": v for k, v in distill(net, opt, buffer, per_epoch, cfg.minibatch_size,
                                                                 cfg.vf_coef, cfg.max_grad_norm, rng,
                                                                 cfg.exit.depart_weight).items()})
            row.update({f"valid_{k}": v for k, v in validate(net, valid).items()})
            rows.append(row)
            if writer is not None:
                for k, v in row.items():
                    if k != "epoch":
                        writer.add_scalar(f"distill/{k}", v, epoch)
                writer.flush()  # in TensorBoard when its line is printed, also if the fit is then killed
            log("  ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}" for k, v in row.items()))
            if best is None or score(row, select) > best:
                best = score(row, select)
                save_weights(out, cfg.game, cfg.num_players, net_cfg, net.state_dict(), dataclasses.asdict(cfg),
                             {"source": f"offline distillation of {folder}", "epoch": epoch})
    return rows


def _board(logdir: str | Path | None):
    """A TensorBoard writer at ``logdir`` (closed on leaving), or ``None`` for no logging."""
    if logdir is None:
        return contextlib.nullcontext()
    return SummaryWriter(str(logdir))


def default_logdir(out: str | Path) -> Path:
    """The fit's TensorBoard folder beside its checkpoint: ``runs/fit/fit.pt`` -> ``runs/fit/fit/``
    (``runs/fit/fit`` -> ``runs/fit/fit_tb/``, never the checkpoint's own path)."""
    out = Path(out)
    return out.with_suffix("") if out.suffix else out.with_name(out.name + "_tb")


def rows_path(out: str | Path) -> Path:
    """Where :func:`fit_to_file` writes the epochs' metrics: ``<out>.json``."""
    return Path(str(out) + ".json")


def fit_to_file(cfg: TrainConfig, folder: str | Path, out: str | Path, epochs: int, valid_every: int = 10,
                init: str | Path | None = None, log=print, select: str = "loss", first: int | None = None,
                logdir: str | Path | None = None, min_gain: float | None = None) -> dict:
    """:func:`fit`, then its rows written to ``<out>.json`` (:func:`rows_path`, written whole
    after the checkpoint: a fit that was stopped has none) and TensorBoard in ``logdir``
    (default :func:`default_logdir`); returns the row of the epoch kept (:func:`kept_row`)."""
    rows = fit(cfg, folder, out, epochs, valid_every, init, log=log, select=select, first=first,
               logdir=logdir or default_logdir(out), min_gain=min_gain)
    path = rows_path(out)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(rows, indent=1))
    os.replace(tmp, path)
    return kept_row(rows, select)


def describe_kept(out: str | Path, best: dict) -> str:
    """One line on the checkpoint a fit wrote: its epoch, validation loss and accuracy on
    search's departures (and ``q_gain``, records of ``exit.record_values``)."""
    gain = f", q_gain {best['valid_q_gain']:+.3f}" if "valid_q_gain" in best else ""
    return (f"wrote {out} (epoch {best['epoch']}, validation loss {best['valid_loss']:.4f}, "
            f"accuracy on departures {best['valid_departs']:.3f}{gain})")
