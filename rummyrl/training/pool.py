"""The opponent pool: who sits in the seats the learner does not hold.

Per game, one kind is drawn with the weights of ``cfg.opponents``: the current policy in
every seat (self-play), a past snapshot of it (one added every ``snapshot_every``
updates, the oldest dropped past ``pool_size``) or any agent ``load_agent`` builds: a
baseline, a baseline with options (``expert:lookahead=4``), ``search``, a shipped network
(``pretrained``) or a checkpoint. Each agent is built once, on first use, with a seed of
its own, and its generator is kept in checkpoints, so a resumed run draws as it would have.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from rummyrl.agents import load_agent
from rummyrl.agents.base import tell_rules
from rummyrl.agents.network import NetStack, PolicyNet
from rummyrl.agents.neural import NeuralAgent

from .config import OpponentConfig, TrainConfig, engine_config
from .device import play_precision
from .state import rng_state, set_rng_state


#: the two kinds that are the learner's own network; every other kind is an agent spec
SELF, SNAPSHOT = 0, 1


def opponent_kinds(weights: dict) -> list[str]:
    """The kinds of ``cfg.opponents`` in the order the pool numbers them: ``self_play``,
    ``snapshots`` and the named defaults of :class:`~.config.OpponentConfig` first (so that
    a run's draws do not depend on which of them a config names), then the other agent
    specs in the order given."""
    named = [f.name for f in dataclasses.fields(OpponentConfig)]
    return named + [k for k in weights if k not in named]


class OpponentPool:
    """Who sits in the seats the learner does not hold, drawn per game."""

    def __init__(self, cfg: TrainConfig, rng: np.random.Generator):
        self.cfg = cfg
        self.rng = rng
        self.kinds = opponent_kinds(cfg.opponents)
        """Each kind's name: ``self_play``, ``snapshots`` or an agent spec (its index is the kind)."""
        w = np.array([cfg.opponents.get(k, 0.0) for k in self.kinds], dtype=float)
        self.weights = w / w.sum()
        self.expert = self.kinds.index("expert")
        """The kind of the plain ``expert``, which plays the argmax of the preference the
        lanes compute for all its rows in one pass (:meth:`act`'s ``prior``)."""
        self.baselines = {k: self._load(k) for k in range(2, len(self.kinds)) if self.weights[k] > 0}
        """The agents of the kinds drawn so far (or drawable), by kind."""
        self.snapshots: list[NeuralAgent] = []
        self.precision = play_precision(cfg.precision, "cpu")
        """What the snapshots' trunks compute in (they play on the CPU)."""
        self._stack: tuple | None = None  # (the snapshots' networks, their NetStack)
        self.record: list[list[int]] = []
        """The learner's ``[wins, games]`` against each snapshot (``snapshot_sampling: pfsp``)."""

    def _load(self, k: int):
        agent = load_agent(self.kinds[k], game=self.cfg.game, seed=self.cfg.seed + k)
        tell_rules((agent,), engine_config(self.cfg))  # search plays its worlds by the run's rules
        return agent

    def baseline(self, k: int):
        """The agent of kind ``k``, made on first use: a run resumed with another mixture of
        opponents finishes its games in progress against the ones they began with."""
        if k not in self.baselines:
            self.baselines[k] = self._load(k)
        return self.baselines[k]

    def draw(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Kinds and snapshot indices for ``n`` new games (no snapshot yet: self-play)."""
        kind = self.rng.choice(len(self.kinds), size=n, p=self.weights)
        if not self.snapshots:
            kind = np.where(kind == SNAPSHOT, SELF, kind)
        if self.cfg.snapshot_sampling == "pfsp" and self.snapshots:
            snap = self.rng.choice(len(self.snapshots), size=n, p=self.pfsp_weights())
        else:
            snap = self.rng.integers(0, max(len(self.snapshots), 1), size=n)
        return kind, snap

    def pfsp_weights(self) -> np.ndarray:
        """The probability of each snapshot under ``pfsp``: ``(1 - p) ** 2`` normalised, ``p``
        the learner's smoothed win rate against it."""
        rec = np.array(self.record[-len(self.snapshots):], float).reshape(-1, 2)
        p = (rec[:, 0] + 1) / (rec[:, 1] + 2)
        w = (1 - p) ** 2
        return w / w.sum()

    def note_results(self, snap: np.ndarray, won: np.ndarray) -> None:
        """Count ended games of the learner against snapshots ``snap`` (indices), ``won`` by it.
        A snapshot dropped from the pool while a game against it went on leaves the index to
        its successor: a game's worth of noise in the counts, not in the games."""
        for s, w in zip(np.minimum(snap, len(self.snapshots) - 1), won):
            self.record[s][0] += int(w)
            self.record[s][1] += 1

    def add_snapshot(self, net: PolicyNet) -> None:
        """A copy of ``net`` joins the pool, sampling with a seed drawn from the pool's generator."""
        self.snapshots.append(snapshot_agent(net.game, net.cfg, net.state_dict(), len(self.snapshots),
                                             seed=int(self.rng.integers(2**31)), precision=self.precision))
        self.record.append([0, 0])
        if len(self.snapshots) > self.cfg.pool_size:
            self.snapshots.pop(0)
            self.record.pop(0)

    def _stacked(self) -> NetStack | None:
        """The snapshots' networks as one :class:`~rummyrl.agents.network.NetStack` (None
        with a card head), rebuilt when the pool changes."""
        nets = [a.net for a in self.snapshots]
        held = self._stack[0] if self._stack else []
        if len(held) != len(nets) or any(a is not b for a, b in zip(held, nets)):  # it holds them: no id is reused
            self._stack = (nets, NetStack(nets) if all(NetStack.supports(n) for n in nets) else None)
        return self._stack[1]

    def state_dict(self) -> dict:
        """The generators of the pool's agents (the snapshots' weights are the learner's to keep)."""
        return {"baselines": {k: rng_state(a.rng) for k, a in self.baselines.items() if hasattr(a, "rng")},
                "snapshots": [rng_state(a.rng) for a in self.snapshots],
                "record": [list(r) for r in self.record]}

    def load_state_dict(self, d: dict) -> None:
        """Put back :meth:`state_dict` (the pool holding the same snapshots)."""
        for k, st in d["baselines"].items():
            set_rng_state(self.baseline(int(k)).rng, st)
        for agent, st in zip(self.snapshots, d["snapshots"]):
            set_rng_state(agent.rng, st)
        # a checkpoint written before the counts were kept starts them at zero
        self.record = [list(r) for r in d.get("record", [])] or [[0, 0] for _ in self.snapshots]

    def act(self, kind: np.ndarray, snap: np.ndarray, obs: np.ndarray, mask: np.ndarray,
            prior: np.ndarray) -> np.ndarray:
        """Actions of the opponents; ``prior`` holds, computed by the caller in one pass
        with the learner's, the network's features for the snapshots' rows and the
        expert's preference for the expert's rows."""
        out = np.zeros(kind.size, np.int64)
        for k in np.unique(kind):
            rows = np.flatnonzero(kind == k)
            if k == SNAPSHOT:
                drawn = np.unique(snap[rows])
                groups = [rows[snap[rows] == s] for s in drawn]
                agents = np.minimum(drawn, len(self.snapshots) - 1)
                stack = self._stacked()
                if stack is None:  # a card head: one forward pass per snapshot
                    logits = [self.snapshots[a].logits(obs[r], mask[r], prior[r]) for a, r in zip(agents, groups)]
                else:
                    logits = stack.logits(agents, groups, obs, prior, mask)
                for a, r, z in zip(agents, groups, logits):  # each samples with its own generator, in turn
                    out[r] = self.snapshots[a].choose(z)
            elif k == self.expert:
                out[rows] = prior[rows, :mask.shape[1]].argmax(1)  # the expert plays the argmax of its preference
            else:
                out[rows] = self.baseline(int(k)).act(obs[rows], mask[rows])
        return out


def snapshot_agent(game, net_cfg, weights: dict, index: int, seed=None, precision: str = "fp32") -> NeuralAgent:
    """A sampling agent of a network with ``weights``: a pool's ``index``-th snapshot, its
    trunk in ``precision`` (:func:`~.device.play_precision`)."""
    copy = PolicyNet(game, net_cfg).set_precision(precision)
    copy.load_state_dict(weights)
    return NeuralAgent(copy, name=f"snapshot{index}", greedy=False, seed=seed)
