"""Self-play PPO for Gin Rummy and Rummy on the batched engines.

    python train.py                                        # configs/gin_rummy.yaml
    python train.py --config configs/rummy.yaml
    python train.py --config configs/gin_rummy.yaml total_steps=2e6 net.hidden=128
    python train.py --quick                                # a few-minute first look
    python train.py --resume runs/gin_rummy/last.pt        # continue a run

Read top to bottom: the config, the opponent pool, rollouts, advantages, the PPO update,
evaluation, checkpoints, the main loop.

* Rollouts come from the batched self-play interface (``rummyrl.envs.vector``): every call steps
  all lanes; in each lane the learner holds one seat (or all seats when it plays itself)
  and an opponent from the pool holds the others.
* Turn-based credit: each (lane, seat) is its own trajectory. A transition is linked to
  the same seat's next decision; rewards that arrive while others act are added to the
  seat's last transition; GAE runs along these links.
* The action mask (and the expert prior the network adds to its logits, see
  ``agents/neural.py``) is stored with every transition and applied again at update time:
  illegal actions have probability zero and the entropy counts legal actions only.
* Opponent pool: the current policy, past snapshots (one added every
  ``snapshot_every`` updates) and the rule-based baselines, sampled per game with
  configurable weights.
* TensorBoard logs under ``runs/<name>/``; checkpoints there too (``last.pt``, ``best.pt``,
  ``final.pt``); Ctrl-C saves before exiting.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import signal
import sys
import time
import typing
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
import yaml

from rummyrl.agents.neural import (NetConfig, NeuralAgent, PolicyNet, build_net, expert_prior, game_io,
                           load_checkpoint, masked_entropy, sample_actions, save_checkpoint)


# ======================================================================================
# Config
# ======================================================================================
@dataclass
class OpponentConfig:
    """How often each kind of opponent is drawn for a new game (weights, normalised)."""

    self_play: float = 0.4
    """The current policy in every other seat (all seats learn)."""
    snapshots: float = 0.2
    """A past snapshot of the policy, drawn uniformly from the pool."""
    simple: float = 0.2
    """The rule-based ``simple`` baseline."""
    expert: float = 0.2
    """The rule-based ``expert`` baseline."""
    random: float = 0.0
    """Uniformly random legal play."""


@dataclass
class EvalConfig:
    """Periodic evaluation with evaluate.py's code (greedy policy, duplicate deals)."""

    every_minutes: float = 5.0
    """Minutes of training between evaluations (0: only at the end)."""
    games: int = 400
    """Games per opponent at each periodic evaluation."""
    final_games: int = 2000
    """Games per opponent in the evaluation after training."""
    opponents: list = field(default_factory=lambda: ["simple", "expert"])
    """Baselines to evaluate against."""
    unit: str = "game"
    """``game`` (to the target) or ``hand``."""


@dataclass
class TrainConfig:
    """Every field can be set in the YAML file or on the command line (``key=value``)."""

    name: str = "gin_rummy"
    """Run name: logs and checkpoints go to ``runs/<name>/``."""
    game: str = "gin"
    """``gin`` or ``rummy``."""
    num_players: int = 2
    """Players per game (Gin: 2; Rummy: 2-6)."""
    rules: dict = field(default_factory=dict)
    """Rule options passed to the engine (GinConfig / RummyConfig fields)."""
    episode: str = "game"
    """Training episodes: ``game`` (to the target) or ``hand`` (one hand / round)."""
    reward: str = "default"
    """Reward scheme of the environments: ``hand_points`` (Gin) or ``round_points`` (Rummy),
    ``game``, ``game_points``, joined by ``+``; ``default`` is the deal's points plus the
    game's result (``hand_points+game`` / ``round_points+game``)."""
    total_steps: float = 20_000_000
    """Environment steps to train for (all seats' actions count)."""
    time_limit_minutes: float = 55.0
    """Stop training after this many minutes even if total_steps is not reached (0: none)."""
    num_envs: int = 512
    """Games played in parallel (lanes)."""
    rollout_steps: int = 64
    """Batched env steps per rollout (so num_envs * rollout_steps env steps per update)."""
    gamma: float = 0.995
    """Discount per decision of a seat."""
    gae_lambda: float = 0.95
    """GAE lambda."""
    learning_rate: float = 3e-4
    """Adam learning rate at the start."""
    lr_schedule: str = "linear"
    """``linear`` (to zero over total_steps) or ``constant``."""
    update_epochs: int = 2
    """Passes over each rollout."""
    minibatch_size: int = 4096
    """Transitions per gradient step."""
    clip_coef: float = 0.2
    """PPO ratio clip."""
    vf_coef: float = 0.5
    """Value loss weight."""
    ent_coef: float = 0.01
    """Entropy bonus weight."""
    max_grad_norm: float = 0.5
    """Gradient clipping norm."""
    target_kl: float = 0.05
    """Stop an update's epochs early when the approximate KL exceeds this (0: never)."""
    net: NetConfig = field(default_factory=NetConfig)
    """Network shape (agents/neural.py NetConfig)."""
    opponents: OpponentConfig = field(default_factory=OpponentConfig)
    """Opponent pool weights."""
    snapshot_every: int = 20
    """Updates between snapshots added to the pool."""
    pool_size: int = 10
    """Snapshots kept (the oldest is dropped)."""
    eval: EvalConfig = field(default_factory=EvalConfig)
    """Periodic evaluation."""
    checkpoint_every_minutes: float = 5.0
    """Minutes between checkpoints (``last.pt``)."""
    seed: int = 0
    """Seed of deals, sampling, network init and opponent draws."""
    torch_threads: int = 0
    """Threads for torch in the PPO updates (0: torch's default); rollouts use one."""


