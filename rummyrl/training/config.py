"""The training config: its dataclasses, YAML loading with ``key=value`` overrides, and checks.

:class:`TrainConfig` documents every field; :func:`load_config` builds one from a file and
overrides and raises :class:`ConfigError` naming the key of anything unknown or out of
range; what a game allows (players, rules, rewards, network features) the game registry
(``rummyrl.games``) and the network's own check (``NetConfig.check``) say. A key that was
removed is refused with what replaced it (:data:`RETIRED`). :func:`to_overrides` turns a
saved config back into overrides (``--resume``), after :func:`upgrade` has read it in
today's keys.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import re
import sys
import typing
from dataclasses import dataclass, field
from pathlib import Path

import torch
import yaml

from rummyrl import distributed, games
from rummyrl.agents import agent_names, load_agent
from rummyrl.agents.network import PRECISIONS, NetConfig, bf16_supported

from . import methods
from rummyrl.agents.split import PHASES, check_phase


@dataclass
class OpponentConfig:
    """How often each kind of opponent is drawn for a new game (weights, normalised): the
    named kinds and their defaults. ``opponents`` is a mapping: these keys keep their
    defaults unless given, and any other key is an agent spec that ``load_agent`` builds
    (``pretrained``, ``expert:lookahead=4``, ``search:worlds=16``, a checkpoint path), drawn
    with its weight."""

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


#: the type of ``TrainConfig.opponents``: a mapping of kinds to weights (:func:`_coerce`
#: lays it over :class:`OpponentConfig`'s defaults)
OpponentWeights = typing.NewType("OpponentWeights", dict)


@dataclass
class EvalConfig:
    """Periodic evaluation with evaluate.py's code (greedy policy, duplicate deals)."""

    every_minutes: float = 5.0
    """Minutes of training between evaluations (0: none by the clock)."""
    every_steps: int = 0
    """Env steps between evaluations (0: none by steps). Evaluations by steps fall at the same
    points of training on any machine, so the checkpoint that becomes ``best.pt`` does too;
    by the clock, a slower machine evaluates (and may pick) other steps. With both 0 there
    is no learning curve and ``best.pt`` is the final network."""
    games: int = 400
    """Games per opponent at each periodic evaluation."""
    final_games: int = 2000
    """Games per opponent in the evaluation after training."""
    opponents: list = field(default_factory=lambda: ["simple", "expert"])
    """The agents to evaluate against: any specs ``load_agent`` builds (baselines, names with
    options, ``search``, shipped networks, checkpoint paths)."""
    best_by: str = "mean"
    """What makes a checkpoint ``best.pt``: ``mean`` (its mean win rate over ``opponents``)
    or one opponent's name (its win rate against that one). A run that gains against one
    baseline while losing against another never beats its start by the mean."""
    unit: str = "game"
    """``game`` (to the target) or ``hand``."""
    max_hands: int = 30
    """With ``unit: game``, a game not decided after this many hands (Gin; rounds in
    Rummy) ends as a draw, a loss for both sides' win rates (0: the rules' own cap, 100).
    Weak policies, whose hands run to the stock's end, would otherwise take minutes per
    evaluation; games between the rule agents end well before the cap."""


