"""Generators: the results.json schema of evaluate.py and the facts of the shipped networks."""

from __future__ import annotations

import ast
import dataclasses
import inspect
from pathlib import Path

from _gen.common import ROOT, warn
from _gen.env_tables import _game
from _gen.markdown import md_table
from _gen.source import field_docs, fmt_value, obj
from _gen.training import _function_keys


#: meanings of the results.json fields that the code documents nowhere else
RESULTS_MEANINGS = {
    "game": "the game's registry name (`gin`, `rummy`)",
    "unit": "`game` (to the target) or `hand` (single deals)",
    "agents": "the agents' labels, in the order given",
    "settings": "how the tournament was played (table below)",
    "pairings": "one object per pairing (table below)",
    "ratings": "label -> `{\"elo\": rating, \"se\": standard error}`: Bradley-Terry ratings on the Elo scale, mean 0",
    "a": "label of agent A (the one whose win rate is given)",
    "b": "label of agent B (every other seat in Rummy)",
    "games": "games played (rounded up to whole duplicate sets)",
    "wins_a": "games A won",
    "wins_b": "games B won (in Rummy: games any copy of B won)",
    "draws": "games nobody won (cut off by a cap)",
    "hands": "deals played (Gin hands, Rummy rounds)",
    "seconds": "wall time of the pairing",
    "win_rate_a": "`wins_a / games`",
    "win_rate_a_ci95": "the 95% Wilson interval of `win_rate_a`, `[low, high]`",
    "games_per_pairing": "`--games`",
    "players": "seats per game",
    "duplicate": "duplicate deals (each deal with A in every seat); false with `--no-duplicate`",
    "seed": "`--seed`: every deal and agent seed derives from it",
    "chunk": "`--chunk`: games per batch (results depend on it, not on `--workers`)",
    "options": "the rule options given (`--option KEY=VALUE`)",
    "config": "the full rules config of the games (`GinConfig` / `RummyConfig` as a dict)",
    "agent_specs": "label -> the spec it was loaded from (a name with options, a checkpoint path)",
    "ray": "with `--workers`: the Ray session (workers, address, ...)",
}


def _dict_return_keys(dotted: str) -> list[str]:
    func = obj(dotted)
    tree = ast.parse(inspect.cleandoc("\n" + inspect.getsource(func)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
            return [k.value for k in node.value.keys if isinstance(k, ast.Constant)]
    return []


def gen_results_schema() -> str:
    """The fields of ``results.json``: ``Tournament.to_dict``, ``PairingResult.to_dict``
    and the settings ``run_tournament`` records, read from ``rummyrl/tournament.py``."""
    from rummyrl.tournament import PairingResult

    def meaning(key: str, fallback: str = "") -> str:
        text = RESULTS_MEANINGS.get(key) or fallback
        if not text:
            warn(f"results.json field {key!r} has no meaning in scripts/docs_gen.py RESULTS_MEANINGS")
        return text

    top = [[f"`{k}`", meaning(k)] for k in _dict_return_keys("rummyrl.tournament.Tournament.to_dict")]
    docs = field_docs(PairingResult)
    pairing = []
    for f in dataclasses.fields(PairingResult):
        d = docs.get(f.name, {})
        pairing.append([f"`{f.name}`", f"`{d.get('type', '')}`", meaning(f.name, d.get("comment", ""))])
    for k in _function_keys("rummyrl.tournament.PairingResult.to_dict", ("d",)):
        pairing.append([f"`{k}`", "`float`" if k == "win_rate_a" else "`list`", meaning(k)])
    settings = [[f"`{k}`", meaning(k)] for k in _function_keys("rummyrl.tournament.run_tournament", ("settings",))]
    return "\n\n".join([
        "**Top level** (`Tournament.to_dict`)", md_table(["key", "meaning"], top),
        "**Each pairing** (`PairingResult.to_dict`; a side is an agent's label)",
        md_table(["key", "type", "meaning"], pairing),
        "**`settings`** (`run_tournament`)", md_table(["key", "meaning"], settings),
    ])


# ======================================================================================
# Generators: the shipped networks
# ======================================================================================
def gen_model_facts(game_name: str, kind: str = "pretrained") -> str:
    """What the shipped network ``kind`` (``pretrained``, ``pretrained-plain``) of a game says
    of itself: size, parameters, network config, and the settings of the training run it came
    from."""
    from rummyrl.agents.checkpoint import load_checkpoint, pretrained_path
    from rummyrl.agents.network import NetConfig

    path = Path(pretrained_path(game_name, kind))
    ck = load_checkpoint(path)
    params = sum(int(v.numel()) for v in ck["model"].values())
    net = dataclasses.asdict(NetConfig.from_dict(ck["net_config"]))
    tc = ck.get("train_config", {})
    about = ck.get("about", {})
    rel = path.resolve().relative_to(ROOT).as_posix() if path.resolve().is_relative_to(ROOT) else path.name
    rows = [
        ["file", f"`{rel}` ({path.stat().st_size / 1e6:.1f} MB)"],
        ["game, players", f"{_game(ck['game']).title}, {ck['num_players']}"],
        ["parameters", f"{params:,}"],
        ["network (`net`)", ", ".join(f"`{k}={fmt_value(v, 'yaml')}`" for k, v in net.items())],
        ["exported from", f"`{about.get('source', '?')}`"],
    ]
    keys = ["algo", "episode", "reward", "total_steps", "time_limit_minutes", "num_envs", "rollout_steps",
            "learning_rate", "lr_schedule", "update_epochs", "ent_coef", "init", "seed"]
    rows += [[f"training `{k}`", f"`{fmt_value(tc[k], 'yaml')}`"] for k in keys if k in tc]
    if "opponents" in tc:
        rows.append(["training `opponents`", ", ".join(f"{k} {v:g}" for k, v in tc["opponents"].items())])
    if "eval" in tc:
        rows.append(["training `eval.best_by`", f"`{tc['eval'].get('best_by')}`"])
    return md_table(["", ""], rows)
