"""The opponent pool: who sits in the seats the learner does not hold.

Per game, one kind is drawn with the weights of ``cfg.opponents``: the current policy in
every seat (self-play), a past snapshot of it (one added every ``snapshot_every``
updates, the oldest dropped past ``pool_size``) or a rule-based baseline.
"""

from __future__ import annotations

import numpy as np

from rummyrl.agents.neural import NeuralAgent, PolicyNet

from .config import TrainConfig


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

    def baseline(self, k: int):
        """The rule-based agent of kind ``k``, made on first use: a run resumed with another
        mixture of opponents finishes its games in progress against the ones they began with."""
        if k not in self.baselines:
            from rummyrl.agents import load_agent

            self.baselines[k] = load_agent(KINDS[k], game=self.cfg.game, seed=self.cfg.seed + k)
        return self.baselines[k]

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
        """Actions of the opponents; ``prior`` holds, computed by the caller in one pass
        with the learner's, the network's features for the snapshots' rows and the
        expert's preference for the expert's rows."""
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
                out[rows] = self.baseline(int(k)).act(obs[rows], mask[rows])
        return out