@dataclass
class ExitConfig:
    """Expert iteration (``algo: exit``, :mod:`rummyrl.training.exit`)."""

    teacher: str = "search"
    """The agent whose decisions the network learns: an agent spec, e.g. ``search:worlds=32``
    (search's own options choose its rollout policy: ``search:rollout=runs/NAME/best.pt``)."""
    buffer: int = 200_000
    """Finished decisions kept for training (the oldest dropped)."""
    batches: int = 16
    """Minibatches (of ``minibatch_size``) trained on per iteration."""
    learn: bool = True
    """Train the network on the records (``false``: a data run; the network stays as it
    started, the losses are still measured and logged, and an offline fit,
    ``scripts/exit_fit.py``, learns from the saved records instead)."""
    record_values: bool = False
    """Keep search's candidates and its mean value of each in the records (``cand``, ``q``;
    needs a ``search`` teacher), so an offline fit can measure what the network's moves are
    worth by search's reckoning (``q_gain``) and teach only its clear departures
    (``min_gain``). The policy target is search's choice either way."""
    depart_weight: float = 1.0
    """Weight, in the policy loss, of the decisions where search chose other than the
    network did when the data were made (the ones with something to teach); the others
    weigh 1."""
    phase: str = "all"
    """Where the teacher plays the learner's seats: ``all`` (every decision), ``draw`` (the
    draw decisions only), ``knock`` (Gin: the positions that allow ending the hand only) or
    ``stock`` (Rummy: the draws at which the stock's next card is known, agents/split.py);
    the network, greedy, plays the rest, and only the teacher's decisions are recorded.
    Distil search where its edge lies (``docs/research/scripts/search_where.py`` measures
    where): in Gin search at the knock alone won as many games against the expert as search
    everywhere on the same deals, for the cost of searching the knock decisions alone
    (docs/research/expert_iteration_gin.md)."""
    plays: str = "teacher"
    """Who plays the teacher's decisions: ``teacher`` (search plays and is recorded) or
    ``network`` (DAgger, Ross, Gordon & Bagnell 2011: the network plays greedily everywhere
    and search only labels its positions). A network trained on search's own positions
    meets others when it plays: in Rummy search takes the discard at known-stock draws,
    which keeps the stock known for the next draw, so those draws were half takes in its
    records and a fifth in the network's games."""
    save_records: bool = False
    """Also write each iteration's finished records to ``<run dir>/records/`` (one
    ``.npz`` per iteration, each written whole), so the costly search data can be distilled
    again offline with other settings (``scripts/exit_fit.py``)."""


