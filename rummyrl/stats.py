"""Statistics of tournaments: Wilson intervals for win rates and Bradley-Terry ratings."""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.959963984540054


def wilson_interval(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion ``wins / n`` (95% by default)."""
    if n <= 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def bradley_terry(wins: np.ndarray, iters: int = 200, offset: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Bradley-Terry ratings from a matrix ``wins[i, j]`` (times i beat j; draws may be
    entered as halves). Returns Elo-scale ratings (mean 0) and their standard errors
    (from the inverse Fisher information under the mean-zero constraint).

    ``offset[i, j]`` (antisymmetric, default 0) is a known log-odds term of those games:
    P(i beats j) = 1 / (1 + exp(theta_j - theta_i - offset[i, j])). A lone agent against
    ``m`` copies of another (Rummy) has ``offset = -log(m)``: Luce's choice model, where
    it wins with probability s_i / (s_i + m s_j), so equal strengths win 1 game in m + 1.

    A weak prior (one draw against a virtual average player) keeps ratings finite when an
    agent won or lost every game.
    """
    w = np.asarray(wins, dtype=float)
    k = w.shape[0]
    o = np.zeros((k, k)) if offset is None else np.asarray(offset, dtype=float)
    if o.shape != (k, k) or not np.allclose(o, -o.T):
        raise ValueError(f"offset must be an antisymmetric ({k}, {k}) matrix")
    n = w + w.T
    theta = np.zeros(k)
    prior = 1.0

    def probabilities(theta):
        p = 1 / (1 + np.exp(theta[None, :] - theta[:, None] - o))  # P(i beats j)
        p0 = 1 / (1 + np.exp(-theta))  # against the virtual player at 0
        info = np.diag((n * p * (1 - p)).sum(1) + 2 * prior * p0 * (1 - p0)) - n * p * (1 - p)
        return p, p0, info

    for _ in range(iters):  # Newton steps on the log-likelihood with the prior
        p, p0, info = probabilities(theta)
        grad = (w - n * p).sum(1) + prior * (0.5 - p0) * 2
        step = np.linalg.solve(info, grad)
        theta += step
        if np.abs(step).max() < 1e-10:
            break
    theta -= theta.mean()
    _, _, info = probabilities(theta)
    proj = np.eye(k) - 1.0 / k  # the mean-zero constraint removes the common shift
    cov = proj @ np.linalg.inv(info) @ proj
    scale = 400 / math.log(10)
    return theta * scale, np.sqrt(np.clip(np.diag(cov), 0, None)) * scale
