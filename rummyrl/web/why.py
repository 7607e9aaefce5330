"""The why panel: an agent's reasons (:mod:`rummyrl.reasons`) computed within a time limit,
and shown as rows a person reads.

An agent's reasons can take long to compute (a search plays hundreds of worlds), so
:class:`Explainer` runs them on a small pool of their own threads, never on the event loop
and never under a lock another request needs, and answers 503 when one takes longer than
its limit or when the pool already has as many waiting as it takes. The computation goes
on in its thread after a 503 (Python cannot stop a thread), but the request does not wait.

Each row names a move in the words of the terminal game (``"discard K♦ (deadwood 12)"``)
and says what the agent made of it: a network's probability, search's mean value over its
worlds with the spread, a rule agent's preference score. The first line says what kind of
weighing it was, and for a network the critic's value of the position.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

from .errors import ApiError

SUMMARY = {
    "network": "a network: the probability it gives each of its top moves (softmax of its logits), and its "
               "critic's value of the position",
    "search": "search: each candidate's mean value over {worlds} sampled worlds ± its spread (s.d.); it keeps the "
              "rollout policy's ({rollout}) first choice unless another beats it by {z} standard errors",
    "preference": "a rule agent: its preference score of each move (it plays the highest)",
    "uniform": "random: every legal move alike ({legal} of them)",
    "rule": "a fixed rule with no scores: only its move is known",
}


def reason_rows(reasons: dict, texts: dict) -> dict:
    """``{"kind", "summary", "value", "chosen", "rows": [{"action", "text", "figure", "bar"}]}``
    from one decision's reasons; ``texts`` maps action ids to words (missing: the id)."""
    kind = reasons.get("kind", "rule")
    summary = SUMMARY.get(kind, kind).format(**{k: reasons.get(k, "?") for k in ("worlds", "rollout", "z", "legal")})
    rows = []
    top = reasons.get("top", [])
    if kind == "network":
        for r in top:
            rows.append({"action": r["action"], "figure": f"{100 * r['p']:.1f}%", "bar": r["p"]})
    elif kind == "search" and reasons.get("searched"):
        means = [r["mean"] for r in top]
        lo, hi = min(means), max(means)
        for r in top:
            rows.append({"action": r["action"], "figure": f"{r['mean']:+.1f} ± {r['sd']:.1f}",
                         "bar": (r["mean"] - lo) / (hi - lo) if hi > lo else 1.0})
    elif kind == "search":
        summary = "search: a single candidate, played without searching"
        rows = [{"action": r["action"], "figure": "", "bar": 1.0} for r in top]
    elif kind == "preference":
        scores = [r["score"] for r in top]
        lo, hi = min(scores, default=0), max(scores, default=0)
        for r in top:
            rows.append({"action": r["action"], "figure": f"{r['score']:.2f}",
                         "bar": (r["score"] - lo) / (hi - lo) if hi > lo else 1.0})
    else:
        rows = [{"action": r["action"], "figure": "", "bar": 1.0} for r in top]
    chosen = reasons.get("chosen", top[0]["action"] if top else None)
    for r in rows:
        r["text"] = texts.get(r["action"], f"action {r['action']}")
        r["chosen"] = r["action"] == chosen
    out = {"kind": kind, "summary": summary, "rows": rows, "chosen": chosen}
    if "value" in reasons:
        out["value"] = reasons["value"]
    return out


class Explainer:
    """Runs explanations on ``workers`` threads of their own, each answered within
    ``timeout`` seconds (503 past it), with at most ``queue`` waiting or running at once
    (503 at once beyond that)."""

    def __init__(self, timeout: float = 10.0, workers: int = 2, queue: int = 8):
        if not timeout > 0:
            raise ValueError(f"the explanation time limit must be > 0 seconds, got {timeout}")
        self.timeout = timeout
        self.queue = queue
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="rummyrl-why")
        self._pending = 0
        self._lock = threading.Lock()

    def _done(self, _future) -> None:
        with self._lock:
            self._pending -= 1

    async def run(self, fn, *args):
        """``fn(*args)`` on the pool; ApiError 503 when the pool is full or it takes too long."""
        with self._lock:
            if self._pending >= self.queue:
                raise ApiError(503, f"{self._pending} explanations are being computed already; ask again in a "
                                    f"few seconds")
            self._pending += 1
        future = self._pool.submit(fn, *args)
        future.add_done_callback(self._done)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), self.timeout)
        except asyncio.TimeoutError:
            raise ApiError(503, f"the explanation took longer than {self.timeout:g} s, the limit of this server; "
                                f"a faster agent (or a built-in one) explains within it") from None

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


__all__ = ["Explainer", "SUMMARY", "reason_rows"]