class ConfigError(ValueError):
    """A config file or override that names an unknown key or holds a bad value."""


def _field_types(cls) -> dict:
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls)}


def _coerce(value, typ, key: str):
    """Check (and gently convert) a config value; raise ConfigError naming the key."""
    origin = typing.get_origin(typ)
    if dataclasses.is_dataclass(typ):
        if not isinstance(value, dict):
            raise ConfigError(f"{key} must be a mapping of {typ.__name__} fields, got {value!r}")
        return _build(typ, value, key + ".")
    if typ is bool:
        if isinstance(value, bool):
            return value
        raise ConfigError(f"{key} must be true or false, got {value!r}")
    if typ in (int, float):
        value = _number(value)
    if typ is int:
        if isinstance(value, bool):
            raise ConfigError(f"{key} must be an integer, got {value!r}")
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, int):
            return value
        raise ConfigError(f"{key} must be an integer, got {value!r}")
    if typ is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{key} must be a number, got {value!r}")
        if not math.isfinite(value):
            raise ConfigError(f"{key} must be finite, got {value!r}")
        return float(value)
    if typ is str:
        if not isinstance(value, str):
            raise ConfigError(f"{key} must be a string, got {value!r}")
        return value
    if typ is dict or origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{key} must be a mapping, got {value!r}")
        return dict(value)
    if typ is list or origin is list:
        if not isinstance(value, list):
            raise ConfigError(f"{key} must be a list, got {value!r}")
        return list(value)
    return value


def _build(cls, data: dict, prefix: str = ""):
    types = _field_types(cls)
    unknown = sorted(set(data) - set(types))
    if unknown:
        raise ConfigError(f"unknown config key(s) {[prefix + k for k in unknown]}; "
                          f"known {prefix or 'top-level '}keys: {sorted(types)}")
    kwargs = {k: _coerce(v, types[k], prefix + k) for k, v in data.items()}
    return cls(**kwargs)


def _check(cfg: TrainConfig) -> TrainConfig:
    def need(cond, msg):
        if not cond:
            raise ConfigError(msg)

    need(cfg.game in ("gin", "rummy"), f"game must be 'gin' or 'rummy', got {cfg.game!r}")
    need(cfg.episode in ("game", "hand"), f"episode must be 'game' or 'hand', got {cfg.episode!r}")
    if cfg.game == "gin":
        need(cfg.num_players == 2, f"num_players must be 2 for gin, got {cfg.num_players}")
    else:
        need(2 <= cfg.num_players <= 6, f"num_players must be 2..6 for rummy, got {cfg.num_players}")
    for k in ("total_steps", "num_envs", "rollout_steps", "learning_rate", "update_epochs", "minibatch_size",
              "snapshot_every", "pool_size"):
        need(getattr(cfg, k) > 0, f"{k} must be > 0, got {getattr(cfg, k)}")
    for k in ("time_limit_minutes", "ent_coef", "vf_coef", "max_grad_norm", "target_kl", "checkpoint_every_minutes"):
        need(getattr(cfg, k) >= 0, f"{k} must be >= 0, got {getattr(cfg, k)}")
    need(0 < cfg.gamma <= 1, f"gamma must be in (0, 1], got {cfg.gamma}")
    need(0 <= cfg.gae_lambda <= 1, f"gae_lambda must be in [0, 1], got {cfg.gae_lambda}")
    need(0 < cfg.clip_coef < 1, f"clip_coef must be in (0, 1), got {cfg.clip_coef}")
    need(cfg.lr_schedule in ("linear", "constant"), f"lr_schedule must be 'linear' or 'constant', got {cfg.lr_schedule!r}")
    w = dataclasses.asdict(cfg.opponents)
    need(all(v >= 0 for v in w.values()) and sum(w.values()) > 0,
         f"opponents weights must be >= 0 and not all 0, got {w}")
    need(cfg.net.hidden > 0 and cfg.net.layers >= 1, f"net.hidden and net.layers must be positive, got {cfg.net}")
    need(cfg.eval.unit in ("game", "hand"), f"eval.unit must be 'game' or 'hand', got {cfg.eval.unit!r}")
    need(cfg.eval.games > 0 and cfg.eval.final_games >= 0, "eval.games must be > 0 and eval.final_games >= 0")
    need(all(o in ("random", "simple", "expert") for o in cfg.eval.opponents),
         f"eval.opponents must be baselines (random, simple, expert), got {cfg.eval.opponents}")
    need(cfg.torch_threads >= 0, f"torch_threads must be >= 0, got {cfg.torch_threads}")
    # the rule options are checked by the engine's own config, the reward by the env's parser
    _engine_config(cfg)
    try:
        if cfg.game == "gin":
            from rummyrl.envs.gin_rewards import RewardScheme as Rewards
        else:
            from rummyrl.envs.rummy_rewards import RummyRewards as Rewards
        Rewards.parse(reward_scheme(cfg))
    except ValueError as e:
        raise ConfigError(f"reward: {e}") from None
    return cfg


def _parse_value(text: str):
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise ConfigError(f"cannot parse value {text!r}: {e}") from None


