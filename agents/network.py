"""The actor-critic network: :class:`NetConfig`, :class:`PolicyNet` and its card head.

The network maps a game's flat observation, with its per-action features
(:mod:`rummyrl.agents.features`), to masked action logits and a value::

    logits = prior_scale * features + head(trunk(observation, features))

With the expert's features and ``prior_scale > 0`` the head starts at zero, so an
untrained network plays like a softened expert and training learns corrections; a
*plain* network (``features="engine"`` or ``"none"``, ``prior_scale = 0``) has no expert
in it. Illegal actions get a large negative logit (never -inf: 0 * log 0 would make the
entropy NaN), so they have probability zero and no entropy.

With ``card_head`` (:class:`CardHead`) a card action's logit also gets a score of its
card, computed by one small convolution over the 4 x 13 card grid for all 52 cards: one
lesson about a card ("take a discard that joins two of my cards") then holds for every
card, where one output row per action learns each card apart. :class:`CardReadout`
(``card_readout``) is its light form: one layer over a few planes, for the discards and the
take. With ``fact_gate`` the engine features' weights also depend on the position.
"""

from __future__ import annotations

import contextlib
from typing import Literal

import numpy as np
import torch
from torch import nn

from rummyrl import games, melds
from rummyrl.settings import Field, Float, Int, build, settings

from .features import EXPERT_FEATURES, FEATURES, check_features, feature_width

ILLEGAL_LOGIT = -1e9

#: the precisions a network's trunk can compute in (:meth:`PolicyNet.set_precision`)
PRECISIONS = ("fp32", "bf16")

#: in bf16 and without gradients (playing), the trunk's rows are padded to a multiple of this
PLAY_ROWS = 64
#: :class:`NetStack` pads each network's rows to a multiple of this
STACK_ROWS = 16


def bf16_supported(device: torch.device | str = "cpu") -> bool:
    """Whether ``device`` computes bfloat16 matrix products natively (a CUDA GPU that says
    so, or a CPU with AVX-512 BF16 or AMX, through oneDNN); elsewhere bf16 is emulated, which
    gains nothing over float32."""
    device = torch.device(device)
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported()
    try:
        return bool(torch.backends.mkldnn.is_available() and torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):  # an older or a stripped-down build: no way to tell, so no
        return False


