"""Ship a trained network: the network of a checkpoint alone, with the evaluations it was
shipped on (``scripts/export_pretrained.py`` is its command line, the recipes' ``export``
stage runs it).

The file holds no optimizer, games or snapshots: the network, the config that trained it
and ``about`` (its source and, from evaluate.py's ``results.json``, the pairings of the
network, by evaluate.py's label for it). Written to ``agents/pretrained/<game>.pt`` it is
what the agent name ``pretrained`` loads.
"""

from __future__ import annotations

import json
from pathlib import Path

from rummyrl.agents.checkpoint import export_weights, load_checkpoint, pretrained_path
from rummyrl.tournament import display_names


def export_pretrained(checkpoint: str | Path, out: str | Path | None = None, results=(),
                      label: str | None = None) -> Path:
    """Write the network of ``checkpoint`` alone to ``out`` (default
    ``agents/pretrained/<game>.pt``, the shipped network), keeping from each ``results``
    file the pairings that involve the checkpoint: in evaluate.py's ``results.json`` those
    of its label for it (``label``, default ``folder/file``), in a run's final report
    (``<run>/eval/results.json`` of that checkpoint) those of ``policy``. A file that holds
    none is an error."""
    checkpoint = str(checkpoint)
    game = load_checkpoint(checkpoint)["game"]
    about = {"source": checkpoint}
    label = label or display_names([checkpoint])[0]
    pairings = []
    for path in results:
        with open(path) as f:
            data = json.load(f)
        mine = "policy" if _reports_on(data, checkpoint) else label
        found = [p for p in data.get("pairings", []) if mine in (p.get("a"), p.get("b"))]
        if not found:
            raise ValueError(f"{path} holds no pairing of {label!r} (evaluate.py's label for {checkpoint})")
        pairings += found
    if pairings:
        about["results"] = json.dumps(pairings)
    return export_weights(checkpoint, out or pretrained_path(game), about)


def _reports_on(results: dict, checkpoint: str) -> bool:
    """Whether ``results`` is a run's final report on ``checkpoint`` (its ``evaluated`` names
    the file, its network is labelled ``policy``)."""
    evaluated = str(results.get("evaluated", "")).split(" (", 1)[0]
    return bool(evaluated) and Path(evaluated).resolve() == Path(checkpoint).resolve()