@dataclass
class TrainConfig:
    """Every field can be set in the YAML file or on the command line (``key=value``)."""

    name: str = "gin_rummy"
    """Run name: logs and checkpoints go to ``runs/<name>/``."""
    algo: str = "ppo"
    """``ppo`` (self-play PPO) or ``exit`` (expert iteration: the network learns the search
    agent's decisions, ``exit`` section)."""
    game: str = "gin"
    """A game of the registry (``rummyrl.games``): ``gin`` or ``rummy``."""
    num_players: int = 2
    """Players per game, in the game's range (Gin: 2; Rummy: 2-6)."""
    rules: dict = field(default_factory=dict)
    """Rule options of the game's engine config (``Game.config_cls``: GinConfig, RummyConfig)."""
    episode: str = "game"
    """Training episodes: ``game`` (to the target) or ``hand`` (one deal: a Gin hand, a Rummy round)."""
    reward: str = "default"
    """Reward scheme of the environments: the game's deal points (``Game.points_reward``:
    ``hand_points`` in Gin, ``round_points`` in Rummy), ``game``, ``game_points``, joined by
    ``+``; ``default`` is the deal's points plus the game's result (``hand_points+game`` /
    ``round_points+game``)."""
    reward_scale: float = 1.0
    """Multiplies every scheme's reward (the game's ``points_scale`` and ``game_points_scale``),
    so that a scheme's returns stay in the range the value head learns at: Rummy's
    ``game_points`` over one-round episodes (the winner's points minus the mean of the
    others', what a game to the target adds up) at 4 pays the winner what ``round_points``
    does."""
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
    """Network shape (``rummyrl.agents.network.NetConfig``, which checks it)."""
    opponents: OpponentWeights = field(default_factory=lambda: dataclasses.asdict(OpponentConfig()))
    """Opponent pool weights: a mapping of ``self_play``, ``snapshots`` and agent specs to
    weights, over :class:`OpponentConfig`'s defaults."""
    snapshot_every: int = 20
    """Updates between snapshots added to the pool."""
    pool_size: int = 10
    """Snapshots kept (the oldest is dropped)."""
    snapshot_sampling: str = "uniform"
    """Which snapshot a game against the snapshots draws: ``uniform``, or ``pfsp``
    (prioritised fictitious self-play, as in AlphaStar): each snapshot weighted by
    ``(1 - p) ** 2``, ``p`` the learner's win rate against it so far (``(wins + 1) / (games +
    2)``), so the past selves it still loses to are played most and self-play does not
    forget how to beat them. The counts are kept per lanes (per Ray worker) and in checkpoints."""
    eval: EvalConfig = field(default_factory=EvalConfig)
    """Periodic evaluation."""
    exit: ExitConfig = field(default_factory=ExitConfig)
    """Expert iteration (``algo: exit``)."""
    checkpoint_every_minutes: float = 5.0
    """Minutes between checkpoints (``last.pt``)."""
    init: str = ""
    """A checkpoint whose network starts the run instead of a fresh one: train.py's, an
    offline fit's (``scripts/exit_fit.py``) or a shipped network; its game, players and
    ``net`` must be this run's (``--resume`` continues a run instead, optimizer and all)."""
    seed: int = 0
    """Seed of deals, sampling, network init and opponent draws."""
    torch_threads: int = 0
    """Threads for torch in the PPO updates (0: torch's default); rollouts use one."""
    device: str = "auto"
    """Where the learner's network lives (its PPO updates, and the rollouts' inference when
    ``workers=0``): ``cpu``, ``cuda`` (or ``cuda:N``), or ``auto`` (``cuda`` when
    ``torch.cuda.is_available()``, else ``cpu``). Ray workers always infer on CPU, and
    checkpoints hold CPU tensors whatever the device, so they load anywhere."""
    precision: str = "fp32"
    """What the network's trunk computes its matrix products in during the PPO updates (the
    learner's minibatches) and while the rollouts play (the learner's seats and the pool's
    snapshots): ``fp32``; ``bf16`` (autocast: bfloat16 products summed in float32, the
    weights, logits and value in float32; native on a CPU with AMX or AVX-512 BF16, and
    refused where the learner's device has neither, since it would be emulated); or ``auto`` (``bf16`` where the device has it, else ``fp32``: which one ran is
    printed, and kept in checkpoints as ``counters.precision``). Players on a device without
    native bfloat16 (a Ray worker's CPU) play in float32 (:func:`play_precision`), and so do
    the evaluations: the network a run ships plays in float32. A run in bf16 is reproducible
    on the same machine; its numbers differ from an fp32 run's in the last bits, as another
    machine's may."""
    overlap: bool = False
    """Play the next rollout while the learner updates on the last one, each on its own
    core (``workers=0`` and ``algo: ppo`` only): the learner's minibatches run in a thread
    beside the lanes, so an update costs the longer of the two instead of their sum. The
    rollout is then played by the network of one update before (a copy of the weights the
    learner started from), which PPO's ratio to the stored log-probabilities accounts for,
    as in asynchronous PPO. Reproducible as a sequential run is: the same seed gives the
    same weights, and ``last.pt`` keeps the rollout not yet learned from (compressed), so
    ``--resume`` continues exactly. Rollouts use one torch thread and the learner one."""
    workers: int = 0
    """Rollout workers: 0 plays the self-play lanes in this process; N > 0 starts N Ray
    actors (``pip install -e ".[ray]"``) that share the ``num_envs`` lanes between them
    (``num_envs`` is the total, split as evenly as it goes) and each keep a CPU copy of the
    policy; the learner gathers their rollouts (with ``algo: exit``, their search
    records), updates and broadcasts the new weights (``rummyrl/training/workers.py``)."""
    ray_address: str = ""
    """With ``workers > 0``: the Ray cluster to join (``auto``: the one ``ray start`` set up
    on this machine, or ``HOST:PORT``); empty starts a local Ray for the run (or uses the
    one this process already initialised)."""


class ConfigError(ValueError):
    """A config file or override that names an unknown key or holds a bad value."""


#: keys that were removed, and what replaced them: a config that names one is refused with
#: this text (a checkpoint's saved config is read in today's keys by :func:`upgrade`)
RETIRED = {
    "exit.target": "exit.target was removed: the policy target is search's choice. Soft-max targets of "
                   "search's values lost wherever they were tried (docs/research/expert_iteration_gin.md; "
                   "docs/results/gin_exit_soft/, docs/results/rummy_exit_expert/fit/epochs_softmax.json); "
                   "to keep search's values in the records (what the offline fit's q_gain and min_gain "
                   "read) use exit.record_values: true",
    "exit.temperature": "exit.temperature was removed with the soft-max targets (exit.target); to keep "
                        "search's values in the records use exit.record_values: true",
    "exit.rollout": "exit.rollout was removed (its 'network' was in no config, test or result): search's "
                    "rollout policy is the teacher's own option, e.g. exit.teacher='search:rollout=PATH.pt'",
    "net.card_encoder": "net.card_encoder was removed with the card-set encoder: delete the key "
                        "(net.card_head scores card actions by their card)",
    "net.card_dim": "net.card_dim was removed with the card-set encoder (net.card_encoder): delete the key",
}


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
    if typ is OpponentWeights:
        if not isinstance(value, dict):
            raise ConfigError(f"{key} must be a mapping of opponents (self_play, snapshots or an agent spec) to "
                              f"weights, got {value!r}")
        out = dataclasses.asdict(OpponentConfig())
        for k, v in value.items():
            if not isinstance(k, str) or not k.strip():
                raise ConfigError(f"{key}: each key is self_play, snapshots or an agent spec, got {k!r}")
            out[k] = _coerce(v, float, f"{key}.{k}")
        return out
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
    for k in unknown:
        if prefix + k in RETIRED:
            raise ConfigError(RETIRED[prefix + k])
    if unknown:
        raise ConfigError(f"unknown config key(s) {[prefix + k for k in unknown]}; "
                          f"known {prefix or 'top-level '}keys: {sorted(types)}")
    kwargs = {k: _coerce(v, types[k], prefix + k) for k, v in data.items()}
    return cls(**kwargs)