@settings(frozen=True, section="net")
class NetConfig:
    """Shape of the actor-critic network. Its fields are checked when it is built, each by
    its declared type and range; what a game offers (its feature sets, its expert's
    parameters) by :meth:`check`."""

    hidden: Int[Field(gt=0)] = 256
    """Width of the trunk's hidden layers."""
    layers: Int[Field(ge=1)] = 2
    """Hidden layers in the trunk."""
    card_head: bool = False
    """Score each card action by its card (:class:`CardHead`): a small convolution over the
    4 x 13 grid of the card planes (runs along a suit, sets across the suits), with the
    trunk's summary of the game added at every card, gives each card a feature vector, and
    discarding, knocking with, laying off or taking a card adds a learned linear score of
    its card's vector to that action's logit (a meld: the mean over its cards). One weight
    vector per kind of action, shared by the 52 cards, so a lesson about one card holds for
    all; zero at the start, like the head."""
    card_channels: Int[Field(gt=0)] = 64
    """Width of the card head's convolution, and of the card readout's."""
    card_readout: bool = False
    """A light per-card score of the one-card actions (discards; Gin also knocks) and the take
    (:class:`CardReadout`): one convolution along the suits and across them over a few card
    planes (the game's ``readout_planes``: the hand, the face-up card, the unseen cards and
    what the next player and the table could use), with the trunk's summary of the game added
    at every card. A card's worth to keep or throw depends on its neighbours and on who could
    use it, which per-action counts fold away; at a few planes and ``card_channels`` 16 it
    costs a fraction of the card head."""
    prior_scale: Float[Field()] = 1.0
    """Weight of the expert's preference added to the logits (0 for a plain network)."""
    features: Literal[FEATURES] = "expert"
    """What the network gets per action beside the observation: ``expert`` (the expert's
    preference, also the prior of ``prior_scale``), ``expert_plan`` (Rummy: the same, with
    draws at a known stock scored by a race along it, the ``planner`` baseline's),
    ``engine`` (facts of the meld arithmetic, :mod:`rummyrl.engine_features`: the deadwood
    after each discard and after taking the face-up card; in Rummy also the loose cards and
    outs of the hand each draw or discard leaves) or ``none``. Only the first two put the
    expert in the network."""
    expert_params: str = ""
    """With the expert's features: the expert's parameters in them, as in the agent names
    ``expert:lookahead=4,w_danger=3`` (Gin, :func:`~rummyrl.agents.gin_expert.parse_params`)
    and ``planner:swap_margin=24`` (Rummy, :func:`~rummyrl.agents.rummy_expert.parse_params`);
    ``""`` keeps the ``expert`` baseline's."""
    trunk_features: bool = True
    """Whether the trunk reads the per-action features beside the observation. ``false``:
    it reads the observation alone, and the features reach the logits only through
    ``prior_scale`` (and the card head, or the engine features' weights). In Rummy the
    features (1,267 columns, one per action; 1,375 with the engine's) are most of the trunk's
    input and of its cost, and most of them are an illegal action's constant."""
    fact_gate: bool = False
    """With ``features: engine``: each kind of fact's weight also depends on the position. A
    linear map of the trunk's output, one number per kind of fact and zero at the start, is
    added to the kind's learned weight, so that the network can weigh outs against points
    differently as the stock runs down or another player nears going out, where one weight
    per kind holds in every position."""

    def __post_init__(self):
        """The checks between fields (each field's own type and range are declared)."""
        if not self.trunk_features and self.features != "none" and not (
                self.prior_scale or self.card_head or self.features == "engine"):
            raise ValueError(f"net.trunk_features is false and nothing else reads the {self.features!r} "
                             f"features (net.prior_scale is 0, no card head): set one, or features: none")
        if self.card_readout and self.card_head:
            raise ValueError("net.card_readout and net.card_head both score the card actions: choose one")
        if self.fact_gate and self.features != "engine":
            raise ValueError(f"net.fact_gate weighs the engine's facts: it needs net.features: engine, "
                             f"got {self.features!r}")
        if not self.uses_expert and self.prior_scale:
            raise ValueError(f"net.prior_scale must be 0 when net.features is {self.features!r} "
                             f"(the prior is the expert's preference), got {self.prior_scale}")

    def check(self, game) -> "NetConfig":
        """Raise ValueError unless ``game`` offers this network's features (and its expert's
        parameters parse): the check of a network config against a game, made by
        :class:`PolicyNet` and by the training config's loader."""
        try:
            check_features(self.features, game, self.expert_params)
        except ValueError as e:
            field = "net.expert_params" if self.expert_params and "net." not in str(e) else ""
            raise ValueError(f"{field}: {e}" if field else str(e)) from None
        return self

    @classmethod
    def from_dict(cls, d: dict) -> "NetConfig":
        """A config saved by :func:`dataclasses.asdict` (a checkpoint's ``net_config``); a key
        this version does not know is an error naming it and the known ones."""
        return build(cls, d, "net.")

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
    """The actor-critic network of ``game`` (a name or a registry entry) shaped by ``cfg``."""

    def __init__(self, game, cfg: NetConfig):
        super().__init__()
        game = games.get(game)
        cfg.check(game)  # here, not at the first move
        self.game, self.cfg = game, cfg
        in_dim = game.obs_dim + (feature_width(cfg.features, game) if cfg.trunk_features else 0)
        layers, d = [], in_dim
        for _ in range(cfg.layers):
            layers += [nn.Linear(d, cfg.hidden), nn.ReLU()]
            d = cfg.hidden
        self.trunk = nn.Sequential(*layers)
        self.policy = nn.Linear(d, game.num_actions)
        nn.init.zeros_(self.policy.weight)
        nn.init.zeros_(self.policy.bias)
        if cfg.features == "engine":
            # a learned weight per kind of column (Gin: draw, discard, knock) on its engine
            # feature, straight into the logit of the action it scores: from 0 (the untrained
            # network is uniform), shared by the 52 cards so that one lesson ("keep the
            # deadwood low") is learned once. Columns past the A actions (Rummy's loose cards
            # and outs) add to the logits of the actions game.feature_actions names.
            group = torch.tensor(game.feature_groups, dtype=torch.long)
            self.register_buffer("feature_group", group, persistent=False)
            extra = torch.tensor(game.feature_actions[game.num_actions:], dtype=torch.long)
            self.register_buffer("feature_extra", extra, persistent=False)
            #: the added columns score actions 0 .. feature_span - 1 (0: there are none)
            self.feature_span = int(extra.max()) + 1 if extra.numel() else 0
            self.feature_skip = nn.Parameter(torch.zeros(int(group.max()) + 1))
        #: the position's correction to each kind of fact's weight (NetConfig.fact_gate)
        self.fact_gate = nn.Linear(d, int(group.max()) + 1) if cfg.fact_gate else None
        if self.fact_gate is not None:
            nn.init.zeros_(self.fact_gate.weight)
            nn.init.zeros_(self.fact_gate.bias)
        self.cards = CardHead(game, cfg.card_channels, d) if cfg.card_head else None
        self.readout = CardReadout(game, cfg.card_channels, d) if cfg.card_readout else None
        self.value = nn.Linear(d, 1)
        nn.init.orthogonal_(self.value.weight, 1.0)
        nn.init.zeros_(self.value.bias)

    #: the trunk's compute type: None (float32), or torch.bfloat16 (:meth:`set_precision`)
    trunk_dtype = None

    def set_precision(self, precision: str) -> "PolicyNet":
        """Compute the trunk's matrix products in ``precision`` (:data:`PRECISIONS`).

        ``bf16`` runs the trunk under autocast: its products in bfloat16 (native on a CPU with
        AMX and on recent GPUs), summed in float32; the weights, the heads, the
        logits and the value stay float32, so the policy's probabilities and PPO's ratios
        keep their precision. Not saved with the weights: a network trained in bf16 loads
        and plays in float32."""
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
        self.trunk_dtype = torch.bfloat16 if precision == "bf16" else None
        return self

    @property
    def precision(self) -> str:
        """The trunk's precision now (:meth:`set_precision`)."""
        return "fp32" if self.trunk_dtype is None else "bf16"

    @contextlib.contextmanager
    def computing(self, precision: str):
        """Within: the trunk in ``precision``; after (also on an error): the precision it had."""
        before = self.precision
        self.set_precision(precision)
        try:
            yield self
        finally:
            self.set_precision(before)

    @contextlib.contextmanager
    def updating(self, precision: str = "fp32"):
        """Within: training mode, the trunk in ``precision``; after (also on an error): eval
        mode and the precision it had."""
        self.train()
        try:
            with self.computing(precision):
                yield self
        finally:
            self.eval()

    @torch.no_grad()
    def greedy(self, obs: torch.Tensor, prior: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """``(B,)`` the first legal action of highest logit, the argmax of :meth:`forward`'s
        logits, computed at the legal actions only: a position has a few legal actions of
        hundreds (Rummy: a handful of 1,267), so passes over every action's logit would spend
        a small network's time on actions that cannot be played. The logits are the same sums as :meth:`forward`'s, added in
        another order (the last bits may differ). Where gathering a weight row per legal action
        would move more memory than the whole head (a wide trunk, few actions: Gin), and with a
        card head, which scores every card at once, the logits are :meth:`forward`'s."""
        h = self._hidden(obs, prior)
        r, c = mask.nonzero(as_tuple=True)  # row-major: each row's legal actions in order
        if self.cards is not None or self.readout is not None or r.numel() * h.shape[1] * 4 > mask.numel():
            return self._logits(h, obs, prior, mask).argmax(1)
        w = self.policy.weight
        logit = torch.einsum("nd,nd->n", h[r], w[c]) + self.policy.bias[c]
        p = prior[r, c]
        if self.cfg.prior_scale:
            logit += self.cfg.prior_scale * p
        if self.cfg.features == "engine":
            kinds = self._kind_weights(h)
            weight = kinds[self.feature_group[c]] if kinds.dim() == 1 else kinds[r, self.feature_group[c]]
            logit += weight * p.clamp(-30.0, 20.0)
            span = self.feature_span
            if span:  # the added columns, summed per action (the first few)
                extra = self._extra_facts(prior, kinds)
                logit += torch.where(c < span, extra[r, c.clamp(max=span - 1)], 0.0)
        B = obs.shape[0]
        best = torch.full((B,), -torch.inf, dtype=logit.dtype).scatter_reduce(0, r, logit, "amax")
        first = torch.where(logit == best[r], c, mask.shape[1])  # ties: the first, as argmax takes
        out = torch.full((B,), mask.shape[1], dtype=c.dtype).scatter_reduce(0, r, first, "amin")
        return torch.where(out == mask.shape[1], 0, out)  # a row with no legal action: 0, as argmax

    def forward(self, obs: torch.Tensor, prior: torch.Tensor, mask: torch.Tensor):
        """-> (masked logits (B, A), value (B,)); ``prior`` is :func:`action_features` of
        the network's ``features``."""
        h = self._hidden(obs, prior)
        return self._logits(h, obs, prior, mask), self.value(h).squeeze(1)

    def _hidden(self, obs: torch.Tensor, prior: torch.Tensor) -> torch.Tensor:
        """The trunk's output (float32)."""
        # the per-action input, bounded: illegal actions read -3, the rest -3..2
        x = torch.cat([obs, prior.clamp(-30.0, 20.0) * 0.1], dim=1) if self.cfg.trunk_features else obs
        if self.trunk_dtype is None:
            return self.trunk(x)
        rows = x.shape[0]
        if not torch.is_grad_enabled() and rows % PLAY_ROWS:
            # playing: a batch's size changes every step, and oneDNN builds its bf16 kernels
            # for each new shape (more than the product costs); padded to a multiple of
            # PLAY_ROWS, a run meets a few shapes, each built once
            x = torch.cat([x, x.new_zeros(PLAY_ROWS - rows % PLAY_ROWS, x.shape[1])])
        with torch.autocast(x.device.type, dtype=self.trunk_dtype):
            h = self.trunk(x)
        return h[:rows].float()

    def _logits(self, h: torch.Tensor, obs: torch.Tensor, prior: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The masked logits of trunk output ``h``."""
        logits = self.policy(h)
        if self.cards is not None:
            logits = logits + self.cards(obs, prior, mask, h)
        if self.readout is not None:
            logits = self.readout.add_to(logits, obs, h)
        # the sums below are made in place, each one fused pass over (B, A) (Rummy: 1,267 actions):
        # the head's output is not needed by its own backward, so autograd allows it
        if self.cfg.prior_scale:
            logits = logits.add_(prior, alpha=self.cfg.prior_scale)
        if self.cfg.features == "engine":
            A = logits.shape[1]
            kinds = self._kind_weights(h)
            logits = logits.addcmul_(prior[:, :A].clamp(-30.0, 20.0), kinds[..., self.feature_group[:A]])
            if self.feature_span:
                logits[:, :self.feature_span] += self._extra_facts(prior, kinds)
        return torch.where(mask, logits, ILLEGAL_LOGIT)  # masked_fill's values, without the ~mask pass

    def _kind_weights(self, h: torch.Tensor) -> torch.Tensor:
        """Each kind of engine fact's weight: ``(K,)``, or with the fact gate ``(B, K)``, its
        learned weight plus the position's correction."""
        return self.feature_skip if self.fact_gate is None else self.feature_skip + self.fact_gate(h)

    def _extra_facts(self, prior: torch.Tensor, kinds: torch.Tensor) -> torch.Tensor:
        """``(B, feature_span)``: the engine feature columns past the first ``A``, weighted by
        their kind's weight ``kinds`` (:meth:`_kind_weights`), summed into the actions they score."""
        A = self.game.num_actions
        weighted = prior[:, A:].clamp(-30.0, 20.0) * kinds[..., self.feature_group[A:]]
        return weighted.new_zeros(prior.shape[0], self.feature_span).index_add_(1, self.feature_extra, weighted)


class NetStack:
    """Networks of one architecture (a pool's snapshots) playing in one pass: each layer's
    weights stacked, each network's rows padded to the largest group, one batched product
    per layer instead of a forward pass per network, so that a network's fixed cost is paid
    once per layer, not once per network for a few rows each. The logits are those of each
    network's :meth:`PolicyNet.forward`, summed in another order (the last bits may
    differ). Only the MLP trunk and its head (:meth:`supports`); the precision is the
    first network's."""

    def __init__(self, nets: list[PolicyNet]):
        if not nets or not all(self.supports(n) and n.cfg == nets[0].cfg for n in nets):
            raise ValueError("NetStack takes networks of one architecture with no card head or readout")
        first = nets[0]
        self.cfg, self.dtype = first.cfg, first.trunk_dtype
        layers = [[m for m in n.trunk if isinstance(m, nn.Linear)] + [n.policy] for n in nets]
        # (S, in, out) weights and (S, 1, out) biases, layer by layer
        # the trunk's in its precision, cast once here (autocast would cast them every call)
        cast = [self.dtype or torch.float32] * (len(layers[0]) - 1) + [torch.float32]
        self.weights = [torch.stack([ls[i].weight.detach().T for ls in layers]).to(cast[i]).contiguous()
                        for i in range(len(layers[0]))]
        self.biases = [torch.stack([ls[i].bias.detach()[None] for ls in layers]).to(cast[i])
                       for i in range(len(layers[0]))]
        engine = self.cfg.features == "engine"
        # (S, 1, K): each network's weight per kind of fact; with the fact gate, (S, d, K) and
        # (S, 1, K) its correction's weights and biases
        self.skip = torch.stack([n.feature_skip.detach() for n in nets])[:, None] if engine else None
        self.gate = ((torch.stack([n.fact_gate.weight.detach().T for n in nets]).contiguous(),
                      torch.stack([n.fact_gate.bias.detach()[None] for n in nets]))
                     if engine and self.cfg.fact_gate else None)
        self.group = first.feature_group if engine else None
        self.extra = first.feature_extra if engine else None

    @staticmethod
    def supports(net: PolicyNet) -> bool:
        return net.cards is None and net.readout is None

    @torch.no_grad()
    def logits(self, nets: np.ndarray, groups: list[np.ndarray], obs: np.ndarray, prior: np.ndarray,
               mask: np.ndarray) -> list[np.ndarray]:
        """The masked logits ``(len(groups[i]), A)`` of network ``nets[i]`` (its index in the
        stack) at the rows ``groups[i]`` of ``obs``, ``prior`` and ``mask`` (numpy)."""
        width = -(-max(len(g) for g in groups) // STACK_ROWS) * STACK_ROWS  # a few shapes for oneDNN to build
        index = np.zeros((len(groups), width), np.int64)  # padded with row 0: computed, then dropped
        for i, g in enumerate(groups):
            index[i, :len(g)] = g
        nets = np.asarray(nets)
        every = nets.size == len(self.weights[0]) and (nets == np.arange(nets.size)).all()
        pick = (lambda t: t) if every else (lambda t: t[torch.from_numpy(nets)])  # all of them: no copies
        idx = torch.from_numpy(index)
        o, p = torch.from_numpy(obs)[idx], torch.from_numpy(prior)[idx]
        x = torch.cat([o, p.clamp(-30.0, 20.0) * 0.1], dim=2) if self.cfg.trunk_features else o
        x = x.to(self.weights[0].dtype)
        for w, b in zip(self.weights[:-1], self.biases[:-1]):
            x = torch.relu(torch.baddbmm(pick(b), x, pick(w)))
        h = x.float()
        logits = torch.baddbmm(pick(self.biases[-1]), h, pick(self.weights[-1]))
        if self.cfg.prior_scale:
            logits.add_(p, alpha=self.cfg.prior_scale)
        if self.skip is not None:
            A = logits.shape[2]
            kinds = pick(self.skip)
            if self.gate is not None:
                kinds = kinds + torch.baddbmm(pick(self.gate[1]), h, pick(self.gate[0]))
            facts, skip = p.clamp(-30.0, 20.0), kinds[..., self.group]
            logits.addcmul_(facts[..., :A], skip[..., :A])
            if self.extra.numel():
                logits.index_add_(2, self.extra, facts[..., A:] * skip[..., A:])
        logits = torch.where(torch.from_numpy(mask)[idx], logits, ILLEGAL_LOGIT)
        return [logits[i, :len(g)].numpy() for i, g in enumerate(groups)]


def card_actions(game) -> tuple[np.ndarray, list[slice], int, slice]:
    """How a game's actions name cards, for :class:`CardHead`: ``(member, blocks, take,
    top)`` with ``member`` ``(52, K, A)`` float32 (action ``a`` of kind ``k`` scores
    ``member[:, k, a]`` times its cards' scores: one card for a discard, a knock or a
    lay-off, the mean of its cards for a meld), ``blocks`` the action blocks of one action
    per card (their features and legality are card-grid inputs), ``take`` the action that
    takes the top discard (its card is the observation's ``top_discard`` plane) and
    ``top`` that plane's slice. The kinds are the one-card blocks, then the melds and the
    lay-offs where the game has them, and last the take."""
    g = games.get(game)
    blocks = list(g.card_blocks)
    kinds = len(blocks) + (g.meld_block is not None) + (g.layoff_block is not None) + 1
    member = np.zeros((52, kinds, g.num_actions), np.float32)
    for k, b in enumerate(blocks):
        member[np.arange(52), k, np.arange(b.start, b.stop)] = 1.0
    k = len(blocks)
    if g.meld_block is not None:
        for m, cards in enumerate(melds.MELDS):
            member[list(cards), k, g.meld_block.start + m] = 1.0 / len(cards)
        k += 1
    if g.layoff_block is not None:
        lay = np.arange(g.layoff_block.start, g.layoff_block.stop)
        member[(lay - g.layoff_block.start) % 52, k, lay] = 1.0
    return member, blocks, g.take_action, g.top_discard


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

    def __init__(self, game, channels: int, context: int):
        super().__init__()
        game = games.get(game)
        member, blocks, take, top = card_actions(game)
        self.blocks, self.take, self.top, self.planes = blocks, take, top, game.card_planes
        kinds = member.shape[1]
        self.register_buffer("member", torch.from_numpy(member.reshape(52 * kinds, -1)), persistent=False)
        cin = game.card_planes + 2 * len(blocks)
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


class CardReadout(nn.Module):
    """Light per-card scores of the one-card actions and the take (``NetConfig.card_readout``).

    The game's ``readout_planes`` are laid on the 4 x 13 grid of suits by ranks; one
    convolution along the suit (five ranks wide: a card's run neighbours) and one across the
    four suits of a rank (its set neighbours), a learned vector per card (its rank and so its
    value) and a projection of the trunk's summary ``h`` give each card a vector; a linear
    score per kind of action (each one-card block, then the take, whose card is the face-up
    card) is added to that card's action logit. The score starts at zero. Unlike
    :class:`CardHead` it reads a few planes, has one layer and adds its scores to the action
    blocks directly, with no (cards x actions) product."""

    def __init__(self, game, channels: int, context: int):
        super().__init__()
        game = games.get(game)
        self.blocks, self.take, self.top = list(game.card_blocks), game.take_action, game.top_discard
        if any(a.stop > b.start for a, b in zip(self.blocks, self.blocks[1:])):
            raise ValueError(f"{game.name}: the card blocks must come in action order, got {self.blocks}")
        self.register_buffer("planes", torch.tensor(game.readout_planes, dtype=torch.long), persistent=False)
        cin = len(game.readout_planes)
        self.span = (max(game.readout_planes) + 1) * 52  # the observation's columns up to the last plane
        self.run = nn.Conv2d(cin, channels, (1, 5), padding=(0, 2))
        self.set = nn.Conv2d(cin, channels, (4, 1))
        self.where = nn.Parameter(torch.zeros(1, channels, 4, 13))
        self.context = nn.Linear(context, channels)
        self.score = nn.Linear(channels, len(self.blocks) + 1, bias=False)
        nn.init.zeros_(self.score.weight)

    def forward(self, obs: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        """``(B, 52, kinds)``: each card's score for each kind of action (the last: the take)."""
        B = obs.shape[0]
        x = obs[:, : self.span].reshape(B, -1, 52)[:, self.planes].reshape(B, -1, 4, 13)
        x = torch.relu(self.run(x) + self.set(x) + self.where + self.context(h)[:, :, None, None])
        return self.score(x.reshape(B, x.shape[1], 52).transpose(1, 2))

    def add_to(self, logits: torch.Tensor, obs: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
        """``logits`` with each card action's score added (a new tensor)."""
        s = self(obs, h)
        parts, at = [], 0
        for k, b in enumerate(self.blocks):
            parts += [logits[:, at:b.start], logits[:, b] + s[:, :, k]]
            at = b.stop
        parts.append(logits[:, at:])
        out = torch.cat(parts, 1)
        take = (obs[:, self.top] * s[:, :, -1]).sum(1)
        return out.index_add(1, torch.tensor([self.take], device=obs.device), take[:, None])


def masked_entropy(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Entropy over the legal actions only (illegal ones carry no probability)."""
    logp = torch.log_softmax(logits, dim=1)
    # softmax, not logp.exp(): the same probabilities, but exp of the illegal actions' huge
    # negative log-probabilities takes a slow path on CPUs
    p = torch.softmax(logits, dim=1)
    return -(torch.where(mask, p * logp, torch.zeros_like(p))).sum(1)