def _number(value):
    """YAML reads ``2e6`` as a string; numbers written that way are numbers here."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


def load_config(path: str | Path | None, overrides: list[str] = ()) -> TrainConfig:
    """A :class:`TrainConfig` from a YAML file plus ``key=value`` overrides (dotted keys
    reach nested fields: ``net.hidden=128``, ``opponents.expert=0.5``, ``rules.target=50``)."""
    data: dict = {}
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise ConfigError(f"config file {str(p)!r} does not exist")
        try:
            data = yaml.safe_load(p.read_text()) or {}
        except yaml.YAMLError as e:
            raise ConfigError(f"config file {str(p)!r} is not valid YAML: {e}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"config file {str(p)!r} must hold a mapping of keys, not {type(data).__name__}")
    for item in overrides:
        if "=" not in item:
            raise ConfigError(f"override {item!r} must be key=value")
        key, text = item.split("=", 1)
        parts = key.strip().split(".")
        node = data
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"override {item!r}: {part!r} is not a section")
        node[parts[-1]] = _parse_value(text)
    return _check(_build(TrainConfig, data))


def _engine_config(cfg: TrainConfig):
    episode = cfg.episode if cfg.game == "gin" else ("round" if cfg.episode == "hand" else "game")
    try:
        if cfg.game == "gin":
            from rummyrl import gin

            return gin.GinConfig.from_dict({**cfg.rules, "episode": episode})
        from rummyrl import rummy

        return rummy.RummyConfig.from_dict({**cfg.rules, "episode": episode, "num_players": cfg.num_players})
    except (ValueError, TypeError) as e:
        raise ConfigError(f"rules: {e}") from None


# ======================================================================================
# Environments and the opponent pool
# ======================================================================================
def reward_scheme(cfg: TrainConfig) -> str:
    if cfg.reward != "default":
        return cfg.reward
    return "hand_points+game" if cfg.game == "gin" else "round_points+game"


def make_selfplay(cfg: TrainConfig):
    """The batched self-play interface of the game (all seats; the trainer assigns them)."""
    episode = cfg.episode if cfg.game == "gin" else ("round" if cfg.episode == "hand" else "game")
    if cfg.game == "gin":
        from rummyrl.envs.vector import GinSelfPlay

        return GinSelfPlay(cfg.num_envs, reward=reward_scheme(cfg), **{**cfg.rules, "episode": episode})
    from rummyrl.envs.rummy_vector import RummySelfPlay

    return RummySelfPlay(cfg.num_envs, reward=reward_scheme(cfg),
                         **{**cfg.rules, "episode": episode, "num_players": cfg.num_players})


KINDS = ("self_play", "snapshots", "simple", "expert", "random")
SELF, SNAPSHOT, SIMPLE, EXPERT, RANDOM = range(len(KINDS))


class OpponentPool:
    """Who sits in the seats the learner does not hold, drawn per game."""

    def __init__(self, cfg: TrainConfig, rng: np.random.Generator):
        from rummyrl.agents import load_agent

        self.cfg = cfg
        self.rng = rng
        w = np.array([getattr(cfg.opponents, k) for k in KINDS], dtype=float)
        self.weights = w / w.sum()
        self.baselines = {k: load_agent(KINDS[k], game=cfg.game, seed=cfg.seed + k)
                          for k in range(2, len(KINDS)) if self.weights[k] > 0}
        self.snapshots: list[NeuralAgent] = []

    def draw(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Kinds and snapshot indices for ``n`` new games (no snapshot yet: self-play)."""
        kind = self.rng.choice(len(KINDS), size=n, p=self.weights)
        if not self.snapshots:
            kind = np.where(kind == SNAPSHOT, SELF, kind)
        snap = self.rng.integers(0, max(len(self.snapshots), 1), size=n)
        return kind, snap

    def add_snapshot(self, net: PolicyNet) -> None:
        copy = PolicyNet(net.io, net.cfg)
        copy.load_state_dict(net.state_dict())
        seed = int(self.rng.integers(2**31))
        self.snapshots.append(NeuralAgent(copy, name=f"snapshot{len(self.snapshots)}", greedy=False, seed=seed))
        if len(self.snapshots) > self.cfg.pool_size:
            self.snapshots.pop(0)

    def act(self, kind: np.ndarray, snap: np.ndarray, obs: np.ndarray, mask: np.ndarray,
            prior: np.ndarray) -> np.ndarray:
        """Actions of the opponents; ``prior`` is the expert's preference for the rows of the
        kinds that use it (snapshots and the expert, see :meth:`uses_prior`), computed by
        the caller in one pass with the learner's."""
        out = np.zeros(kind.size, np.int64)
        for k in np.unique(kind):
            rows = np.flatnonzero(kind == k)
            if k == SNAPSHOT:
                for s in np.unique(snap[rows]):
                    r = rows[snap[rows] == s]
                    out[r] = self.snapshots[min(s, len(self.snapshots) - 1)].act_with_prior(obs[r], mask[r], prior[r])
            elif k == EXPERT:
                out[rows] = prior[rows].argmax(1)  # the expert plays the argmax of its preference
            else:
                out[rows] = self.baselines[int(k)].act(obs[rows], mask[rows])
        return out

    @staticmethod
    def uses_prior(kind: np.ndarray) -> np.ndarray:
        return (kind == SNAPSHOT) | (kind == EXPERT)