def _check(cfg: TrainConfig) -> TrainConfig:
    def need(cond, msg):
        if not cond:
            raise ConfigError(msg)

    game = _game(cfg)
    need(cfg.algo in methods.names(), f"algo must be one of {methods.names()}, got {cfg.algo!r}")
    try:
        game.check_players(cfg.num_players)
    except ValueError as e:
        raise ConfigError(f"num_players: {e}") from None
    need(cfg.episode in ("game", "hand"), f"episode must be 'game' or 'hand', got {cfg.episode!r}")
    need(cfg.snapshot_sampling in ("uniform", "pfsp"),
         f"snapshot_sampling must be 'uniform' or 'pfsp', got {cfg.snapshot_sampling!r}")
    need(cfg.eval.best_by == "mean" or cfg.eval.best_by in cfg.eval.opponents,
         f"eval.best_by must be 'mean' or one of eval.opponents {cfg.eval.opponents}, got {cfg.eval.best_by!r}")
    if cfg.algo == "exit":
        _check_exit(cfg, need)
    for k in ("total_steps", "num_envs", "rollout_steps", "learning_rate", "update_epochs", "minibatch_size",
              "snapshot_every", "pool_size"):
        need(getattr(cfg, k) > 0, f"{k} must be > 0, got {getattr(cfg, k)}")
    for k in ("time_limit_minutes", "ent_coef", "vf_coef", "max_grad_norm", "target_kl", "checkpoint_every_minutes"):
        need(getattr(cfg, k) >= 0, f"{k} must be >= 0, got {getattr(cfg, k)}")
    need(math.isfinite(cfg.reward_scale) and cfg.reward_scale > 0,
         f"reward_scale must be a finite number > 0, got {cfg.reward_scale}")
    need(0 < cfg.gamma <= 1, f"gamma must be in (0, 1], got {cfg.gamma}")
    need(0 <= cfg.gae_lambda <= 1, f"gae_lambda must be in [0, 1], got {cfg.gae_lambda}")
    need(0 < cfg.clip_coef < 1, f"clip_coef must be in (0, 1), got {cfg.clip_coef}")
    need(cfg.lr_schedule in ("linear", "constant"), f"lr_schedule must be 'linear' or 'constant', got {cfg.lr_schedule!r}")
    w = cfg.opponents
    need(all(v >= 0 for v in w.values()) and sum(w.values()) > 0,
         f"opponents weights must be >= 0 and not all 0, got {w}")
    for spec in [k for k, v in w.items() if v > 0 and k not in ("self_play", "snapshots")]:
        _check_agent(cfg, f"opponents: {spec!r}", spec, "self_play, snapshots, ")
    try:
        cfg.net.check(game)  # the one check of a network config
    except ValueError as e:
        raise ConfigError(str(e)) from None
    need(cfg.eval.unit in ("game", "hand"), f"eval.unit must be 'game' or 'hand', got {cfg.eval.unit!r}")
    need(cfg.eval.every_minutes >= 0, f"eval.every_minutes must be >= 0 (0: none by the clock), got {cfg.eval.every_minutes}")
    need(isinstance(cfg.eval.every_steps, int) and cfg.eval.every_steps >= 0,
         f"eval.every_steps must be an integer >= 0 (0: none by steps), got {cfg.eval.every_steps!r}")
    need(cfg.eval.games > 0 and cfg.eval.final_games >= 0, "eval.games must be > 0 and eval.final_games >= 0")
    need(cfg.eval.max_hands >= 0, f"eval.max_hands must be >= 0 (0: the rules' cap), got {cfg.eval.max_hands}")
    need(all(isinstance(o, str) and o for o in cfg.eval.opponents),
         f"eval.opponents must be a list of agent specs, got {cfg.eval.opponents}")
    for spec in cfg.eval.opponents:
        _check_agent(cfg, f"eval.opponents: {spec!r}", spec)
    need(cfg.torch_threads >= 0, f"torch_threads must be >= 0, got {cfg.torch_threads}")
    resolve_precision(cfg.precision, resolve_device(cfg.device))
    need(cfg.workers >= 0, f"workers must be >= 0, got {cfg.workers}")
    if cfg.overlap:
        need(cfg.workers == 0, f"overlap: true plays the rollouts in this process beside the learner; it needs "
                               f"workers: 0, got workers: {cfg.workers}")
        need(cfg.algo == "ppo", f"overlap: true is for algo: ppo, got algo: {cfg.algo}")
    if cfg.workers:
        need(cfg.workers <= cfg.num_envs,
             f"workers ({cfg.workers}) must not exceed num_envs ({cfg.num_envs}): the workers share the lanes")
        need(distributed.ray_available(), f"workers={cfg.workers} needs Ray, which is not installed: "
                                          f"{distributed.INSTALL_HINT} (or use workers=0)")
    # the rule options are checked by the engine's own config, the reward by the game's reward class
    engine_config(cfg)
    try:
        games.load(game.rewards).parse(reward_scheme(cfg))
    except ValueError as e:
        raise ConfigError(f"reward: {e}") from None
    return cfg


