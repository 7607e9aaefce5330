"""The training config: its settings classes, and loading from YAML with ``key=value`` overrides.

:class:`TrainConfig` declares every field once, with its type, its range or choices and its
docstring (:mod:`rummyrl.settings` validates them when a config is built); :func:`load_config`
builds one from a file and overrides and raises :class:`ConfigError`, one line naming the key,
its value and what is allowed. What a field's value means for a game (players, rules, rewards,
network features, agent specs, the device) is :func:`check`'s, which asks the game registry,
``load_agent`` and the network's own check (``NetConfig.check``). :func:`to_overrides` turns
a saved config back into overrides (``--resume``).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import field
from pathlib import Path
from typing import Annotated, Literal

import yaml

from rummyrl import distributed, games
from rummyrl.agents import agent_names, load_agent
from rummyrl.agents.network import PRECISIONS, NetConfig
from rummyrl.agents.split import PHASES, check_phase
from rummyrl.settings import Before, Field, Float, Int, SettingsError, build, settings

from . import methods
from .device import resolve_device, resolve_precision

#: the error of a config file or override that names an unknown key or holds a bad value
ConfigError = SettingsError


class _Loader(yaml.SafeLoader):
    """YAML as config files are written: ``2e6`` is a number (YAML 1.1 reads it as a string)."""


_Loader.add_implicit_resolver("tag:yaml.org,2002:float", re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
                              list("-+0123456789"))


def yaml_value(text: str):
    """A config file's text, or an override's value, as YAML reads it (:class:`_Loader`)."""
    return yaml.load(text, Loader=_Loader)


@settings
class OpponentConfig:
    """How often each kind of opponent is drawn for a new game (weights, normalised): the
    named kinds and their defaults. ``opponents`` is a mapping: these keys keep their
    defaults unless given, and any other key is an agent spec that ``load_agent`` builds
    (``pretrained``, ``expert:lookahead=4``, ``search:worlds=16``, a checkpoint path), drawn
    with its weight."""

    self_play: Float[Field(ge=0)] = 0.4
    """The current policy in every other seat (all seats learn)."""
    snapshots: Float[Field(ge=0)] = 0.2
    """A past snapshot of the policy, drawn uniformly from the pool."""
    simple: Float[Field(ge=0)] = 0.2
    """The rule-based ``simple`` baseline."""
    expert: Float[Field(ge=0)] = 0.2
    """The rule-based ``expert`` baseline."""
    random: Float[Field(ge=0)] = 0.0
    """Uniformly random legal play."""


def _over_defaults(value):
    """``opponents`` laid over :class:`OpponentConfig`'s defaults: the kinds it names change."""
    if not isinstance(value, dict):
        raise ValueError("must be a mapping of opponents (self_play, snapshots or an agent spec) to weights")
    for k in value:
        if not isinstance(k, str) or not k.strip():
            raise ValueError(f"each key is self_play, snapshots or an agent spec, got {k!r}")
    return {**dataclasses.asdict(OpponentConfig()), **value}


#: the type of ``TrainConfig.opponents``: a mapping of kinds to weights >= 0, over
#: :class:`OpponentConfig`'s defaults
OpponentWeights = Annotated[dict[str, Float[Field(ge=0)]], Before(_over_defaults)]