# ======================================================================================
# Rollout storage: one linked trajectory per (lane, seat)
# ======================================================================================
class Rollout:
    """Transitions of the learner. ``next[i]`` is the same seat's next transition in the
    same game (-1: none yet). A transition still waiting for its successor when the
    rollout ends is carried into the next rollout, so no value is bootstrapped from a
    state the seat did not decide in."""

    def __init__(self, cfg: TrainConfig, io):
        n = cfg.num_envs * cfg.rollout_steps + cfg.num_envs * cfg.num_players
        self.obs = np.zeros((n, io.obs_dim), np.float32)
        self.prior = np.zeros((n, io.num_actions), np.float16)
        self.mask = np.zeros((n, io.num_actions), bool)
        self.action = np.zeros(n, np.int64)
        self.logp = np.zeros(n, np.float32)
        self.value = np.zeros(n, np.float32)
        self.reward = np.zeros(n, np.float32)
        self.done = np.zeros(n, bool)
        self.next = np.full(n, -1, np.int64)
        self.step = np.zeros(n, np.int64)  # rollout step that created it (-1: carried)
        self.size = 0
        self.last = np.full((cfg.num_envs, cfg.num_players), -1, np.int64)  # pending per (lane, seat)

    def add(self, step, lanes, seats, obs, prior, mask, action, logp, value) -> None:
        n = lanes.size
        idx = np.arange(self.size, self.size + n)
        self.size += n
        self.obs[idx], self.prior[idx], self.mask[idx] = obs, prior, mask
        self.action[idx], self.logp[idx], self.value[idx] = action, logp, value
        self.reward[idx] = 0.0
        self.done[idx] = False
        self.next[idx] = -1
        self.step[idx] = step
        prev = self.last[lanes, seats]
        has = prev >= 0
        self.next[prev[has]] = idx[has]
        self.last[lanes, seats] = idx

    def credit(self, rewards: np.ndarray, done: np.ndarray) -> None:
        """Add each seat's credited reward to its last transition; close ended games."""
        lanes, seats = np.nonzero(rewards)
        idx = self.last[lanes, seats]
        ok = idx >= 0
        np.add.at(self.reward, idx[ok], rewards[lanes[ok], seats[ok]])
        d = np.flatnonzero(done)
        if d.size:
            idx = self.last[d].ravel()
            self.done[idx[idx >= 0]] = True
            self.last[d] = -1

    def advantages(self, gamma: float, lam: float, steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """GAE along the links, newest first. Returns (trainable indices, advantages, returns)."""
        n = self.size
        adv = np.zeros(n, np.float32)
        order = self.step[:n]
        for t in range(steps - 1, -2, -1):
            idx = np.flatnonzero(order == t)
            if idx.size == 0:
                continue
            nxt = self.next[idx]
            has = nxt >= 0
            live = ~self.done[idx]
            v_next = np.where(has, self.value[np.maximum(nxt, 0)], 0.0)
            a_next = np.where(has, adv[np.maximum(nxt, 0)], 0.0)
            delta = self.reward[idx] + gamma * v_next * live - self.value[idx]
            adv[idx] = delta + gamma * lam * live * a_next
        trainable = np.flatnonzero(self.done[:n] | (self.next[:n] >= 0))
        return trainable, adv[trainable], (adv + self.value[:n])[trainable]

    def carry_over(self) -> None:
        """Keep only the transitions still waiting for their successor, at the front."""
        n = self.size
        keep = np.flatnonzero(~self.done[:n] & (self.next[:n] < 0))
        k = keep.size
        for arr in (self.obs, self.prior, self.mask, self.action, self.logp, self.value, self.reward):
            arr[:k] = arr[keep]
        self.done[:k] = False
        self.next[:k] = -1
        self.step[:k] = -1
        new_index = np.full(n, -1, np.int64)
        new_index[keep] = np.arange(k)
        pending = self.last >= 0
        self.last[pending] = new_index[self.last[pending]]
        self.size = k

    def state_dict(self) -> dict:
        n = self.size
        return {k: torch.from_numpy(np.ascontiguousarray(getattr(self, k)[:n]))
                for k in ("obs", "prior", "mask", "action", "logp", "value", "reward", "done", "next", "step")} | {
            "last": torch.from_numpy(self.last.copy()), "size": n}

    def load_state_dict(self, d: dict) -> None:
        n = int(d["size"])
        for k in ("obs", "prior", "mask", "action", "logp", "value", "reward", "done", "next", "step"):
            getattr(self, k)[:n] = d[k].numpy()
        self.last[:] = d["last"].numpy()
        self.size = n


# ======================================================================================
# PPO update
# ======================================================================================
def ppo_update(net: PolicyNet, opt: torch.optim.Optimizer, ro: Rollout, idx: np.ndarray, adv: np.ndarray,
               ret: np.ndarray, cfg: TrainConfig, gen: torch.Generator) -> dict:
    obs = torch.from_numpy(ro.obs[idx])
    prior = torch.from_numpy(ro.prior[idx].astype(np.float32))
    mask = torch.from_numpy(ro.mask[idx])
    act = torch.from_numpy(ro.action[idx])
    old_logp = torch.from_numpy(ro.logp[idx])
    # advantages normalised once over the rollout (a minibatch may hold a single sample)
    adv_t = torch.from_numpy((adv - adv.mean()) / (adv.std() + 1e-8))
    ret_t = torch.from_numpy(ret)
    n = idx.size
    stats = {"policy_loss": [], "value_loss": [], "entropy": [], "approx_kl": [], "clipfrac": []}
    net.train()
    for _ in range(cfg.update_epochs):
        perm = torch.randperm(n, generator=gen)
        kls = []
        for start in range(0, n, cfg.minibatch_size):
            mb = perm[start:start + cfg.minibatch_size]
            logits, value = net(obs[mb], prior[mb], mask[mb])
            logp_all = torch.log_softmax(logits, dim=1)
            logp = logp_all.gather(1, act[mb, None]).squeeze(1)
            ratio = torch.exp(logp - old_logp[mb])
            a = adv_t[mb]
            pg = torch.max(-a * ratio, -a * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
            v_loss = 0.5 * (value - ret_t[mb]).pow(2).mean()
            ent = masked_entropy(logits, mask[mb]).mean()
            loss = pg + cfg.vf_coef * v_loss - cfg.ent_coef * ent
            if not torch.isfinite(loss):
                raise FloatingPointError(f"the PPO loss is not finite (policy {pg.item()}, value {v_loss.item()}, "
                                         f"entropy {ent.item()}): lower the learning rate or check the rewards")
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            opt.step()
            with torch.no_grad():
                kl = ((ratio - 1) - (logp - old_logp[mb])).mean().item()
            kls.append(kl)
            for k, v in (("policy_loss", pg.item()), ("value_loss", v_loss.item()), ("entropy", ent.item()),
                         ("approx_kl", kl), ("clipfrac", ((ratio - 1).abs() > cfg.clip_coef).float().mean().item())):
                stats[k].append(v)
        if cfg.target_kl and np.mean(kls) > cfg.target_kl:
            break
    net.eval()
    out = {k: float(np.mean(v)) for k, v in stats.items()}
    var = float(np.var(ret))  # how much of the returns the rollout's values explained
    out["explained_variance"] = float(1 - np.var(ret - ro.value[idx]) / var) if var > 0 else 0.0
    return out


# ======================================================================================
# Evaluation (evaluate.py's code)
# ======================================================================================
def evaluate_policy(net: PolicyNet, cfg: TrainConfig, games: int, seed: int, opponents=None):
    """Greedy play of a copy of ``net`` against each baseline; returns evaluate.Tournament."""
    from rummyrl import evaluate

    copy = PolicyNet(net.io, net.cfg)
    copy.load_state_dict(net.state_dict())
    agent = NeuralAgent(copy.eval(), name="policy")
    specs = ["policy"] + list(opponents if opponents is not None else cfg.eval.opponents)
    return evaluate.run_tournament(specs, game=cfg.game, games=games, unit=cfg.eval.unit,
                                   players=cfg.num_players, seed=seed, options=cfg.rules,
                                   show_progress=False, agents={"policy": agent}, pairs_with=0)


# ======================================================================================
# Checkpoints: everything needed to continue exactly where a run stopped
# ======================================================================================
def _arrays_of(obj) -> dict:
    return {f.name: torch.from_numpy(np.ascontiguousarray(getattr(obj, f.name)))
            for f in dataclasses.fields(obj) if isinstance(getattr(obj, f.name), np.ndarray)}


def env_state_dict(env) -> dict:
    b = env.batch
    return {"core": _arrays_of(env.state), "seat_rewards": torch.from_numpy(env.seats.pending.copy()),
            "batch": {k: torch.from_numpy(np.ascontiguousarray(getattr(b, k)))
                      for k in ("player", "obs", "mask", "rewards", "done")}}


def load_env_state(env, d: dict) -> None:
    for name, t in d["core"].items():
        arr = getattr(env.state, name)
        if arr.shape != tuple(t.shape):
            setattr(env.state, name, t.numpy().copy())
        else:
            arr[...] = t.numpy()
    env.seats.pending[:] = d["seat_rewards"].numpy()
    for k, t in d["batch"].items():
        getattr(env.batch, k)[...] = t.numpy()


def _np_rng_state(rng: np.random.Generator) -> dict:
    s = rng.bit_generator.state
    return {"bit_generator": s["bit_generator"], "state": str(s["state"]["state"]), "inc": str(s["state"]["inc"]),
            "has_uint32": s["has_uint32"], "uinteger": s["uinteger"]}


def _set_np_rng_state(rng: np.random.Generator, d: dict) -> None:
    rng.bit_generator.state = {"bit_generator": d["bit_generator"],
                               "state": {"state": int(d["state"]), "inc": int(d["inc"])},
                               "has_uint32": d["has_uint32"], "uinteger": d["uinteger"]}


@dataclass
class Trainer:
    """All the state of a run; ``save``/``load`` make ``--resume`` continue it exactly."""

    cfg: TrainConfig
    run_dir: Path
    net: PolicyNet = None
    opt: torch.optim.Optimizer = None
    env: object = None
    pool: OpponentPool = None
    rollout: Rollout = None
    rng: np.random.Generator = None
    torch_gen: torch.Generator = None
    global_step: int = 0
    updates: int = 0
    elapsed: float = 0.0
    best_score: float = -1.0
    last_eval: dict = field(default_factory=dict)
    lane_kind: np.ndarray = None
    lane_snap: np.ndarray = None
    lane_seat: np.ndarray = None
    interrupted: bool = False

    def setup(self) -> None:
        cfg = self.cfg
        np.random.seed(cfg.seed)
        torch.manual_seed(cfg.seed)
        self.rng = np.random.default_rng(cfg.seed)
        self.torch_gen = torch.Generator().manual_seed(cfg.seed)
        io = game_io(cfg.game, cfg.num_players)
        self.net = PolicyNet(io, cfg.net).eval()
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.learning_rate, eps=1e-5)
        self.env = make_selfplay(cfg)
        self.env.reset(seed=cfg.seed)
        self.pool = OpponentPool(cfg, self.rng)
        self.rollout = Rollout(cfg, io)
        self.lane_kind, self.lane_snap = self.pool.draw(cfg.num_envs)
        self.lane_seat = self.rng.integers(0, cfg.num_players, cfg.num_envs)

    def payload(self) -> dict:
        cfg = self.cfg
        return {
            "game": cfg.game, "num_players": cfg.num_players,
            "net_config": dataclasses.asdict(cfg.net), "model": self.net.state_dict(),
            "train_config": dataclasses.asdict(cfg),
            "optimizer": self.opt.state_dict(),
            "counters": {"global_step": self.global_step, "updates": self.updates, "elapsed": self.elapsed,
                         "best_score": self.best_score},
            "last_eval": self.last_eval,
            "rng": {"numpy": _np_rng_state(self.rng), "torch": self.torch_gen.get_state(),
                    "torch_global": torch.get_rng_state(),
                    "baselines": {k: _np_rng_state(a.rng) for k, a in self.pool.baselines.items()
                                  if hasattr(a, "rng")}},
            "env": env_state_dict(self.env),
            "pool": [{"model": a.net.state_dict(), "rng": _np_rng_state(a.rng)} for a in self.pool.snapshots],
            "lanes": {"kind": torch.from_numpy(self.lane_kind), "snap": torch.from_numpy(self.lane_snap),
                      "seat": torch.from_numpy(self.lane_seat)},
            "rollout": self.rollout.state_dict(),
        }

    def save(self, name: str) -> Path:
        path = self.run_dir / name
        save_checkpoint(path, self.payload())
        return path

    def load(self, data: dict) -> None:
        self.net.load_state_dict(data["model"])
        self.opt.load_state_dict(data["optimizer"])
        c = data["counters"]
        self.global_step, self.updates = int(c["global_step"]), int(c["updates"])
        self.elapsed, self.best_score = float(c["elapsed"]), float(c["best_score"])
        self.last_eval = dict(data.get("last_eval", {}))
        _set_np_rng_state(self.rng, data["rng"]["numpy"])
        self.torch_gen.set_state(data["rng"]["torch"])
        torch.set_rng_state(data["rng"]["torch_global"])
        for k, st in data["rng"]["baselines"].items():
            _set_np_rng_state(self.pool.baselines[int(k)].rng, st)
        load_env_state(self.env, data["env"])
        self.pool.snapshots = []
        for i, snap in enumerate(data["pool"]):
            copy = PolicyNet(self.net.io, self.net.cfg)
            copy.load_state_dict(snap["model"])
            agent = NeuralAgent(copy, name=f"snapshot{i}", greedy=False)
            _set_np_rng_state(agent.rng, snap["rng"])
            self.pool.snapshots.append(agent)
        self.lane_kind = data["lanes"]["kind"].numpy().copy()
        self.lane_snap = data["lanes"]["snap"].numpy().copy()
        self.lane_seat = data["lanes"]["seat"].numpy().copy()
        self.rollout.load_state_dict(data["rollout"])


# ======================================================================================
# One rollout
# ======================================================================================
def collect_rollout(tr: Trainer, stats: dict) -> int:
    """Play ``rollout_steps`` batched steps; store the learner's decisions. Returns env steps."""
    cfg, env, ro, net = tr.cfg, tr.env, tr.rollout, tr.net
    batch = env.batch
    lanes_all = np.arange(cfg.num_envs)
    for t in range(cfg.rollout_steps):
        player = batch.player.copy()
        learner = (tr.lane_kind == SELF) | (player == tr.lane_seat)
        actions = np.zeros(cfg.num_envs, np.int64)
        # the expert's preference, in one pass for every game whose player needs it
        need = learner | OpponentPool.uses_prior(tr.lane_kind)
        prior_all = np.zeros(batch.mask.shape, np.float32)
        prior_all[need] = expert_prior(cfg.game, batch.obs[need], batch.mask[need], cfg.num_players)
        rows = np.flatnonzero(learner)
        if rows.size:
            obs, mask, prior = batch.obs[rows], batch.mask[rows], prior_all[rows]
            with torch.no_grad():
                logits, value = net(torch.from_numpy(obs), torch.from_numpy(prior), torch.from_numpy(mask))
                logp_all = torch.log_softmax(logits, 1).numpy()
            a = sample_actions(np.exp(logp_all), tr.rng)
            actions[rows] = a
            ro.add(t, lanes_all[rows], player[rows], obs, prior, mask, a, logp_all[np.arange(a.size), a], value.numpy())
        others = np.flatnonzero(~learner)
        if others.size:
            actions[others] = tr.pool.act(tr.lane_kind[others], tr.lane_snap[others],
                                          batch.obs[others], batch.mask[others], prior_all[others])
        batch = env.step(actions)
        _hand_stats(env, tr, stats)
        ro.credit(batch.rewards, batch.done)
        if batch.done.any():
            d = np.flatnonzero(batch.done)
            _game_stats(batch, tr, d, stats)
            tr.lane_kind[d], tr.lane_snap[d] = tr.pool.draw(d.size)
            tr.lane_seat[d] = tr.rng.integers(0, cfg.num_players, d.size)
    return cfg.rollout_steps * cfg.num_envs


def _hand_stats(env, tr: Trainer, stats: dict) -> None:
    st = env.state
    ended = np.flatnonzero(st.hand_ended if tr.cfg.game == "gin" else st.round_ended)
    if ended.size:
        names = _end_names(tr.cfg.game)
        for k in np.bincount(st.last_end[ended], minlength=len(names)).nonzero()[0]:
            stats.setdefault(f"hands/{names[k]}", 0)
            stats[f"hands/{names[k]}"] += int((st.last_end[ended] == k).sum())
        stats["hands/total"] = stats.get("hands/total", 0) + ended.size


def _game_stats(batch, tr: Trainer, d: np.ndarray, stats: dict) -> None:
    """Results of ended games in which the learner held a seat against an opponent."""
    vs = d[tr.lane_kind[d] != SELF]
    if vs.size:
        winner = batch.final["winner"][vs]
        seat = tr.lane_seat[vs]
        stats.setdefault("games/vs_pool", []).extend((winner == seat).astype(float).tolist())
        totals = batch.final["total"][vs].astype(float)
        mine = totals[np.arange(vs.size), seat]
        stats.setdefault("games/points", []).extend((mine - (totals.sum(1) - mine) / (totals.shape[1] - 1)).tolist())


def _end_names(game: str):
    if game == "gin":
        from rummyrl import gin

        return gin.END_NAMES
    from rummyrl import rummy

    return rummy.END_NAMES


# ======================================================================================
# The main loop
# ======================================================================================
EVAL_SEED = 10_007  # periodic evaluations: the seeds checkpoints are chosen on
FINAL_EVAL_SEED = 20_011  # the report after training: fresh seeds


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
          max_updates: int | None = None, progress: bool = True) -> Trainer:
    """Train until ``total_steps``, the time limit, ``max_updates`` or Ctrl-C; returns the
    trainer (``last.pt`` and ``final.pt``/``best.pt`` are written to the run folder)."""
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    update_threads = cfg.torch_threads or torch.get_num_threads()
    run_dir = Path(run_dir or Path("runs") / cfg.name)
    run_dir.mkdir(parents=True, exist_ok=True)
    tr = Trainer(cfg, run_dir)
    tr.setup()
    if resume is not None:
        tr.load(resume)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(dataclasses.asdict(cfg), sort_keys=False))
    writer = SummaryWriter(str(run_dir))
    flag = _StopFlag()
    old_handler = signal.signal(signal.SIGINT, flag) if progress else None
    bar = tqdm(total=int(cfg.total_steps), initial=tr.global_step, unit="step", unit_scale=True,
               dynamic_ncols=True, file=sys.stderr, disable=not progress)
    start = time.perf_counter() - tr.elapsed
    if cfg.eval.every_minutes and tr.updates == 0 and max_updates is None:
        _periodic_eval(tr, writer)  # the starting point of the learning curve
        bar.set_postfix_str(_postfix(tr, 0.0))
    last_ckpt = last_eval = time.perf_counter()
    updates_here = 0
    try:
        while tr.global_step < cfg.total_steps and not flag.stop:
            if cfg.time_limit_minutes and tr.elapsed >= cfg.time_limit_minutes * 60:
                break
            if max_updates is not None and updates_here >= max_updates:
                break
            t0 = time.perf_counter()
            frac = 1.0 - tr.global_step / cfg.total_steps if cfg.lr_schedule == "linear" else 1.0
            for g in tr.opt.param_groups:
                g["lr"] = cfg.learning_rate * max(frac, 0.0)
            stats: dict = {}
            torch.set_num_threads(1)  # small batches: one thread beats two that wait on each other
            steps = collect_rollout(tr, stats)
            t1 = time.perf_counter()
            torch.set_num_threads(update_threads)
            idx, adv, ret = tr.rollout.advantages(cfg.gamma, cfg.gae_lambda, cfg.rollout_steps)
            upd = ppo_update(tr.net, tr.opt, tr.rollout, idx, adv, ret, cfg, tr.torch_gen)
            tr.rollout.carry_over()
            t2 = time.perf_counter()
            tr.updates += 1
            updates_here += 1
            tr.global_step += steps
            if tr.updates % cfg.snapshot_every == 0:
                tr.pool.add_snapshot(tr.net)
            tr.elapsed = time.perf_counter() - start
            _log_update(writer, tr, upd, stats, steps, t0, t1, t2, idx.size)
            bar.update(steps)
            bar.set_postfix_str(_postfix(tr, steps / (t2 - t0)))
            now = time.perf_counter()
            if cfg.eval.every_minutes and now - last_eval >= cfg.eval.every_minutes * 60:
                _periodic_eval(tr, writer)
                last_eval = time.perf_counter()
            if cfg.checkpoint_every_minutes and now - last_ckpt >= cfg.checkpoint_every_minutes * 60:
                tr.save("last.pt")
                last_ckpt = time.perf_counter()
            tr.elapsed = time.perf_counter() - start
    finally:
        bar.close()
        tr.save("last.pt")
        if old_handler is not None:
            signal.signal(signal.SIGINT, old_handler)
        writer.flush()
    done = tr.global_step >= cfg.total_steps or (cfg.time_limit_minutes and tr.elapsed >= cfg.time_limit_minutes * 60)
    if done and not flag.stop:
        if cfg.eval.every_minutes:
            _periodic_eval(tr, writer)
        tr.save("final.pt")
        if not (run_dir / "best.pt").exists():
            tr.save("best.pt")
    writer.close()
    tr.interrupted = flag.stop
    return tr


