"""Compression: a network distilled into a smaller, faster one that plays the same.

The shipped networks are judged by what they decide and by how fast: a card head or a wide
first layer can cost many times what the rule it corrects costs. :func:`compress` keeps the decisions and
changes the architecture (``net``, fields of :class:`~rummyrl.agents.network.NetConfig` over
the teacher's, such as ``card_head: false`` or ``trunk_features: false``):

1. **Positions.** The teacher (greedy, or with ``explore`` a share of its moves sampled from
   its policy) plays ``games`` games against each agent of ``opponents`` (their share by
   weight; duplicate deals, the teacher in every seat, as evaluate.py plays them); every
   decision of the teacher (``keep``: that share of them, drawn at random) is recorded with
   the observation, the per-action features, the mask, the teacher's policy over the legal
   actions and its value. ``valid_games`` more games, on deals of their own and greedy, are
   held out. The games depend only on ``seed`` (:func:`~rummyrl.tournament.pairing_chunks`).
2. **Distillation.** A fresh student learns the teacher's policy, ``KL(teacher || student)``
   over the legal actions, plus ``vf_coef`` times the squared error of its value to the
   teacher's, for ``epochs`` passes over the training positions (Adam, the learning rate
   lowered linearly over the epochs).
3. **The epoch kept** is the one whose greedy move agrees with the teacher's on most held-out
   positions (epoch 0 is the untrained student: with the expert's prior, the rule alone).
   Its weights go to ``out`` (a network alone, as :func:`~rummyrl.agents.checkpoint.save_weights`
   writes it), the epochs' metrics to ``<out>.json`` (:func:`~.offline.rows_path`).

The recipes' ``compress`` stage runs it (:mod:`.recipe`); the student then loads and plays like
any checkpoint. What the student costs in play is measured with evaluate.py on the teacher's
deals, not here: agreement is what this module can promise.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import time
from dataclasses import field
from typing import Annotated
from pathlib import Path

import numpy as np
import torch

from rummyrl import games
from rummyrl.agents import Agent, load_agent
from rummyrl.agents.checkpoint import build_net, load_checkpoint, save_weights
from rummyrl.agents.features import action_features
from rummyrl.agents.network import NetConfig, PolicyNet
from rummyrl.agents.neural import NeuralAgent
from rummyrl.settings import Field, Float, Int, settings
from rummyrl.tournament import match_config, pairing_chunks, play_chunk

from .offline import rows_path


#: the opponent spec that names the teacher itself (its positions against its own greedy play)
TEACHER = "teacher"


@settings(section="compress")
class CompressConfig:
    """What :func:`compress` makes and how (the fields of a recipe's ``compress`` stage)."""

    net: dict = field(default_factory=dict)
    """The student's architecture: :class:`~rummyrl.agents.network.NetConfig` fields over the
    teacher's (``{card_head: false}``, ``{trunk_features: false, hidden: 64}``)."""
    opponents: Annotated[dict[str, Float[Field(gt=0)]], Field(min_length=1)] = field(
        default_factory=lambda: {"simple": 1.0, "expert": 1.0})
    """Agent spec -> weight: the teacher's opponents in the games that make the positions,
    each playing that share of ``games`` (and of ``valid_games``); ``teacher`` is the teacher
    itself, greedy (a network that learned without the expert keeps it out of its student's
    positions too)."""
    games: Int[Field(ge=1)] = 2000
    """Games (to the target) whose teacher decisions are the training positions."""
    valid_games: Int[Field(ge=1)] = 200
    """Games on other deals whose teacher decisions are held out: they choose the epoch kept."""
    keep: Float[Field(gt=0, le=1)] = 1.0
    """Share of the teacher's decisions recorded, drawn at random (the decisions of one game are
    alike: more games at a lower share are more varied data in the same memory)."""
    explore: Float[Field(ge=0, lt=1)] = 0.0
    """Share of the teacher's moves in the training games sampled from its policy instead of
    greedy, so that the student also sees positions a little off the teacher's path (the
    held-out games are greedy)."""
    options: dict = field(default_factory=dict)
    """Rule options of those games, as evaluate.py's ``--option`` (``{max_hands: 30}``)."""
    epochs: Int[Field(ge=1)] = 10
    """Passes over the training positions."""
    learning_rate: Float[Field(gt=0)] = 1e-3
    """Adam's learning rate at the first epoch, lowered linearly to 1/epochs of it at the last."""
    minibatch_size: Int[Field(ge=1)] = 512
    """Positions per gradient step."""
    vf_coef: Float[Field(ge=0)] = 0.5
    """Weight of the value's squared error to the teacher's value."""
    seed: Int[Field(ge=0)] = 0
    """The deals, the opponents' and the teacher's draws, the student's initialisation and its
    minibatches."""

    def __post_init__(self):
        unknown = sorted(set(self.net) - {f.name for f in dataclasses.fields(NetConfig)})
        if unknown:
            raise ValueError(f"compress.net: unknown network field(s) {unknown}; known: "
                             f"{sorted(f.name for f in dataclasses.fields(NetConfig))}")

    def check(self, game=None, teacher: NetConfig | None = None) -> "CompressConfig":
        """With ``game`` and the ``teacher``'s network config: raise ValueError unless the
        student's network is one that ``game`` offers (the fields are checked when built)."""
        if game is not None and teacher is not None:
            student_config(teacher, self.net).check(games.get(game))
        return self


def student_config(teacher: NetConfig, net: dict) -> NetConfig:
    """The student's network: the teacher's config with the fields of ``net`` over it."""
    return dataclasses.replace(teacher, **net)


class _Recorder(Agent):
    """The teacher as a player that records each decision it makes: the observation, the
    features of the teacher and (when they differ) of the student, the mask, the teacher's
    log-policy over the legal actions (0 elsewhere) and its value."""

    def __init__(self, teacher: NeuralAgent, student: NetConfig, keep: float, explore: float):
        self.teacher, self.student, self.keep, self.explore = teacher, student, keep, explore
        self.game, self.name = teacher.game, teacher.name
        self.rng = np.random.default_rng(0)
        self.parts: list[dict] = []

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    @torch.no_grad()
    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        obs, mask = self.check_batch(observations, action_masks)
        prior = np.ascontiguousarray(self.teacher.features(obs, mask), np.float32)
        logits, value = self.teacher.net(torch.from_numpy(obs), torch.from_numpy(prior), torch.from_numpy(mask))
        logp = torch.log_softmax(logits, 1).masked_fill(~torch.from_numpy(mask), 0.0).numpy()
        actions = logits.argmax(1).numpy()
        if self.explore:
            sampled = self.rng.random(len(obs)) < self.explore
            if sampled.any():
                p = np.where(mask[sampled], np.exp(logp[sampled]), 0.0)
                cdf = np.cumsum(p, 1)
                u = self.rng.random(int(sampled.sum())) * cdf[:, -1]
                actions[sampled] = np.minimum((cdf < u[:, None]).sum(1), mask.shape[1] - 1)
        rows = np.flatnonzero(self.rng.random(len(obs)) < self.keep) if self.keep < 1 else slice(None)
        part = {"obs": obs[rows].copy(), "prior": prior[rows], "mask": mask[rows].copy(),
                "logp": logp[rows], "value": value.numpy()[rows]}
        cfg = self.teacher.net.cfg
        if (self.student.features, self.student.expert_params) != (cfg.features, cfg.expert_params):
            part["student_prior"] = np.ascontiguousarray(action_features(
                self.student.features, self.teacher.net.game, part["obs"], part["mask"], self.student.expert_params),
                np.float32)
        self.parts.append(part)
        return actions

    def records(self) -> dict[str, np.ndarray]:
        out = {k: np.concatenate([p[k] for p in self.parts]) for k in self.parts[0]} if self.parts else {}
        self.parts = []
        return out


def positions(teacher: NeuralAgent, num_players: int, opponents: dict, games_total: int, seed: int,
              split: int = 0, options: dict | None = None, keep: float = 1.0, explore: float = 0.0,
              student: NetConfig | None = None, log=print) -> dict[str, np.ndarray]:
    """The teacher's decisions in ``games_total`` games against the agents of ``opponents``
    (spec -> weight; each plays its share of the games, at least one duplicate set), on deals
    drawn from ``seed`` and ``split`` (another split, other deals): a dict of arrays, one row
    per recorded decision (see :class:`_Recorder`)."""
    game = teacher.game
    config = match_config(game, "game", num_players, options)
    recorder = _Recorder(teacher, student or teacher.net.cfg, keep, explore)
    total = sum(opponents.values())
    parts = []
    for i, (spec, weight) in enumerate(opponents.items()):
        n = max(1, round(games_total * weight / total))
        opponent = (NeuralAgent(teacher.net, name="teacher") if spec == TEACHER
                    else load_agent(str(spec), game=game, seed=seed))
        t0 = time.perf_counter()
        deals = int(np.random.default_rng([seed, split, i]).integers(2**31))
        for chunk in pairing_chunks(config, n, seed=deals):
            play_chunk(recorder, opponent, config, **chunk)
        parts.append(recorder.records())
        log(f"  {len(parts[-1].get('mask', ())):,} positions of the teacher in {n:,} games against {spec} "
            f"({time.perf_counter() - t0:.0f} s)")
    return {k: np.concatenate([p[k] for p in parts if p]) for k in parts[0]}


def kl_loss(logits: torch.Tensor, logp: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Per row, ``KL(teacher || student)`` over the legal actions: ``logp`` is the teacher's
    log-policy (legal actions), ``logits`` the student's masked logits."""
    student = torch.log_softmax(logits, 1)
    p = logp.exp()
    return torch.where(mask, p * (logp - student), torch.zeros_like(p)).sum(1)


@torch.no_grad()
def validate(net: PolicyNet, rec: dict, size: int = 4096) -> dict:
    """On held-out positions: ``agreement`` (the student's greedy move is the teacher's), the
    mean ``kl`` and the value's mean squared error ``value_mse`` to the teacher's."""
    net.eval()
    agree, kl, mse = [], [], []
    for s in range(0, len(rec["mask"]), size):
        t = _tensors(rec, slice(s, s + size))
        logits, value = net(t["obs"], t["prior"], t["mask"])
        teacher = t["logp"].masked_fill(~t["mask"], -math.inf).argmax(1)
        agree.append((logits.argmax(1) == teacher).numpy())
        kl.append(kl_loss(logits, t["logp"], t["mask"]).numpy())
        mse.append((value - t["value"]).pow(2).numpy())
    return {"agreement": float(np.concatenate(agree).mean()), "kl": float(np.concatenate(kl).mean()),
            "value_mse": float(np.concatenate(mse).mean())}


def rule_agreement(rec: dict) -> float:
    """How often the argmax of the features (the rule's move, with the expert's features)
    is the teacher's move on ``rec``."""
    legal = rec["mask"]
    rule = np.where(legal, rec.get("student_prior", rec["prior"]), -np.inf).argmax(1)
    return float((rule == np.where(legal, rec["logp"], -np.inf).argmax(1)).mean())


def _tensors(rec: dict, rows) -> dict:
    t = {k: torch.from_numpy(np.ascontiguousarray(rec[k][rows])) for k in ("obs", "mask", "logp", "value")}
    t["prior"] = torch.from_numpy(np.ascontiguousarray(rec.get("student_prior", rec["prior"])[rows]))
    return t


def distill_epoch(net: PolicyNet, opt: torch.optim.Optimizer, rec: dict, size: int, vf_coef: float,
                  rng: np.random.Generator, max_grad_norm: float = 1.0) -> dict:
    """One pass over ``rec`` in random minibatches of ``size``: the mean losses."""
    net.train()
    n = len(rec["mask"])
    order = rng.permutation(n)
    out = {"kl": [], "value_loss": []}
    for s in range(0, n, size):
        t = _tensors(rec, np.sort(order[s:s + size]))
        logits, value = net(t["obs"], t["prior"], t["mask"])
        kl = kl_loss(logits, t["logp"], t["mask"]).mean()
        v_loss = 0.5 * (value - t["value"]).pow(2).mean()
        loss = kl + vf_coef * v_loss
        if not torch.isfinite(loss):
            raise FloatingPointError(f"the compression loss is not finite (kl {kl.item()}, value {v_loss.item()}): "
                                     f"lower compress.learning_rate")
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), max_grad_norm)
        opt.step()
        out["kl"].append(kl.item())
        out["value_loss"].append(v_loss.item())
    net.eval()
    return {k: float(np.mean(v)) for k, v in out.items()}