def _check_agent(cfg: TrainConfig, where: str, spec: str, also: str = "") -> None:
    """ConfigError in one line unless ``load_agent`` builds ``spec`` for the run's game;
    ``also`` names the other forms the field allows."""
    try:
        load_agent(spec, game=cfg.game)
    except (ValueError, FileNotFoundError, KeyError, RuntimeError) as e:
        msg = e.args[0] if isinstance(e, KeyError) and e.args else e
        raise ConfigError(f"{where}: {msg}; allowed: {also}an agent name {agent_names()}, a name with options "
                          f"(expert:lookahead=4) or a checkpoint path") from None


def _check_exit(cfg: TrainConfig, need) -> None:
    ex = cfg.exit
    need(ex.buffer > 0 and ex.batches > 0, "exit.buffer and exit.batches must be > 0")
    need(ex.depart_weight > 0, f"exit.depart_weight must be > 0, got {ex.depart_weight}")
    need(ex.plays in ("teacher", "network"), f"exit.plays must be 'teacher' or 'network', got {ex.plays!r}")
    need(ex.phase == "all" or ex.phase in PHASES,
         f"exit.phase must be 'all' or one of {sorted(PHASES)}, got {ex.phase!r}")
    if ex.phase != "all":
        try:
            check_phase(ex.phase, cfg.game)
        except ValueError as e:
            raise ConfigError(f"exit.phase={ex.phase}: {e}") from None
    try:
        teacher = load_agent(ex.teacher, game=cfg.game)
    except (ValueError, FileNotFoundError) as e:
        raise ConfigError(f"exit.teacher: {e}") from None
    need(not ex.record_values or hasattr(teacher, "decide"),
         f"exit.record_values needs the action values of a search teacher; exit.teacher is {ex.teacher!r}")


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
    reach nested fields: ``net.hidden=128``, ``opponents.expert=0.5``, ``rules.target=50``;
    a mapping, ``opponents={pretrained: 0.5}``, changes the keys it names and keeps the others)."""
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
        value = _parse_value(text)
        if isinstance(value, dict) and isinstance(node.get(parts[-1]), dict):
            value = {**node[parts[-1]], **value}  # a mapping changes the keys it names, as dotted keys do
        node[parts[-1]] = value
    return _check(_build(TrainConfig, data))


def resolve_precision(precision: str, device) -> str:
    """The precision (:data:`~rummyrl.agents.network.PRECISIONS`) the ``precision`` option
    means on ``device``; :class:`ConfigError` for an unknown one, or ``bf16`` where the
    device would only emulate it."""
    if precision not in (*PRECISIONS, "auto"):
        raise ConfigError(f"precision must be one of {(*PRECISIONS, 'auto')}, got {precision!r}")
    native = bf16_supported(device)
    if precision == "bf16" and not native:
        raise ConfigError(f"precision=bf16: {device} has no native bfloat16 (a CPU needs AVX-512 BF16 or AMX); "
                          f"use precision=fp32, or precision=auto (bf16 only where the device has it)")
    if precision == "auto":
        return "bf16" if native else "fp32"
    return precision


def play_precision(precision: str, device) -> str:
    """The precision the players compute in on ``device`` (the learner's seats and the pool's
    snapshots): the ``precision`` option's where the device has bfloat16 natively, else
    ``fp32`` (a rollout worker's CPU may lack what the learner's device has). Evaluations
    and the agents a run ships always play in float32."""
    return "bf16" if precision in ("bf16", "auto") and bf16_supported(device) else "fp32"


def resolve_device(device: str):
    """The ``torch.device`` of the ``device`` option; :class:`ConfigError` for an unknown
    name, or for ``cuda`` where this torch has no CUDA."""
    if device not in ("auto", "cpu", "cuda") and not re.fullmatch(r"cuda:\d+", device):
        raise ConfigError(f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got {device!r}")
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise ConfigError(f"device={device}: CUDA is not available to this torch ({torch.__version__}"
                              f"{', a CPU-only build' if torch.version.cuda is None else ''}); use device=cpu "
                              f"or device=auto, or install a CUDA build of torch")
        index = int(device.split(":")[1]) if ":" in device else 0
        if index >= torch.cuda.device_count():
            raise ConfigError(f"device={device}: this machine has {torch.cuda.device_count()} CUDA device(s)")
    return torch.device(device)


def _game(cfg: TrainConfig) -> games.Game:
    try:
        return games.get(cfg.game)
    except ValueError as e:
        raise ConfigError(f"game: {e}") from None


def engine_config(cfg: TrainConfig):
    """The engine's rules config of the run: ``rules`` with its players and episode."""
    try:
        return _game(cfg).make_config(cfg.rules, players=cfg.num_players, episode=cfg.episode)
    except (ValueError, TypeError) as e:
        raise ConfigError(f"rules: {e}") from None