def _postfix(tr: Trainer, sps: float) -> str:
    ev = tr.last_eval
    wins = " ".join(f"{k}={v:.0%}" for k, v in ev.get("win_rate", {}).items())
    return f"{sps:,.0f} steps/s" + (f" | eval {wins}" if wins else "")


def _log_update(writer, tr: Trainer, upd: dict, stats: dict, steps: int, t0, t1, t2, samples: int) -> None:
    s = tr.global_step
    for k, v in upd.items():
        writer.add_scalar(f"losses/{k}", v, s)
    writer.add_scalar("charts/steps_per_second", steps / (t2 - t0), s)
    writer.add_scalar("charts/rollout_seconds", t1 - t0, s)
    writer.add_scalar("charts/update_seconds", t2 - t1, s)
    writer.add_scalar("charts/learner_samples", samples, s)
    writer.add_scalar("charts/learning_rate", tr.opt.param_groups[0]["lr"], s)
    writer.add_scalar("charts/minutes", tr.elapsed / 60, s)
    writer.add_scalar("charts/snapshots", len(tr.pool.snapshots), s)
    total = stats.get("hands/total", 0)
    if total:
        for k, v in stats.items():
            if k.startswith("hands/") and k != "hands/total":
                writer.add_scalar(f"hands/{k[6:]}_rate", v / total, s)
    if stats.get("games/vs_pool"):
        writer.add_scalar("charts/win_rate_vs_pool", float(np.mean(stats["games/vs_pool"])), s)
        writer.add_scalar("charts/episode_points", float(np.mean(stats["games/points"])), s)


