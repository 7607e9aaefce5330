"""The layers of docs/architecture.md, enforced on the source: what may import what, no
import cycles, no imports hidden in functions, no branch on a game's name outside the
registry and the engines, and rule agents that work without torch."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: source folder -> the package it installs as (pyproject.toml's package-dir)
PACKAGES = {"rummyrl": "rummyrl", "agents": "rummyrl.agents", "envs": "rummyrl.envs"}

#: layer of each module, by its longest matching name prefix (docs/architecture.md)
LAYERS = {
    "rummyrl": 0,  # engines: everything in rummyrl/ that is not named below
    "rummyrl.games": 1,
    "rummyrl.agents": 2,
    "rummyrl.agents.network": 3,
    "rummyrl.agents.checkpoint": 3,
    "rummyrl.agents.neural": 3,
    "rummyrl.agents.exported": 3,
    "rummyrl.agents.libraries": 3,
    "rummyrl.envs": 4,
    "rummyrl.tournament": 5,
    "rummyrl.distributed": 5,
    "rummyrl.report": 5,
    "rummyrl.records": 5,
    "rummyrl.reasons": 5,
    "rummyrl.training": 6,
    "rummyrl.training.cli": 7,
    "rummyrl.evaluate": 7,
    "rummyrl.exploit": 7,
    "rummyrl.league": 7,
    "rummyrl.demo": 7,
    "rummyrl.agents.play": 7,
    "rummyrl.agents.play_session": 7,
    "rummyrl.agents.play_gin": 7,
    "rummyrl.agents.play_rummy": 7,
    "rummyrl.web": 7,
}
LAYER_NAMES = ("engines", "registry", "agents", "networks", "envs", "tournaments", "training", "CLIs")
#: third-party packages each layer may import beside the standard library
THIRD_PARTY = {
    0: {"numpy", "numba", "pydantic", "annotated_types"},  # rummyrl.settings: pydantic validates every settings class
    1: {"numpy"},
    2: {"numpy", "numba"},
    3: {"numpy", "torch"},
    4: {"numpy", "gymnasium", "pettingzoo"},
    5: {"numpy", "torch", "tqdm", "ray", "matplotlib"},
    6: {"numpy", "torch", "yaml", "tqdm", "ray", "matplotlib", "tensorboard"},
    7: {"numpy", "torch", "yaml", "tqdm", "matplotlib", "ray", "starlette", "uvicorn"},
}
#: the one module that reads other RL libraries' saved formats may import those libraries
#: (optional extras: inside a function, as LAZY_OK says)
LIBRARY_FORMATS = {"rummyrl.agents.libraries": {"ray", "sb3_contrib", "stable_baselines3"}}
#: imports allowed inside a function: optional extras, and packages slow to import that
#: only one rarely used path needs (rummyrl.web.server needs the web extra: rummyrl.web
#: imports it once it has checked that the extra is there, to say so in one line if not)
LAZY_OK = ("ray", "matplotlib", "tensorboard", "torch.utils.tensorboard", "importlib", "rummyrl.web.server")


def library_modules() -> dict[str, Path]:
    out = {}
    for folder, package in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT / folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            out[".".join([package, *parts])] = path
    return out


MODULES = library_modules()


def layer(module: str) -> int:
    best = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return LAYERS[best]


def imports(module: str, path: Path):
    """``(imported module, line, inside a function)`` for every import of the file."""
    tree = ast.parse(path.read_text())
    is_package = path.name == "__init__.py"
    out = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                out.extend((a.name, child.lineno, in_function) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = module.split(".")
                    base = base if is_package else base[:-1]
                    base = base[: len(base) - (child.level - 1)]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module
                names = [f"{target}.{a.name}" for a in child.names]
                # "from . import gin" imports the module rummyrl.gin; "from .x import y" imports x
                out.extend((n if n in MODULES else target, child.lineno, in_function) for n in names)
            visit(child, inner)

    visit(tree, False)
    return out


def own(name: str) -> str | None:
    """The library module an import names (a package's ``__init__`` for its name)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def test_every_module_is_in_a_layer_and_imports_only_downward():
    bad = []
    for module, path in MODULES.items():
        mine = layer(module)
        for name, line, _ in imports(module, path):
            if name.split(".")[0] == "rummyrl":
                target = own(name)
                if target is None:
                    bad.append(f"{path.relative_to(ROOT)}:{line} imports {name}, which does not exist")
                elif layer(target) > mine:
                    bad.append(f"{path.relative_to(ROOT)}:{line} ({LAYER_NAMES[mine]}) imports {target} "
                               f"({LAYER_NAMES[layer(target)]})")
            else:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in THIRD_PARTY[mine] | LIBRARY_FORMATS.get(module, set()):
                    bad.append(f"{path.relative_to(ROOT)}:{line} ({LAYER_NAMES[mine]}) imports {top}")
    assert not bad, "\n".join(bad)


def test_no_module_level_import_cycle():
    graph = {m: set() for m in MODULES}
    for module, path in MODULES.items():
        for name, _, in_function in imports(module, path):
            target = own(name) if name.startswith("rummyrl") else None
            if target and target != module and not in_function:
                graph[module].add(target)
    # a package's __init__ importing its own submodules is how packages are built
    cycles, state = [], {}

    def walk(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt]
                if not all(a.startswith(b + ".") or b.startswith(a + ".") or a == b
                           for a, b in zip(cycle, cycle[1:])):
                    cycles.append(" -> ".join(cycle))
            elif nxt not in state:
                walk(nxt, stack)
        stack.pop()
        state[node] = 2

    for m in sorted(graph):
        if m not in state:
            walk(m, [])
    assert not cycles, "\n".join(cycles)


def test_no_import_hides_in_a_function():
    hidden = [f"{path.relative_to(ROOT)}:{line} imports {name} inside a function"
              for module, path in MODULES.items() for name, line, in_function in imports(module, path)
              if in_function and not any(name == ok or name.startswith(ok + ".") for ok in LAZY_OK)]
    assert not hidden, "\n".join(hidden)


#: where a game may be named in code: its own modules, and the registry
GAME_NAMED_IN = ("rummyrl/games.py", "rummyrl/gin", "rummyrl/rummy", "agents/gin_", "agents/rummy_",
                 "agents/play_gin", "agents/play_rummy", "envs/gin_", "envs/rummy_", "envs/gym_")


def test_no_branch_on_a_games_name_outside_the_registry_and_the_games_own_modules():
    branch = re.compile(r"""(==|!=|\bin)\s*\(?["'](gin|rummy)["']|["'](gin|rummy)["']\s*(==|!=)""")
    found = []
    for module, path in MODULES.items():
        rel = str(path.relative_to(ROOT))
        if rel.startswith(GAME_NAMED_IN):
            continue
        for i, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0]
            if branch.search(code):
                found.append(f"{rel}:{i}: {line.strip()}")
    assert len(found) <= 5, "\n".join(found)