def compress(teacher: str | Path, out: str | Path, cfg: CompressConfig, log=print) -> list[dict]:
    """Distil the network of checkpoint ``teacher`` into the architecture ``cfg.net`` (see
    the module's docstring): :func:`teacher_positions`, then :func:`fit_student`. Writes the
    epoch kept to ``out`` and returns one row of metrics per epoch (epoch 0: the untrained
    student). The first row also holds how many positions were used and how often the
    features' argmax (the rule) agrees with the teacher."""
    data = load_checkpoint(teacher)
    teacher_net = build_net(data).eval()
    cfg.check(data["game"], teacher_net.cfg)
    train, valid = teacher_positions(teacher, cfg, log)
    return fit_student(teacher, out, cfg, train, valid, log)


def teacher_positions(teacher: str | Path, cfg: CompressConfig, log=print) -> tuple[dict, dict]:
    """The training and the held-out positions of :func:`compress` (:func:`positions`)."""
    data = load_checkpoint(teacher)
    teacher_net = build_net(data).eval()
    student_cfg = student_config(teacher_net.cfg, cfg.net)
    agent = NeuralAgent(teacher_net, name=Path(teacher).stem)
    players = int(data["num_players"])
    log(f"compress {teacher}: the teacher plays {cfg.games:,} games for training and {cfg.valid_games:,} held "
        f"out against {', '.join(map(str, cfg.opponents))}")
    t0 = time.perf_counter()
    train = positions(agent, players, cfg.opponents, cfg.games, cfg.seed, 0, cfg.options, cfg.keep, cfg.explore,
                      student_cfg, log)
    valid = positions(agent, players, cfg.opponents, cfg.valid_games, cfg.seed, 1, cfg.options, 1.0, 0.0,
                      student_cfg, log)
    log(f"{len(train['mask']):,} training and {len(valid['mask']):,} held-out positions in "
        f"{time.perf_counter() - t0:.0f} s")
    return train, valid