def _periodic_eval(tr: Trainer, writer) -> None:
    cfg = tr.cfg
    t = evaluate_policy(tr.net, cfg, cfg.eval.games, EVAL_SEED)
    rates = {p.b: p.win_rate for p in t.pairings}
    for opp, r in rates.items():
        writer.add_scalar(f"eval/win_rate_vs_{opp}", r, tr.global_step)
    for p in t.pairings:
        writer.add_scalar(f"eval/points_per_game_vs_{p.b}", p.margin_a, tr.global_step)
    writer.add_scalar("eval/minutes", tr.elapsed / 60, tr.global_step)
    score = float(np.mean(list(rates.values())))
    tr.last_eval = {"step": tr.global_step, "minutes": tr.elapsed / 60, "win_rate": rates, "score": score}
    if score > tr.best_score:
        tr.best_score = score
        tr.save("best.pt")
    writer.flush()


def plot_learning_curve(run_dir: Path, out: Path | None = None, players: int = 2) -> Path | None:
    """Win rate against each baseline over training time, read from the TensorBoard logs;
    a dashed line at chance, 1 / ``players``."""
    from matplotlib.figure import Figure
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

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


def final_report(tr: Trainer, games: int | None = None) -> None:
    """Evaluate the best checkpoint on fresh seeds against the baselines and print the table."""
    from rummyrl import evaluate

    cfg = tr.cfg
    games = cfg.eval.final_games if games is None else games
    if games <= 0:
        return
    best = tr.run_dir / "best.pt"
    net = build_net(load_checkpoint(best, cfg.game)) if best.exists() else tr.net
    print(f"\nevaluating {best if best.exists() else 'the final policy'} on fresh deals "
          f"({games} games per opponent) ...", file=sys.stderr)
    t = evaluate_policy(net, cfg, games, FINAL_EVAL_SEED, opponents=cfg.eval.opponents)
    print(evaluate.format_table(t))
    jpath, ppath = evaluate.write_outputs(t, tr.run_dir / "eval")
    curve = plot_learning_curve(tr.run_dir, players=cfg.num_players)
    print(f"\nwrote {jpath}, {ppath}" + (f" and {curve}" if curve else ""))


