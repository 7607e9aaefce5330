"""Why an agent moved: what it weighed at a decision, read from its public attributes.

Each kind of agent weighs its moves in its own terms, and :func:`explain` reports them as
plain data (one dict per decision, action ids as ints, numbers rounded):

=============  =======================================================================
``kind``       what the dict holds
=============  =======================================================================
``network``    a network (``NeuralAgent``: its ``net``): the probability of its top moves
               (softmax of the masked logits) and the critic's ``value`` of the position
``search``     search (``SearchAgent``): each candidate move's mean value over the sampled
               worlds with its spread (standard deviation) and the standard error of its
               difference to the rollout policy's first choice, the move chosen and
               the rule that chose it (``z``)
``preference`` a rule agent that plays the argmax of a preference (``PreferenceAgent``,
               the ``expert`` and ``planner``): its top moves' scores
``uniform``    ``random``: every legal move alike
``rule``       an agent with a fixed rule and no scores (``simple``): only its move
=============  =======================================================================

:func:`act_and_explain` acts and explains at once, with the very actions the agent's
``act`` would return (search is searched once; the others' scores are computed beside
their move), which is how ``evaluate.py --record-reasons`` records them.
"""

from __future__ import annotations

import numpy as np
import torch

from rummyrl.agents import RandomAgent

#: moves listed per decision
TOP = 5


def _r(x: float) -> float:
    return round(float(x), 4)


def kind_of(agent) -> str:
    """How :func:`explain` reads ``agent``: ``network``, ``search``, ``preference``,
    ``uniform`` or ``rule``."""
    if getattr(agent, "net", None) is not None and hasattr(agent, "features"):
        return "network"
    if all(hasattr(agent, m) for m in ("candidates", "action_values", "choose", "options")):
        return "search"
    if hasattr(agent, "preferences"):
        return "preference"
    if isinstance(agent, RandomAgent):
        return "uniform"
    return "rule"


def _top(scores: np.ndarray, mask: np.ndarray, top: int) -> np.ndarray:
    legal = np.flatnonzero(mask)
    return legal[np.argsort(-scores[legal], kind="stable")[:top]]


def _network(agent, obs, masks, top):
    prior = agent.features(obs, masks)
    with torch.no_grad():
        logits, value = agent.net(torch.from_numpy(obs), torch.from_numpy(np.ascontiguousarray(prior, np.float32)),
                                  torch.from_numpy(masks))
        probs = torch.softmax(logits, 1).numpy()
    out = []
    for b in range(obs.shape[0]):
        idx = _top(probs[b], masks[b], top)
        out.append({"kind": "network", "value": _r(value[b]), "legal": int(masks[b].sum()),
                    "top": [{"action": int(a), "p": _r(probs[b, a])} for a in idx]})
    return out, prior


def _search(agent, obs, masks, top):
    """Search's decision (the code of ``SearchAgent.decide``) with each candidate's values."""
    cand = agent.candidates(obs, masks)
    actions = cand[:, 0].copy()
    out = [{"kind": "search", "worlds": int(agent.options["worlds"]), "z": _r(agent.options["z"]),
            "rollout": str(agent.options["rollout"]), "top": [{"action": int(a)} for a in row if a >= 0][:max(top, 1)],
            "searched": False} for row in cand]
    think = np.flatnonzero((cand[:, 1:] >= 0).any(1)) if cand.shape[1] > 1 else np.zeros(0, np.int64)
    if think.size:
        c, v = agent.action_values(obs[think], masks[think], cand[think])
        actions[think] = agent.choose(c, v)
        n = v.shape[1]
        diff = v - v[:, :, :1]
        for i, b in enumerate(think):
            rows = []
            for k, a in enumerate(c[i]):
                if a < 0:
                    continue
                se = np.std(diff[i, :, k], ddof=1) / np.sqrt(n) if n > 1 else 0.0
                rows.append({"action": int(a), "mean": _r(np.mean(v[i, :, k])),
                             "sd": _r(np.std(v[i, :, k], ddof=1) if n > 1 else 0.0), "se_vs_first": _r(se)})
            out[b]["top"] = rows
            out[b]["searched"] = True
    for b, a in enumerate(actions):
        out[b]["chosen"] = int(a)
    return actions, out


def _preference(agent, obs, masks, top):
    prefs = np.asarray(agent.preferences(obs, masks), np.float64)
    out = []
    for b in range(obs.shape[0]):
        idx = _top(prefs[b], masks[b], top)
        out.append({"kind": "preference", "legal": int(masks[b].sum()),
                    "top": [{"action": int(a), "score": _r(prefs[b, a])} for a in idx]})
    return out


def _plain(kind, actions, masks):
    return [{"kind": kind, "legal": int(m.sum()), "top": [{"action": int(a)}]} for a, m in zip(actions, masks)]


def act_and_explain(agent, observations, action_masks, top: int = TOP) -> tuple[np.ndarray, list[dict]]:
    """``(actions, reasons)``: the actions ``agent.act`` returns for this batch, and what the
    agent weighed at each (module docstring)."""
    obs, masks = agent.check_batch(observations, action_masks)
    kind = kind_of(agent)
    if kind == "search":
        return _search(agent, obs, masks, top)
    if kind == "network":
        out, prior = _network(agent, obs, masks, top)
        return np.asarray(agent.act_with_prior(obs, masks, prior)), out
    actions = np.asarray(agent.act(obs, masks))
    if kind == "preference":
        return actions, _preference(agent, obs, masks, top)
    return actions, _plain(kind, actions, masks)


def explain(agent, observations, action_masks, top: int = TOP) -> list[dict]:
    """What ``agent`` weighs at each position of the batch (a search searches it afresh,
    with its own random worlds), each dict with the move it plays as ``chosen``."""
    actions, out = act_and_explain(agent, observations, action_masks, top)
    for d, a in zip(out, actions):
        d["chosen"] = int(a)
    return out


__all__ = ["TOP", "act_and_explain", "explain", "kind_of"]
