"""The training config, and loading it from YAML with ``key=value`` overrides.

:class:`TrainConfig` (its sections: :mod:`.sections`) declares every field once, with its type, its range or choices and its
docstring (:mod:`rummyrl.settings` validates them when a config is built); :func:`load_config`
builds one from a file and overrides and raises :class:`ConfigError`, one line naming the key,
its value and what is allowed. What a field's value means for a game (players, rules, rewards,
network features, agent specs, the device) is :func:`check`'s, which asks the game registry,
``load_agent`` and the network's own check (``NetConfig.check``). :func:`to_overrides` turns
a saved config back into overrides (``--resume``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import field
from pathlib import Path
from typing import Literal

from rummyrl import distributed, games
from rummyrl.agents import agent_names, load_agent
from rummyrl.agents.network import PRECISIONS, NetConfig
from rummyrl.agents.split import check_phase
from rummyrl.settings import Field, Float, Int, SettingsError, build, settings

from . import methods
from .device import resolve_device, resolve_precision
from .overrides import read_yaml, with_overrides
from .overrides import to_overrides as settings_to_overrides
from .sections import EvalConfig, ExitConfig, OpponentConfig, OpponentWeights

__all__ = ["ConfigError", "EvalConfig", "ExitConfig", "OpponentConfig", "TrainConfig", "check", "engine_config",
           "load_config", "reward_scheme", "to_overrides"]

#: the error of a config file or override that names an unknown key or holds a bad value
ConfigError = SettingsError


@settings
class TrainConfig:
    """Every field can be set in the YAML file or on the command line (``key=value``)."""

    name: str = "gin_rummy"
    """Run name: logs and checkpoints go to ``runs/<name>/``."""
    algo: str = "ppo"
    """``ppo`` (self-play PPO) or ``exit`` (expert iteration: the network learns the search
    agent's decisions, ``exit`` section)."""
    game: str = "gin"
    """A game of the registry (``rummyrl.games``): ``gin`` or ``rummy``."""
    num_players: Int[Field(ge=1)] = 2
    """Players per game, in the game's range (Gin: 2; Rummy: 2-6)."""
    rules: dict = field(default_factory=dict)
    """Rule options of the game's engine config (``Game.config_cls``: GinConfig, RummyConfig)."""
    episode: Literal["game", "hand"] = "game"
    """Training episodes: ``game`` (to the target) or ``hand`` (one deal: a Gin hand, a Rummy round)."""
    reward: str = "default"
    """Reward scheme of the environments: the game's deal points (``Game.points_reward``:
    ``hand_points`` in Gin, ``round_points`` in Rummy), ``game``, ``game_points``, joined by
    ``+``; ``default`` is the deal's points plus the game's result (``hand_points+game`` /
    ``round_points+game``)."""
    reward_scale: Float[Field(gt=0)] = 1.0
    """Multiplies every scheme's reward (the game's ``points_scale`` and ``game_points_scale``),
    so that a scheme's returns stay in the range the value head learns at: Rummy's
    ``game_points`` over one-round episodes (the winner's points minus the mean of the
    others', what a game to the target adds up) at 4 pays the winner what ``round_points``
    does."""
    total_steps: Float[Field(gt=0)] = 20_000_000
    """Environment steps to train for (all seats' actions count)."""
    time_limit_minutes: Float[Field(ge=0)] = 55.0
    """Stop training after this many minutes even if total_steps is not reached (0: none)."""
    num_envs: Int[Field(gt=0)] = 512
    """Games played in parallel (lanes)."""
    rollout_steps: Int[Field(gt=0)] = 64
    """Batched env steps per rollout (so num_envs * rollout_steps env steps per update)."""
    gamma: Float[Field(gt=0, le=1)] = 0.995
    """Discount per decision of a seat."""
    gae_lambda: Float[Field(ge=0, le=1)] = 0.95
    """GAE lambda."""
    learning_rate: Float[Field(gt=0)] = 3e-4
    """Adam learning rate at the start."""
    lr_schedule: Literal["linear", "constant"] = "linear"
    """``linear`` (to zero over total_steps) or ``constant``."""
    update_epochs: Int[Field(gt=0)] = 2
    """Passes over each rollout."""
    minibatch_size: Int[Field(gt=0)] = 4096
    """Transitions per gradient step."""
    clip_coef: Float[Field(gt=0, lt=1)] = 0.2
    """PPO ratio clip."""
    vf_coef: Float[Field(ge=0)] = 0.5
    """Value loss weight."""
    ent_coef: Float[Field(ge=0)] = 0.01
    """Entropy bonus weight."""
    max_grad_norm: Float[Field(ge=0)] = 0.5
    """Gradient clipping norm."""
    target_kl: Float[Field(ge=0)] = 0.05
    """Stop an update's epochs early when the approximate KL exceeds this (0: never)."""
    net: NetConfig = field(default_factory=NetConfig)
    """Network shape (``rummyrl.agents.network.NetConfig``, which checks it)."""
    opponents: OpponentWeights = field(default_factory=lambda: dataclasses.asdict(OpponentConfig()))
    """Opponent pool weights: a mapping of ``self_play``, ``snapshots`` and agent specs to
    weights, over :class:`OpponentConfig`'s defaults."""
    snapshot_every: Int[Field(gt=0)] = 20
    """Updates between snapshots added to the pool."""
    pool_size: Int[Field(gt=0)] = 10
    """Snapshots kept (the oldest is dropped)."""
    snapshot_sampling: Literal["uniform", "pfsp"] = "uniform"
    """Which snapshot a game against the snapshots draws: ``uniform``, or ``pfsp``
    (prioritised fictitious self-play, as in AlphaStar): each snapshot weighted by
    ``(1 - p) ** 2``, ``p`` the learner's win rate against it so far (``(wins + 1) / (games +
    2)``), so the past selves it still loses to are played most and self-play does not
    forget how to beat them. The counts are kept per lanes (per Ray worker) and in checkpoints."""
    eval: EvalConfig = field(default_factory=EvalConfig)
    """Periodic evaluation."""
    exit: ExitConfig = field(default_factory=ExitConfig)
    """Expert iteration (``algo: exit``)."""
    checkpoint_every_minutes: Float[Field(ge=0)] = 5.0
    """Minutes between checkpoints (``last.pt``)."""
    init: str = ""
    """A checkpoint whose network starts the run instead of a fresh one: train.py's, an
    offline fit's (``scripts/exit_fit.py``) or a shipped network; its game, players and
    ``net`` must be this run's (``--resume`` continues a run instead, optimizer and all)."""
    seed: Int[Field()] = 0
    """Seed of deals, sampling, network init and opponent draws."""
    torch_threads: Int[Field(ge=0)] = 0
    """Threads for torch in the PPO updates (0: torch's default); rollouts use one."""
    device: str = "auto"
    """Where the learner's network lives (its PPO updates, and the rollouts' inference when
    ``workers=0``): ``cpu``, ``cuda`` (or ``cuda:N``), or ``auto`` (``cuda`` when
    ``torch.cuda.is_available()``, else ``cpu``). Ray workers always infer on CPU, and
    checkpoints hold CPU tensors whatever the device, so they load anywhere."""
    precision: Literal[(*PRECISIONS, "auto")] = "fp32"
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
    workers: Int[Field(ge=0)] = 0
    """Rollout workers: 0 plays the self-play lanes in this process; N > 0 starts N Ray
    actors (``pip install -e ".[ray]"``) that share the ``num_envs`` lanes between them
    (``num_envs`` is the total, split as evenly as it goes) and each keep a CPU copy of the
    policy; the learner gathers their rollouts (with ``algo: exit``, their search
    records), updates and broadcasts the new weights (``rummyrl/training/workers.py``)."""
    ray_address: str = ""
    """With ``workers > 0``: the Ray cluster to join (``auto``: the one ``ray start`` set up
    on this machine, or ``HOST:PORT``); empty starts a local Ray for the run (or uses the
    one this process already initialised)."""

    def __post_init__(self):
        """The checks between fields (each field's own type and range are declared)."""
        if sum(self.opponents.values()) <= 0:
            raise ValueError(f"opponents weights must not all be 0, got {self.opponents}")
        if self.overlap and self.workers:
            raise ValueError(f"overlap: true plays the rollouts in this process beside the learner; it needs "
                             f"workers: 0, got workers: {self.workers}")
        if self.overlap and self.algo != "ppo":
            raise ValueError(f"overlap: true is for algo: ppo, got algo: {self.algo}")
        if self.workers > self.num_envs:
            raise ValueError(f"workers ({self.workers}) must not exceed num_envs ({self.num_envs}): the workers "
                             f"share the lanes")


def check(cfg: TrainConfig) -> TrainConfig:
    """``cfg`` against what the game, the agents and this machine offer: the method, the
    players, the rules and the reward, the network's features, every agent spec, the device
    and precision, Ray for workers. :class:`ConfigError` names the first that does not hold."""
    game = _game(cfg)
    if cfg.algo not in methods.names():
        raise ConfigError(f"algo must be one of {methods.names()}, got {cfg.algo!r}")
    try:
        game.check_players(cfg.num_players)
    except ValueError as e:
        raise ConfigError(f"num_players: {e}") from None
    if cfg.algo == "exit":
        _check_exit(cfg)
    for spec in [k for k, v in cfg.opponents.items() if v > 0 and k not in ("self_play", "snapshots")]:
        _check_agent(cfg, f"opponents: {spec!r}", spec, "self_play, snapshots, ")
    try:
        cfg.net.check(game)
    except ValueError as e:
        raise ConfigError(str(e)) from None
    for spec in cfg.eval.opponents:
        _check_agent(cfg, f"eval.opponents: {spec!r}", spec)
    resolve_precision(cfg.precision, resolve_device(cfg.device))
    if cfg.workers and not distributed.ray_available():
        raise ConfigError(f"workers={cfg.workers} needs Ray, which is not installed: {distributed.INSTALL_HINT} "
                          f"(or use workers=0)")
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


def _check_exit(cfg: TrainConfig) -> None:
    ex = cfg.exit
    if ex.phase != "all":
        try:
            check_phase(ex.phase, cfg.game)
        except ValueError as e:
            raise ConfigError(f"exit.phase={ex.phase}: {e}") from None
    try:
        teacher = load_agent(ex.teacher, game=cfg.game)
    except (ValueError, FileNotFoundError) as e:
        raise ConfigError(f"exit.teacher: {e}") from None
    if ex.record_values and not hasattr(teacher, "decide"):
        raise ConfigError(f"exit.record_values needs the action values of a search teacher; exit.teacher is "
                          f"{ex.teacher!r}")


def load_config(path: str | Path | None, overrides: list[str] = ()) -> TrainConfig:
    """A :class:`TrainConfig` from a YAML file plus ``key=value`` overrides (dotted keys
    reach nested fields: ``net.hidden=128``, ``opponents.expert=0.5``, ``rules.target=50``;
    a mapping, ``opponents={pretrained: 0.5}``, changes the keys it names and keeps the
    others), checked (:func:`check`)."""
    data = read_yaml(path) if path is not None else {}
    with_overrides(data, overrides)
    return check(build(TrainConfig, data))


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


def to_overrides(d: dict) -> list[str]:
    """A saved config (``dataclasses.asdict`` of a :class:`TrainConfig`) as ``key=value``
    overrides that :func:`load_config` turns back into the same config (``rules`` and
    ``opponents`` whole: an agent spec may hold ``.`` or ``=``)."""
    return settings_to_overrides(d, whole=("rules", "opponents"))