def reward_scheme(cfg: TrainConfig) -> str:
    """The reward scheme the environments parse: ``default`` is the deal's points plus the game's result."""
    if cfg.reward != "default":
        return cfg.reward
    return f"{_game(cfg).points_reward}+game"


def upgrade(saved: dict) -> dict:
    """A config saved by an earlier version (a checkpoint's ``train_config``) in today's keys,
    so ``--resume`` continues it: the keys of :data:`RETIRED` are dropped where their
    meaning is today's default, and translated, with a warning, where it is not."""
    d = copy.deepcopy(saved)
    ex = d.get("exit", {})
    ex.pop("temperature", None)
    if ex.pop("target", "choice") == "softmax":
        ex.setdefault("record_values", True)
        print("resume: the saved config trained on soft-max targets (exit.target=softmax), which were "
              "removed; the run goes on with search's choice as its target, its values recorded "
              "(exit.record_values)", file=sys.stderr)
    if ex.pop("rollout", "expert") != "expert":
        print("resume: the saved config had the network play search's rollouts (exit.rollout=network), "
              "which was removed; search plays its own rollout policy", file=sys.stderr)
    if "net" in d:
        try:
            d["net"] = dataclasses.asdict(NetConfig.from_dict(d["net"]))
        except (TypeError, ValueError) as e:
            raise ConfigError(f"the saved net config cannot be read: {e}") from None
    return d


def to_overrides(d: dict, prefix: str = "") -> list[str]:
    """A saved config (``dataclasses.asdict`` of a :class:`TrainConfig`) as ``key=value``
    overrides that :func:`load_config` turns back into the same config."""
    out = []
    for k, v in d.items():
        if isinstance(v, dict) and k not in ("rules", "opponents"):  # an agent spec may hold "." or "="
            out += to_overrides(v, prefix + k + ".")
        else:
            out.append(f"{prefix}{k}={yaml.safe_dump(v, default_flow_style=True).strip().removesuffix('...').strip()}")
    return out
