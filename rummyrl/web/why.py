"""The why panel: an agent's reasons (:mod:`rummyrl.reasons`) as rows a person reads.

Each row names a move in the words of the terminal game (``"discard K♦ (deadwood 12)"``)
and says what the agent made of it: a network's probability, search's mean value over its
worlds with the spread, a rule agent's preference score. The first line says what kind of
weighing it was, and for a network the critic's value of the position.
"""

from __future__ import annotations

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


__all__ = ["SUMMARY", "reason_rows"]