# ======================================================================================
# Command line
# ======================================================================================
QUICK = ["total_steps=400000", "time_limit_minutes=4", "num_envs=128", "eval.every_minutes=1",
         "eval.games=100", "eval.final_games=200", "checkpoint_every_minutes=1"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Self-play PPO for rummyrl.", epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default=None, help="YAML config (default configs/gin_rummy.yaml)")
    ap.add_argument("--resume", default=None, help="checkpoint to continue (its config, plus overrides)")
    ap.add_argument("--quick", action="store_true", help="a few-minute run for a first look")
    ap.add_argument("--run-dir", default=None, help="folder for logs and checkpoints (default runs/<name>)")
    ap.add_argument("--no-eval", action="store_true", help="skip the evaluation after training")
    ap.add_argument("overrides", nargs="*", help="config overrides key=value (e.g. total_steps=2e6 net.hidden=128)")
    args = ap.parse_args(argv)
    try:
        resume = None
        if args.resume:
            resume = load_checkpoint(args.resume)
            base = resume["train_config"]
            cfg = load_config(None, _flatten(base) + (QUICK if args.quick else []) + args.overrides)
        else:
            path = args.config or "configs/gin_rummy.yaml"
            cfg = load_config(path, (QUICK if args.quick else []) + args.overrides)
        if args.quick and not any(o.startswith("name=") for o in args.overrides):
            cfg = dataclasses.replace(cfg, name=cfg.name + "_quick")
    except (ConfigError, ValueError, FileNotFoundError) as e:
        print(f"train.py: error: {e}", file=sys.stderr)
        return 2
    run_dir = Path(args.run_dir) if args.run_dir else (Path(args.resume).parent if args.resume else None)
    tr = train(cfg, run_dir=run_dir, resume=resume)
    if tr.interrupted:
        print(f"stopped; continue with: python train.py --resume {tr.run_dir / 'last.pt'}", file=sys.stderr)
        return 130
    if not args.no_eval:
        final_report(tr)
    return 0


def _flatten(d: dict, prefix: str = "") -> list[str]:
    out = []
    for k, v in d.items():
        if isinstance(v, dict) and k != "rules":
            out += _flatten(v, prefix + k + ".")
        else:
            out.append(f"{prefix}{k}={yaml.safe_dump(v, default_flow_style=True).strip().removesuffix('...').strip()}")
    return out


if __name__ == "__main__":
    sys.exit(main())
