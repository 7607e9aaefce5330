"""A trained network as an agent: :class:`NeuralAgent`, and loading one from a checkpoint
or the shipped networks (the agent names ``pretrained`` and ``pretrained-plain``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from .base import Agent
from .checkpoint import PRETRAINED_KINDS, build_net, load_checkpoint, pretrained_path
from .features import action_features
from .network import PolicyNet


def sample_actions(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One action per row of ``(B, A)`` probabilities (inverse CDF; much faster on CPU than
    torch.multinomial for small batches)."""
    cdf = np.cumsum(probs, axis=1)
    u = rng.random(probs.shape[0]) * cdf[:, -1]
    return np.minimum((cdf < u[:, None]).sum(1), probs.shape[1] - 1)


class NeuralAgent(Agent):
    """A :class:`PolicyNet` as an agent: the argmax over legal actions (or a sample)."""

    def __init__(self, net: PolicyNet, name: str = "neural", greedy: bool = True, seed: int | None = None):
        self.net = net.eval()
        self.game = net.game.name
        self.name = name
        self.greedy = greedy
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        obs, mask = self.check_batch(observations, action_masks)
        return self.act_with_prior(obs, mask, self.features(obs, mask))

    def features(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The network's per-action input (:func:`action_features`) for these rows."""
        return action_features(self.net.cfg.features, self.net.game, obs, mask, self.net.cfg.expert_params)

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
        if self.greedy:  # the argmax computed at the legal actions only (PolicyNet.greedy)
            obs = np.ascontiguousarray(obs, dtype=np.float32)
            return self.net.greedy(torch.from_numpy(obs), torch.from_numpy(np.ascontiguousarray(prior, np.float32)),
                                   torch.from_numpy(np.ascontiguousarray(mask, dtype=bool))).numpy()
        return self.choose(self.logits(obs, mask, prior))

    def choose(self, logits: np.ndarray) -> np.ndarray:
        """The actions this agent plays at masked ``logits`` (its network's): the argmax, or
        a sample from their softmax with the agent's generator."""
        if self.greedy:
            return logits.argmax(1)
        return sample_actions(torch.softmax(torch.from_numpy(logits), 1).numpy(), self.rng)


def load_agent_from_checkpoint(path: str | Path, game: str, seed: int | None = None) -> NeuralAgent:
    data = load_checkpoint(path, game)
    return NeuralAgent(build_net(data), name=Path(path).stem, seed=seed)


def load_pretrained(game: str = "gin", seed: int | None = None, num_players: int | None = None,
                    kind: str = "pretrained") -> NeuralAgent:
    """The shipped network ``kind`` of ``game`` as a greedy agent (the names ``pretrained``
    and ``pretrained-plain``, :data:`~.checkpoint.PRETRAINED_KINDS`)."""
    path = pretrained_path(game, kind)
    if not path.is_file():
        have = [k for k in PRETRAINED_KINDS if pretrained_path(game, k).is_file()]
        raise FileNotFoundError(f"no {kind} {game} network is installed (expected {path}); "
                                f"{game} has {have or 'none'}")
    data = load_checkpoint(path, game)
    if num_players is not None and data.get("num_players") != num_players:
        raise ValueError(f"the {kind} {game} network plays {data.get('num_players')} players, not {num_players}")
    return NeuralAgent(build_net(data), name=kind, seed=seed)


def load_pretrained_plain(game: str = "gin", seed: int | None = None, num_players: int | None = None) -> NeuralAgent:
    """The shipped network of ``game`` that learned from the rules alone (``pretrained-plain``)."""
    return load_pretrained(game, seed, num_players, kind="pretrained-plain")
