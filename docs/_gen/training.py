"""Generators: the TensorBoard keys the trainer logs, each with the meaning its module's
``METRICS`` gives it."""

from __future__ import annotations

import ast
import importlib
import inspect
import re

from _gen.common import ROOT, warn
from _gen.markdown import md_table
from _gen.source import obj


def metric_meanings() -> dict[str, str]:
    """The meaning of every TensorBoard key the training code logs, by its pattern in the code:
    the ``METRICS`` that each module of ``rummyrl/training`` keeps beside the code that logs them."""
    out = {}
    for path in sorted((ROOT / "rummyrl" / "training").glob("*.py")):
        out.update(getattr(importlib.import_module(f"rummyrl.training.{path.stem}"), "METRICS", {}))
    return out


def _fstring_pattern(node) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = ""
        for v in node.values:
            if isinstance(v, ast.Constant):
                out += str(v.value)
            else:
                out += f"<{ast.unparse(v.value)}>"
        return out
    return None


def tensorboard_calls() -> list[tuple[str, str]]:
    """(pattern, file:line) of every ``add_scalar`` in ``rummyrl/training``."""
    out = []
    for path in sorted((ROOT / "rummyrl" / "training").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in ("add_scalar", "add_scalars") and node.args:
                pat = _fstring_pattern(node.args[0])
                where = f"{path.relative_to(ROOT).as_posix()}:{node.lineno}"
                if pat is None:
                    warn(f"{where}: a TensorBoard key that is not a literal; docs_gen cannot list it")
                    continue
                out.append((pat, where))
    return out


def _function_keys(dotted: str, names: tuple[str, ...]) -> list[str]:
    """String keys of the dicts a function builds: dict literals assigned to ``names`` and
    ``name["key"] = ...`` assignments."""
    func = obj(dotted)
    tree = ast.parse(inspect.cleandoc("\n" + inspect.getsource(func)))
    keys: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name) and t.id in names and isinstance(node.value, ast.Dict):
                    keys += [k.value for k in node.value.keys if isinstance(k, ast.Constant)]
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in names \
                        and isinstance(t.slice, ast.Constant) and isinstance(t.slice.value, str):
                    keys.append(t.slice.value)
    return list(dict.fromkeys(keys))


def gen_tensorboard_keys() -> str:
    """Every TensorBoard key the training code logs, found by reading its ``add_scalar``
    calls; the keys of the update's statistics are read from ``ppo_update``, ``distill`` and
    ``exit_update`` (the update functions of :mod:`rummyrl.training.methods`' methods)."""
    rows = []
    meanings = metric_meanings()
    for pat, where in tensorboard_calls():
        if pat not in meanings:
            warn(f"{where}: TensorBoard key {pat!r} has no meaning in the METRICS of its module")
            continue
        if pat == "<section>/<k>":
            # every registered method's section, as its module's METRICS list it; the keys the
            # two methods' update functions build are checked against them (a key without a meaning warns)
            from rummyrl.training import methods

            subs = []
            for name in methods.names():
                cls = methods.get(name)
                mod = importlib.import_module(cls.__module__)
                subs += [k for k in getattr(mod, "METRICS", {}) if k.startswith(cls.section + "/")]
            subs += [f"losses/{k}" for k in _function_keys("rummyrl.training.ppo.ppo_update", ("stats", "out"))]
            subs += [f"exit/{k}" for k in _function_keys("rummyrl.training.exit.distill", ("out",))]
            subs += [f"exit/{k}" for k in _function_keys("rummyrl.training.exit.exit_update", ("upd",))]
            for s in dict.fromkeys(subs):
                if s not in meanings:
                    warn(f"TensorBoard key {s!r} (from {where}) has no meaning in the METRICS of its module")
                rows.append([f"`{s}`", f"`{where}`", meanings.get(s, "")])
            continue
        shown = re.sub(r"<(p\.b|opp)>", "<opponent>", pat.replace("<k[6:]>", "<end>"))
        meaning = meanings[pat]
        if pat == "hands/<k[6:]>_rate":
            from rummyrl import games

            meaning += ": " + "; ".join(f"{games.get(g).title}: " + ", ".join(
                f"`{e}`" for e in games.get(g).end_names if e != "none") for g in games.names())
        if pat.startswith("distill/"):
            shown = "distill/train_<k>, distill/valid_<k>"
        rows.append([f"`{shown}`", f"`{where}`", meaning])
    return md_table(["key", "logged at", "meaning"], rows)