@pytest.mark.slow
def test_rule_agents_and_the_envs_work_where_torch_cannot_be_imported():
    code = """
import sys
sys.modules["torch"] = None  # "import torch" now raises ImportError
import numpy as np
from rummyrl import games
from rummyrl.agents import load_agent
from rummyrl.agents import features, gin_expert, gin_simple, random_agent, rummy_expert, rummy_planner, rummy_simple, search, split
import gymnasium, rummyrl.envs
for name, game in games.GAMES.items():
    state = game.engine.init(4, seed=0)
    obs = game.engine.observe(state)
    for spec in ["random", *game.agents, "search:worlds=2,topk=2"]:
        agent = load_agent(spec, game=name, seed=0)
        assert game.engine.step(state.copy(), agent.act(obs, state.mask)) is not None
    features.action_features("expert", name, obs, state.mask)
env = gymnasium.make("rummyrl/Rummy-v0", opponent="expert")
env.reset(seed=0)
try:
    load_agent("pretrained", game="gin")
except ImportError:
    pass
else:
    raise AssertionError("a network loaded without torch")
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]


@pytest.mark.parametrize("path", ["docs/architecture.md"])
def test_the_architecture_page_names_every_layer(path):
    text = (ROOT / path).read_text()
    for name in LAYER_NAMES:
        assert name in text, name


def _prose(path: Path):
    """``(line, text)`` of every comment and docstring of a module."""
    import io
    import tokenize

    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield node.body[0].lineno, doc
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            yield node.lineno, node.value.value  # attribute docstrings
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text()).readline):
        if tok.type == tokenize.COMMENT:
            yield tok.start[0], tok.string


@pytest.mark.slow
def test_library_code_cites_no_readme_section_and_quotes_no_win_rate():
    """Docstrings and comments say what the code does and why; results live in the docs,
    generated from JSON (a number typed into a docstring drifts)."""
    rate = re.compile(r"\b\d{1,3}(\.\d+)?%")
    found = [f"{path.relative_to(ROOT)}:{i}: cites the README" for path in MODULES.values()
             for i, line in enumerate(path.read_text().splitlines(), 1) if "README, " in line]
    for module, path in MODULES.items():
        for line, text in sorted(set(_prose(path))):
            if "README" in text:
                found.append(f"{path.relative_to(ROOT)}:{line}: cites the README")
            for m in rate.finditer(text):
                if m.group(0) not in ("95%", "100%"):
                    found.append(f"{path.relative_to(ROOT)}:{line}: quotes {m.group(0)}")
    assert not found, "\n".join(found)