def fit_student(teacher: str | Path, out: str | Path, cfg: CompressConfig, train: dict, valid: dict,
                log=print) -> list[dict]:
    """A fresh student (``cfg.net`` over the teacher's network) fitted to the teacher's
    positions ``train`` for ``cfg.epochs`` epochs; the epoch whose greedy move agrees with
    the teacher's on most of ``valid`` is written to ``out``. Returns the epochs' rows."""
    data = load_checkpoint(teacher)
    game, players = data["game"], int(data["num_players"])
    student_cfg = student_config(NetConfig.from_dict(data["net_config"]), cfg.net)
    torch.manual_seed(cfg.seed)
    net = PolicyNet(game, student_cfg)
    rng = np.random.default_rng(cfg.seed)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate, eps=1e-5)
    train_config = dict(data.get("train_config") or {})
    if train_config:
        train_config["net"] = dataclasses.asdict(student_cfg)
    rows, best = [], None
    for epoch in range(cfg.epochs + 1):
        row = {"epoch": epoch}
        if epoch == 0:
            row.update(train_positions=len(train["mask"]), valid_positions=len(valid["mask"]),
                       valid_rule_agreement=rule_agreement(valid))
        else:
            for group in opt.param_groups:  # lowered each epoch: the last ones settle
                group["lr"] = cfg.learning_rate * (1.0 - (epoch - 1) / cfg.epochs)
            row.update({f"train_{k}": v for k, v in distill_epoch(net, opt, train, cfg.minibatch_size, cfg.vf_coef,
                                                                  rng).items()})
        row.update({f"valid_{k}": v for k, v in validate(net, valid).items()})
        rows.append(row)
        log("  ".join(f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}" for k, v in row.items()))
        if best is None or row["valid_agreement"] > best:
            best = row["valid_agreement"]
            save_weights(out, game, players, dataclasses.asdict(student_cfg), net.state_dict(), train_config,
                         {"source": f"compressed from {teacher}", "epoch": epoch,
                          "valid_agreement": row["valid_agreement"]})
    return rows


def kept_row(rows: list[dict]) -> dict:
    """The row of the epoch :func:`compress` kept (the first of the highest agreement)."""
    return max(rows, key=lambda r: r["valid_agreement"])


def compress_to_file(teacher: str | Path, out: str | Path, cfg: CompressConfig, log=print) -> dict:
    """:func:`compress`, then its rows written to ``<out>.json`` (whole, after the checkpoint:
    a compression that was stopped has none); returns the row of the epoch kept."""
    rows = compress(teacher, out, cfg, log=log)
    path = rows_path(out)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"teacher": str(teacher), "config": dataclasses.asdict(cfg), "rows": rows}, indent=1))
    os.replace(tmp, path)
    return kept_row(rows)


def describe_kept(out: str | Path, best: dict) -> str:
    """One line on the student :func:`compress` wrote."""
    return (f"wrote {out} (epoch {best['epoch']}: its greedy move is the teacher's on "
            f"{best['valid_agreement']:.1%} of the held-out positions)")