@settings(section="eval")
class EvalConfig:
    """Periodic evaluation with evaluate.py's code (greedy policy, duplicate deals)."""

    every_minutes: Float[Field(ge=0)] = 5.0
    """Minutes of training between evaluations (0: none by the clock)."""
    every_steps: Int[Field(ge=0)] = 0
    """Env steps between evaluations (0: none by steps). Evaluations by steps fall at the same
    points of training on any machine, so the checkpoint that becomes ``best.pt`` does too;
    by the clock, a slower machine evaluates (and may pick) other steps. With both 0 there
    is no learning curve and ``best.pt`` is the final network."""
    games: Int[Field(gt=0)] = 400
    """Games per opponent at each periodic evaluation."""
    final_games: Int[Field(ge=0)] = 2000
    """Games per opponent in the evaluation after training."""
    opponents: list[Annotated[str, Field(min_length=1)]] = field(default_factory=lambda: ["simple", "expert"])
    """The agents to evaluate against: any specs ``load_agent`` builds (baselines, names with
    options, ``search``, shipped networks, checkpoint paths)."""
    best_by: str = "mean"
    """What makes a checkpoint ``best.pt``: ``mean`` (its mean win rate over ``opponents``)
    or one opponent's name (its win rate against that one). A run that gains against one
    baseline while losing against another never beats its start by the mean."""
    unit: Literal["game", "hand"] = "game"
    """``game`` (to the target) or ``hand``."""
    max_hands: Int[Field(ge=0)] = 30
    """With ``unit: game``, a game not decided after this many hands (Gin; rounds in
    Rummy) ends as a draw, a loss for both sides' win rates (0: the rules' own cap, 100).
    Weak policies, whose hands run to the stock's end, would otherwise take minutes per
    evaluation; games between the rule agents end well before the cap."""

    def __post_init__(self):
        if self.best_by != "mean" and self.best_by not in self.opponents:
            raise ValueError(f"eval.best_by must be 'mean' or one of eval.opponents {self.opponents}, "
                             f"got {self.best_by!r}")


@settings(section="exit")
class ExitConfig:
    """Expert iteration (``algo: exit``, :mod:`rummyrl.training.exit`)."""

    teacher: str = "search"
    """The agent whose decisions the network learns: an agent spec, e.g. ``search:worlds=32``
    (search's own options choose its rollout policy: ``search:rollout=runs/NAME/best.pt``)."""
    buffer: Int[Field(gt=0)] = 200_000
    """Finished decisions kept for training (the oldest dropped)."""
    batches: Int[Field(gt=0)] = 16
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
    depart_weight: Float[Field(gt=0)] = 1.0
    """Weight, in the policy loss, of the decisions where search chose other than the
    network did when the data were made (the ones with something to teach); the others
    weigh 1."""
    phase: Literal[("all", *PHASES)] = "all"
    """Where the teacher plays the learner's seats: ``all`` (every decision), ``draw`` (the
    draw decisions only), ``knock`` (Gin: the positions that allow ending the hand only) or
    ``stock`` (Rummy: the draws at which the stock's next card is known, agents/split.py);
    the network, greedy, plays the rest, and only the teacher's decisions are recorded.
    Distil search where its edge lies (``docs/research/scripts/search_where.py`` measures
    where): in Gin search at the knock alone won as many games against the expert as search
    everywhere on the same deals, for the cost of searching the knock decisions alone
    (docs/research/expert_iteration_gin.md)."""
    plays: Literal["teacher", "network"] = "teacher"
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
    data: dict = {}
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise ConfigError(f"config file {str(p)!r} does not exist")
        try:
            data = yaml_value(p.read_text()) or {}
        except yaml.YAMLError as e:
            raise ConfigError(f"config file {str(p)!r} is not valid YAML: {e}") from None
        if not isinstance(data, dict):
            raise ConfigError(f"config file {str(p)!r} must hold a mapping of keys, not {type(data).__name__}")
    for item in overrides:
        key, eq, text = item.partition("=")
        if not eq:
            raise ConfigError(f"override {item!r} must be key=value")
        *parents, last = key.strip().split(".")
        node = data
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"override {item!r}: {part!r} is not a section")
        try:
            value = yaml_value(text)
        except yaml.YAMLError as e:
            raise ConfigError(f"override {item!r}: cannot parse the value: {e}") from None
        if isinstance(value, dict) and isinstance(node.get(last), dict):
            value = {**node[last], **value}  # a mapping changes the keys it names, as dotted keys do
        node[last] = value
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
