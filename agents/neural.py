"""Trained agents: the actor-critic network, its inputs, and checkpoints.

The network (:class:`PolicyNet`) maps a game's flat observation to masked action logits
and a value. Published Gin Rummy agents that beat rule-based players keep the meld
arithmetic as code (PPO on raw card planes alone stays far below them), so here the
rule-based expert's preference over actions is both an input and a *prior* on the logits,

    logits = prior_scale * expert_preference + head(trunk(observation, preference))

with the head initialised to zero, so an untrained network already plays like a
softened expert and training learns corrections.

With ``card_head`` (:class:`CardHead`) a card action's logit also gets a score of its
card, computed by one small convolution over the 4 x 13 card grid for all 52 cards: one
lesson about a card ("take a discard that joins two of my cards") then holds for every
card, where one output row per action learns each card apart.

A **plain network** has no expert in it: ``features="engine"`` or ``"none"`` (with
``prior_scale = 0``) replaces the expert's preference, as input, by per-action facts the
engine computes (:func:`action_features`: the deadwood left after each discard, and
after taking the face-up card; also added to the logits with a learned weight per kind of
action, zero at the start) or by nothing. Illegal actions get a large negative logit (never -inf: 0 * log 0 would make
the entropy NaN), so they have probability zero and no entropy.

Checkpoints are written by ``train.py`` with :func:`save_checkpoint` and read back with
:func:`load_checkpoint`; :func:`load_agent_from_checkpoint` turns one into an
:class:`~rummyrl.agents.base.Agent` for evaluate.py, the environments' opponents and play.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from .base import Agent, check_game

CHECKPOINT_FORMAT = "rummyrl-checkpoint"
CHECKPOINT_VERSION = 1
ILLEGAL_LOGIT = -1e9


# --------------------------------------------------------------------------------------
# What the network needs to know about a game
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameIO:
    game: str
    obs_dim: int
    num_actions: int
    card_planes: int  # the observation starts with this many 52-card planes
    num_players: int


def game_io(game: str, num_players: int | None = None) -> GameIO:
    check_game(game)
    if game == "gin":
        from rummyrl import gin

        return GameIO("gin", gin.OBS_DIM, gin.NUM_ACTIONS, len(gin.OBS_PLANES), 2)
    from rummyrl import rummy

    p = num_players or rummy.RummyConfig().num_players
    planes = rummy.OBS_LAYOUT["hand_sizes"].start // 52  # the card planes come first
    return GameIO("rummy", rummy.obs_dim(p), rummy.NUM_ACTIONS, planes, p)


#: the prior of an illegal action (finite, so no op ever meets -inf or NaN)
PRIOR_ILLEGAL = -60.0


def expert_prior(game: str, observations: np.ndarray, masks: np.ndarray, num_players: int | None = None,
                 params=None) -> np.ndarray:
    """The rule-based expert's preference over actions, ``(B, A)`` float32, in deadwood
    points (Gin) or penalty points (Rummy); illegal actions read :data:`PRIOR_ILLEGAL`.
    ``params``: the game's expert parameters, :class:`~rummyrl.agents.gin_expert.ExpertParams`
    or :class:`~rummyrl.agents.rummy_expert.RummyExpertParams` (default: the ``expert``
    baseline's)."""
    if game == "gin":
        from .gin_expert import expert_preferences

        pref = expert_preferences(observations, masks, params)
    else:
        from .rummy_expert import expert_preferences

        pref = expert_preferences(observations, masks, params)  # the observation carries the seat count
    return np.maximum(pref, PRIOR_ILLEGAL, out=pref)


#: what a network is given per action beside the observation (NetConfig.features)
FEATURES = ("expert", "expert_plan", "engine", "none")
#: the features with the expert's preference in them (the prior of ``prior_scale``)
EXPERT_FEATURES = ("expert", "expert_plan")


def planned_expert_prior(game: str, observations: np.ndarray, masks: np.ndarray,
                         num_players: int | None = None, params=None) -> np.ndarray:
    """The expert's preference (:func:`expert_prior`) with Rummy's known-stock draws scored by
    the race along the known stock instead (:mod:`rummyrl.rummy_outlook`): where drawing and
    taking the top discard end the race differently (the player out first, nobody, an
    opponent) or at different times, drawing reads 0 and taking
    :func:`~rummyrl.rummy_outlook.plan_preference` (+-5 to +-12); elsewhere the expert's
    preference stands. ``params``: the expert's :class:`RummyExpertParams` (default: the
    baseline's; the ``expert_plan`` features always use the default)."""
    if game != "rummy":
        raise ValueError(f"features='expert_plan' is built for rummy only, not {game!r}; use 'expert'")
    from rummyrl import rummy
    from rummyrl.rummy_outlook import known_stock_outlook, plan_preference

    from .split import stock_rows

    obs = np.asarray(observations)
    pref = expert_prior(game, obs, masks, num_players, params)
    rows = np.flatnonzero(stock_rows(game, obs, masks))
    if rows.size:
        players = num_players or int(round(obs[rows[0], rummy.OBS_LAYOUT["seat_present"]].sum()))
        plan = plan_preference(known_stock_outlook(obs, rows, players))
        decided = plan != 0
        pref[rows[decided], rummy.DRAW_STOCK] = 0.0
        pref[rows[decided], rummy.TAKE_DISCARD] = plan[decided]
    return pref


def engine_features(game: str, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Per-action facts of the meld arithmetic, no player's judgement in them, ``(B, A)``
    float32, higher is better, illegal actions read :data:`PRIOR_ILLEGAL`. Gin Rummy: for a
    discard or knock of card ``c``, minus a quarter of the deadwood left without ``c``; for
    taking the face-up card, minus a quarter of the lowest deadwood after taking it and
    discarding another card; for drawing from the stock and passing, minus a quarter of the
    hand's deadwood as it is; 0 for big gin. (A quarter keeps every deadwood, up to 98,
    inside the range the network's input is clipped to.)"""
    if game != "gin":
        raise ValueError(f"features='engine' is built for gin only, not {game!r}; use 'expert' or 'none'")
    from rummyrl import gin, melds

    obs = np.asarray(observations)
    hands = obs[:, gin.OBS_LAYOUT["hand"]] > 0.5
    out = np.zeros(masks.shape, np.float32)
    after = -0.25 * melds.deadwood_after_discard(hands).astype(np.float32)
    out[:, gin.DISCARD:gin.DISCARD + 52] = after
    out[:, gin.KNOCK:gin.KNOCK + 52] = after
    drawing = masks[:, gin.DRAW_STOCK] | masks[:, gin.PASS]
    if drawing.any():  # a 10-card hand: its deadwood as it stands
        now = -0.25 * melds.deadwood(hands[drawing]).astype(np.float32)
        out[drawing, gin.DRAW_STOCK] = now
        out[drawing, gin.PASS] = now
    top_plane = obs[:, gin.OBS_LAYOUT["top_discard"]]
    has_top = top_plane.max(1) > 0.5
    if has_top.any():
        r = np.flatnonzero(has_top)
        top = top_plane[r].argmax(1)
        with_top = hands[r].copy()
        with_top[np.arange(r.size), top] = True
        best = melds.deadwood_after_discard(with_top).astype(np.float32)
        best[np.arange(r.size), top] = np.inf  # the card just taken cannot be thrown (C-4)
        out[r, gin.TAKE_DISCARD] = -0.25 * best.min(1)
    return np.where(masks, np.maximum(out, PRIOR_ILLEGAL), PRIOR_ILLEGAL).astype(np.float32)


def action_features(kind: str, game: str, observations: np.ndarray, masks: np.ndarray,
                    num_players: int | None = None, expert_params: str = "") -> np.ndarray:
    """What a network with ``NetConfig.features == kind`` is given per action, ``(B, A)``:
    the expert's preference (:func:`expert_prior`), the same with Rummy's known-stock draws
    planned (:func:`planned_expert_prior`), the engine's facts
    (:func:`engine_features`) or zeros. ``expert_params``: ``NetConfig.expert_params``, the
    expert's parameters in the first two (``""``: the ``expert`` baseline's)."""
    params = _expert_params(game, expert_params)
    if kind == "expert":
        return expert_prior(game, observations, masks, num_players, params)
    if kind == "expert_plan":
        return planned_expert_prior(game, observations, masks, num_players, params)
    if params is not None:
        raise ValueError(f"net.expert_params is for the expert's features {list(EXPERT_FEATURES)}, "
                         f"not {kind!r}")
    if kind == "engine":
        return engine_features(game, observations, masks)
    if kind == "none":
        return np.where(masks, 0.0, PRIOR_ILLEGAL).astype(np.float32)
    raise ValueError(f"unknown network features {kind!r}; choose one of {list(FEATURES)}")


@functools.lru_cache(maxsize=64)
def _expert_params(game: str, text: str):
    """``NetConfig.expert_params`` read: ``None`` for ``""`` (the baseline's parameters),
    else the game's expert parameters (:func:`rummyrl.agents.expert_params`); read once per
    text, not at every batch of a rollout."""
    if not text:
        return None
    from . import expert_params

    return expert_params(game, text)


def check_expert_params(game: str, features: str, text: str) -> None:
    """Raise ValueError unless ``NetConfig.expert_params`` ``text`` suits ``game`` and
    ``features`` (set only with the expert's features) and parses."""
    if text and features not in EXPERT_FEATURES:
        raise ValueError(f"net.expert_params is for the expert's features {list(EXPERT_FEATURES)}, "
                         f"not {features!r}")
    _expert_params(game, text)


# --------------------------------------------------------------------------------------
# The network
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class NetConfig:
    """Shape of the actor-critic network."""

    hidden: int = 256
    """Width of the trunk's hidden layers."""
    layers: int = 2
    """Hidden layers in the trunk."""
    card_encoder: bool = False
    """Add a card-set encoder: a shared MLP over each card's column of the card planes plus
    a learned card embedding, mean-pooled (a DeepSets summary of the card layout)."""
    card_dim: int = 32
    """Width of the card-set encoder."""
    card_head: bool = False
    """Score each card action by its card (:class:`CardHead`): a small convolution over the
    4 x 13 grid of the card planes (runs along a suit, sets across the suits), with the
    trunk's summary of the game added at every card, gives each card a feature vector, and
    discarding, knocking with, laying off or taking a card adds a learned linear score of
    its card's vector to that action's logit (a meld: the mean over its cards). One weight
    vector per kind of action, shared by the 52 cards, so a lesson about one card holds for
    all; zero at the start, like the head."""
    card_channels: int = 64
    """Width of the card head's convolution."""
    prior_scale: float = 1.0
    """Weight of the expert's preference added to the logits (0 for a plain network)."""
    features: str = "expert"
    """What the network gets per action beside the observation: ``expert`` (the expert's
    preference, also the prior of ``prior_scale``), ``expert_plan`` (Rummy: the same, with
    draws at a known stock scored by a race along it, :func:`planned_expert_prior`),
    ``engine`` (the deadwood after each discard and after taking the face-up card; Gin) or
    ``none``. Only the first two put the expert in the network."""
    expert_params: str = ""
    """With the expert's features: the expert's parameters in them, as in the agent names
    ``expert:lookahead=4,w_danger=3`` (Gin, :func:`~rummyrl.agents.gin_expert.parse_params`)
    and ``planner:swap_margin=24`` (Rummy, :func:`~rummyrl.agents.rummy_expert.parse_params`);
    ``""`` keeps the ``expert`` baseline's."""

    @property
    def uses_expert(self) -> bool:
        """The expert's preference is in the features (and may be the prior)."""
        return self.features in EXPERT_FEATURES

    @property
    def prior_is_expert(self) -> bool:
        """The features are exactly the ``expert`` baseline's preference (its argmax is the
        expert's move)."""
        return self.features == "expert" and not self.expert_params


class PolicyNet(nn.Module):
    def __init__(self, io: GameIO, cfg: NetConfig):
        super().__init__()
        if cfg.features not in FEATURES:
            raise ValueError(f"net.features must be one of {list(FEATURES)}, got {cfg.features!r}")
        if not cfg.uses_expert and cfg.prior_scale:
            raise ValueError(f"net.prior_scale must be 0 when net.features is {cfg.features!r} "
                             f"(the prior is the expert's preference), got {cfg.prior_scale}")
        if cfg.features == "engine" and io.game != "gin":
            raise ValueError(f"net.features='engine' is built for gin only, not {io.game!r}")
        if cfg.features == "expert_plan" and io.game != "rummy":
            raise ValueError(f"net.features='expert_plan' is built for rummy only, not {io.game!r}")
        check_expert_params(io.game, cfg.features, cfg.expert_params)  # here, not at the first move
        self.io, self.cfg = io, cfg
        in_dim = io.obs_dim + io.num_actions
        if cfg.card_encoder:
            self.card_emb = nn.Parameter(torch.randn(52, cfg.card_dim) * 0.1)
            self.card_mlp = nn.Sequential(nn.Linear(io.card_planes + cfg.card_dim, cfg.card_dim), nn.ReLU(),
                                          nn.Linear(cfg.card_dim, cfg.card_dim), nn.ReLU())
            in_dim += cfg.card_dim
        layers, d = [], in_dim
        for _ in range(cfg.layers):
            layers += [nn.Linear(d, cfg.hidden), nn.ReLU()]
            d = cfg.hidden
        self.trunk = nn.Sequential(*layers)
        self.policy = nn.Linear(d, io.num_actions)
        nn.init.zeros_(self.policy.weight)
        nn.init.zeros_(self.policy.bias)
        if cfg.features == "engine":
            # a learned weight per kind of action (draw, discard, knock) on its engine feature,
            # straight into the logit: from 0 (the untrained network is uniform), shared by the
            # 52 cards so that one lesson ("keep the deadwood low") is learned once
            from rummyrl import gin

            group = torch.zeros(io.num_actions, dtype=torch.long)
            group[gin.DISCARD:gin.KNOCK] = 1
            group[gin.KNOCK:gin.BIG_GIN] = 2
            self.register_buffer("feature_group", group, persistent=False)
            self.feature_skip = nn.Parameter(torch.zeros(3))
        self.cards = CardHead(io, cfg.card_channels, d) if cfg.card_head else None
        self.value = nn.Linear(d, 1)
        nn.init.orthogonal_(self.value.weight, 1.0)
        nn.init.zeros_(self.value.bias)

    def forward(self, obs: torch.Tensor, prior: torch.Tensor, mask: torch.Tensor):
        """-> (masked logits (B, A), value (B,)); ``prior`` is :func:`action_features` of
        the network's ``features``."""
        # the per-action input, bounded: illegal actions read -3, the rest -3..2
        parts = [obs, prior.clamp(-30.0, 20.0) * 0.1]
        if self.cfg.card_encoder:
            B = obs.shape[0]
            planes = obs[:, : self.io.card_planes * 52].reshape(B, self.io.card_planes, 52).transpose(1, 2)
            cards = torch.cat([planes, self.card_emb.expand(B, -1, -1)], dim=2)
            parts.append(self.card_mlp(cards).mean(1))
        h = self.trunk(torch.cat(parts, dim=1))
        logits = self.policy(h)
        if self.cards is not None:
            logits = logits + self.cards(obs, prior, mask, h)
        if self.cfg.prior_scale:
            logits = logits + self.cfg.prior_scale * prior
        if self.cfg.features == "engine":
            logits = logits + self.feature_skip[self.feature_group] * prior.clamp(-30.0, 20.0)
        logits = logits.masked_fill(~mask, ILLEGAL_LOGIT)
        return logits, self.value(h).squeeze(1)


def card_actions(game: str) -> tuple[np.ndarray, list[slice], int, slice]:
    """How a game's actions name cards, for :class:`CardHead`: ``(member, blocks, take,
    top)`` with ``member`` ``(52, K, A)`` float32 (action ``a`` of kind ``k`` scores
    ``member[:, k, a]`` times its cards' scores: one card for a discard, a knock or a
    lay-off, the mean of its cards for a meld), ``blocks`` the action blocks of one action
    per card (their features and legality are card-grid inputs), ``take`` the action that
    takes the top discard (its card is the observation's ``top_discard`` plane) and
    ``top`` that plane's slice. The last kind is the take."""
    if game == "gin":
        from rummyrl import gin as g

        blocks = [slice(g.DISCARD, g.DISCARD + 52), slice(g.KNOCK, g.KNOCK + 52)]
        member = np.zeros((52, len(blocks) + 1, g.NUM_ACTIONS), np.float32)
        for k, b in enumerate(blocks):
            member[np.arange(52), k, np.arange(b.start, b.stop)] = 1.0
        return member, blocks, g.TAKE_DISCARD, g.OBS_LAYOUT["top_discard"]
    from rummyrl import melds
    from rummyrl import rummy as r

    blocks = [slice(r.DISCARD, r.DISCARD + 52)]
    member = np.zeros((52, 4, r.NUM_ACTIONS), np.float32)
    member[np.arange(52), 0, np.arange(r.DISCARD, r.DISCARD + 52)] = 1.0
    for m, cards in enumerate(melds.MELDS):
        member[list(cards), 1, r.MELD + m] = 1.0 / len(cards)
    lay = np.arange(r.LAYOFF, r.NUM_ACTIONS)
    member[(lay - r.LAYOFF) % 52, 2, lay] = 1.0
    return member, blocks, r.TAKE_DISCARD, r.OBS_LAYOUT["top_discard"]


class CardHead(nn.Module):
    """Per-card scores of the card actions (``NetConfig.card_head``).

    The card planes of the observation, with the network's per-action input and legality
    of the one-card-per-action blocks (discards; Gin also knocks) as more planes, are laid
    on the 4 x 13 grid of suits by ranks. Each of two layers adds a convolution along the
    suit (five ranks wide: runs, which do not wrap, C-1) and one across the four suits of a
    rank (sets); the first also adds a learned vector per card (the convolutions alone would
    not know a card's rank, and with it its value) and a projection of the trunk's summary
    ``h`` of the game. A linear score per kind of action of each card's vector is the correction
    to the logits of the actions on that card (:func:`card_actions`)."""

    def __init__(self, io: GameIO, channels: int, context: int):
        super().__init__()
        member, blocks, take, top = card_actions(io.game)
        self.blocks, self.take, self.top, self.planes = blocks, take, top, io.card_planes
        kinds = member.shape[1]
        self.register_buffer("member", torch.from_numpy(member.reshape(52 * kinds, -1)), persistent=False)
        cin = io.card_planes + 2 * len(blocks)
        self.run1 = nn.Conv2d(cin, channels, (1, 5), padding=(0, 2))
        self.set1 = nn.Conv2d(cin, channels, (4, 1))
        self.where = nn.Parameter(torch.zeros(1, channels, 4, 13))  # which card: its rank, suit, value
        self.context = nn.Linear(context, channels)
        self.run2 = nn.Conv2d(channels, channels, (1, 5), padding=(0, 2))
        self.set2 = nn.Conv2d(channels, channels, (4, 1))
        self.score = nn.Linear(channels, kinds, bias=False)
        nn.init.zeros_(self.score.weight)

    def forward(self, obs, prior, mask, h):
        B = obs.shape[0]
        grid = [obs[:, : self.planes * 52].reshape(B, self.planes, 52)]
        for b in self.blocks:
            grid += [prior[:, b].clamp(-30.0, 20.0)[:, None] * 0.1, mask[:, b].float()[:, None]]
        x = torch.cat(grid, 1).reshape(B, -1, 4, 13)
        x = torch.relu(self.run1(x) + self.set1(x) + self.where + self.context(h)[:, :, None, None])
        x = torch.relu(self.run2(x) + self.set2(x))
        s = self.score(x.reshape(B, x.shape[1], 52).transpose(1, 2))  # (B, 52, kinds)
        out = s.reshape(B, -1) @ self.member
        take = (obs[:, self.top] * s[:, :, -1]).sum(1)
        return out.index_add(1, torch.tensor([self.take], device=obs.device), take[:, None])


def sample_actions(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per row of ``(B, A)`` probabilities (inverse CDF; much faster on CPU than
    torch.multinomial for small batches)."""
    cdf = np.cumsum(probs, axis=1)
    u = rng.random(probs.shape[0]) * cdf[:, -1]
    return np.minimum((cdf < u[:, None]).sum(1), probs.shape[1] - 1)


def masked_entropy(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Entropy over the legal actions only (illegal ones carry no probability)."""
    logp = torch.log_softmax(logits, dim=1)
    p = logp.exp()
    return -(torch.where(mask, p * logp, torch.zeros_like(p))).sum(1)


# --------------------------------------------------------------------------------------
# The agent
# --------------------------------------------------------------------------------------
class NeuralAgent(Agent):
    """A :class:`PolicyNet` as an agent: the argmax over legal actions (or a sample)."""

    def __init__(self, net: PolicyNet, name: str = "neural", greedy: bool = True, seed: int | None = None):
        self.net = net.eval()
        self.game = net.io.game
        self.name = name
        self.greedy = greedy
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        obs = np.ascontiguousarray(observations, dtype=np.float32)
        mask = np.ascontiguousarray(action_masks, dtype=bool)
        return self.act_with_prior(obs, mask, self.features(obs, mask))

    def features(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The network's per-action input (:func:`action_features`) for these rows."""
        return action_features(self.net.cfg.features, self.game, obs, mask, self.net.io.num_players,
                               self.net.cfg.expert_params)

    @torch.no_grad()
    def logits(self, obs: np.ndarray, mask: np.ndarray, prior: np.ndarray | None = None) -> np.ndarray:
        """``(B, A)`` masked logits of the network (``prior``: its features, if computed)."""
        obs = np.ascontiguousarray(obs, dtype=np.float32)
        mask = np.ascontiguousarray(mask, dtype=bool)
        prior = self.features(obs, mask) if prior is None else prior
        logits, _ = self.net(torch.from_numpy(obs), torch.from_numpy(np.ascontiguousarray(prior, np.float32)),
                             torch.from_numpy(mask))
        return logits.numpy()

    def preferences(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The network's logits: how search ranks its candidate actions with this policy."""
        return self.logits(observations, action_masks).astype(np.float64)

    @torch.no_grad()
    def act_with_prior(self, obs: np.ndarray, mask: np.ndarray, prior: np.ndarray) -> np.ndarray:
        """:meth:`act` with the network's features (:meth:`features`) already computed."""
        logits = torch.from_numpy(self.logits(obs, mask, prior))
        if self.greedy:
            return logits.argmax(1).numpy()
        return sample_actions(torch.softmax(logits, 1).numpy(), self.rng)


# --------------------------------------------------------------------------------------
# Checkpoints
# --------------------------------------------------------------------------------------
def save_checkpoint(path: str | Path, payload: dict) -> None:
    """Write atomically: a crash mid-write never replaces a good checkpoint with a bad one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save({"format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION, **payload}, tmp)
    os.replace(tmp, path)


def load_checkpoint(path: str | Path, game: str | None = None) -> dict:
    """Read a checkpoint, with a clear error for a missing, unreadable or foreign file."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"checkpoint {str(path)!r} does not exist")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - any unpickling failure means a bad file
        raise ValueError(f"checkpoint {str(path)!r} is unreadable or corrupt ({type(e).__name__}: {e})") from None
    if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{str(path)!r} is not a rummyrl checkpoint")
    if data.get("version") != CHECKPOINT_VERSION:
        raise ValueError(f"checkpoint {str(path)!r} has version {data.get('version')}, this code reads {CHECKPOINT_VERSION}")
    if game is not None and data.get("game") != game:
        raise ValueError(f"checkpoint {str(path)!r} was trained for {data.get('game')!r}, not {game!r}")
    return data


def build_net(data: dict) -> PolicyNet:
    """The network of a checkpoint, weights loaded."""
    try:
        net_cfg = NetConfig(**data["net_config"])
        io = game_io(data["game"], data.get("num_players"))
        net = PolicyNet(io, net_cfg)
        net.load_state_dict(data["model"])
    except (KeyError, TypeError, RuntimeError, ValueError) as e:
        raise ValueError(f"checkpoint does not hold a usable network ({type(e).__name__}: {e})") from None
    return net


def load_agent_from_checkpoint(path: str | Path, game: str, seed: int | None = None) -> NeuralAgent:
    data = load_checkpoint(path, game)
    return NeuralAgent(build_net(data), name=Path(path).stem, seed=seed)


#: the shipped networks: ``pretrained/<game>.pt`` beside this module (README, "Pretrained agents")
PRETRAINED_DIR = Path(__file__).resolve().parent / "pretrained"


def pretrained_path(game: str) -> Path:
    check_game(game)
    return PRETRAINED_DIR / f"{game}.pt"


def load_pretrained(game: str = "gin", seed: int | None = None, num_players: int | None = None) -> NeuralAgent:
    """The shipped network of ``game`` as a greedy agent (the name ``pretrained``)."""
    path = pretrained_path(game)
    if not path.is_file():
        raise FileNotFoundError(f"no pretrained {game} network is installed (expected {path})")
    data = load_checkpoint(path, game)
    if num_players is not None and data.get("num_players") != num_players:
        raise ValueError(f"the pretrained {game} network plays {data.get('num_players')} players, not {num_players}")
    return NeuralAgent(build_net(data), name="pretrained", seed=seed)


def save_weights(dst: str | Path, game: str, num_players: int, net_config: dict, model: dict,
                 train_config: dict | None = None, about: dict | None = None) -> Path:
    """Write a network alone (no optimizer, games or snapshots), with the config that
    trained it and ``about`` (where it came from, what it measured): a small file that
    loads like any checkpoint."""
    save_checkpoint(dst, {"game": game, "num_players": num_players, "net_config": net_config,
                          "model": {k: v.detach().cpu() for k, v in model.items()},
                          "train_config": dict(train_config or {}), "about": dict(about or {})})
    return Path(dst)


def export_weights(src: str | Path, dst: str | Path, about: dict | None = None) -> Path:
    """The network of checkpoint ``src`` alone, written to ``dst`` (:func:`save_weights`)."""
    data = load_checkpoint(src)
    return save_weights(dst, data["game"], data["num_players"], data["net_config"], data["model"],
                        data.get("train_config"), about)


def net_config_dict(cfg: NetConfig) -> dict:
    return dataclasses.asdict(cfg)
