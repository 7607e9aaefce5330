"""Generators: the environments' spaces, rewards, rule options and pages, read from the
environment modules and their docstrings."""

from __future__ import annotations

import importlib
import re

from _gen.common import warn
from _gen.env_tables import _game, action_blocks, gen_action_table, gen_obs_table
from _gen.markdown import docstring_of, md_table, rst_to_markdown
from _gen.options import gen_config_table
from _gen.source import obj, source_file


def _box(space) -> str:
    import numpy as np

    return f"`Box({float(np.min(space.low)):g}, {float(np.max(space.high)):g}, {space.shape}, {space.dtype})`"


def _space(space) -> str:
    from gymnasium import spaces

    if isinstance(space, spaces.Dict):
        return "`Dict(" + ", ".join(f'"{k}": ' + _space(v).strip("`") for k, v in space.spaces.items()) + ")`"
    if isinstance(space, spaces.Box):
        return _box(space)
    return f"`{space}`"


#: each game's PettingZoo module and batched classes (the registry names neither)
PETTINGZOO_MODULES = {"gin": "rummyrl.envs.gin_rummy_v0", "rummy": "rummyrl.envs.rummy_v0"}
BATCHED_CLASSES = {"gin": ("rummyrl.envs.gin_vector.GinSelfPlay", "rummyrl.envs.gin_vector.GinRummyVectorEnv"),
                   "rummy": ("rummyrl.envs.rummy_vector.RummySelfPlay", "rummyrl.envs.rummy_vector.RummyVectorEnv")}


def gen_spaces(kind: str, game_name: str) -> str:
    """The table of spaces at the top of an environment's page, from a live environment
    with the default arguments."""
    import gymnasium
    import numpy as np

    import rummyrl.envs as envs

    g = _game(game_name)
    rows = []
    if kind == "pettingzoo":
        module = PETTINGZOO_MODULES[g.name]
        env = obj(module).raw_env()
        a0 = env.possible_agents[0]
        obs, act = env.observation_space(a0), env.action_space(a0)
        high = obs["observation"].high
        rows = [
            ["Import", f"`from rummyrl.envs import {module.rsplit('.', 1)[1]}`"],
            ["Actions", type(act).__name__],
            ["Parallel API", "Yes" if env.metadata.get("is_parallelizable") else
             "No (a turn is several actions: turns do not alternate action by action)"],
            ["Manual control", "No (`python -m rummyrl.agents.play` is a terminal game against an agent)"],
            ["Agents", f"`{env.possible_agents}`" + ("" if g.min_players == g.max_players else
                                                      f" (`num_players={g.default_players}`, the default)")],
            ["Number of agents", str(g.min_players) if g.min_players == g.max_players
             else f"{g.min_players} to {g.max_players}"],
            ["Action shape", f"`{act}`"],
            ["Action values", f"0 .. {act.n - 1}"],
            ["Observation shape", f"`{obs['observation'].shape}`, {obs['observation'].dtype}, plus an action mask "
                                  f"`{obs['action_mask'].shape}`, {obs['action_mask'].dtype}"],
            ["Observation values", f"0 .. {float(np.max(high)):.3g} (each part's bounds: the table below)"],
            ["Observation space", _space(obs)],
        ]
    elif kind == "gymnasium":
        env_id = {"gin": envs.GIN_ENV_ID, "rummy": envs.RUMMY_ENV_ID}[g.name]
        spec = gymnasium.spec(env_id)
        env = gymnasium.make(env_id)
        rows = [
            ["Make", f'`gymnasium.make("{env_id}")` (after `import rummyrl.envs`)'],
            ["Class", f"`{spec.entry_point.replace(':', '.')}`"],
            ["Vector class", f"`{spec.vector_entry_point.replace(':', '.')}` (`gymnasium.make_vec`)"],
            ["Action space", f"`{env.action_space}`"],
            ["Observation space", _space(env.observation_space)],
            ["Players", f"{g.default_players}" if g.min_players == g.max_players else
             f"{g.min_players} to {g.max_players} (`num_players`, default {g.default_players}): the learner and "
             f"{g.default_players - 1} opponents"],
        ]
        env.close()
    elif kind == "batched":
        from rummyrl.envs.batched import SelfPlay

        selfplay, vector = BATCHED_CLASSES[g.name]
        env = SelfPlay(g.name, num_envs=4)
        batch = env.reset(seed=0)
        vec = obj(vector)(num_envs=4)
        rows = [
            ["Self-play class", f"`{selfplay}` (`rummyrl.envs.batched.SelfPlay(\"{g.name}\", ...)`)"],
            ["`batch.player`, `.obs`, `.mask`", f"`{batch.player.shape}` {batch.player.dtype}, "
                                                 f"`{batch.obs.shape}` {batch.obs.dtype}, `{batch.mask.shape}` {batch.mask.dtype} (B = 4)"],
            ["`batch.rewards`", f"`{batch.rewards.shape}` {batch.rewards.dtype}: one column per seat"],
            ["`batch.final`", ", ".join(f"`{k}`" for k in batch.final)],
            ["Vector env", f"`{type(vec).__module__}.{type(vec).__name__}`"],
            ["Vector spaces (B = 4)", f"action `{vec.action_space}`, observation {_space(vec.observation_space)}"],
        ]
        vec.close()
    else:
        raise ValueError(f"spaces: kind must be pettingzoo, gymnasium or batched, got {kind!r}")
    return md_table(["", ""], rows)


def gen_rewards(game_name: str) -> str:
    """The reward schemes of a game: the table of its rewards module's docstring, and its
    scheme names and scales from the code."""
    from rummyrl import games

    g = _game(game_name)
    cls = games.load(g.rewards)
    module = importlib.import_module(cls.__module__)
    doc = rst_to_markdown(docstring_of(module))
    return doc + "\n\n" + gen_reward_scales(game_name)


def gen_reward_scales(game_name: str) -> str:
    """One line: a game's reward scheme names and scales, from its reward class."""
    from rummyrl import games

    g = _game(game_name)
    cls = games.load(g.rewards)
    module = importlib.import_module(cls.__module__)
    schemes = ", ".join(f"`{s}`" for s in cls.schemes())
    consts = [f"`{k} = {getattr(module, k):g}`" for k in dir(module) if k.endswith("_SCALE") and not k.startswith("_")]
    return (f"From the code: the schemes are {schemes} (`{cls.__module__}.SCHEMES`, computed by "
            f"`{cls.__module__}.{cls.__name__}`); {', '.join(consts)}.")


def gen_rule_options(game_name: str) -> str:
    """The rule options of a game: its engine config's fields, defaults and docstrings."""
    cls = _game(game_name).config_cls
    return gen_config_table(f"{cls.__module__}.{cls.__name__}", "python")


def _split_sections(doc: str) -> tuple[str, list[tuple[str, str]]]:
    parts = re.split(r"^## (.+)$", doc, flags=re.M)
    return parts[0], [(parts[k].strip(), parts[k + 1]) for k in range(1, len(parts), 2)]


def _first_table(text: str) -> tuple[str, list[str], str]:
    """(before, table lines, after) of the first Markdown table in ``text``."""
    lines = text.split("\n")
    start = next((k for k, l in enumerate(lines) if l.lstrip().startswith("|")), None)
    if start is None:
        return text, [], ""
    end = start
    while end < len(lines) and lines[end].lstrip().startswith("|"):
        end += 1
    return "\n".join(lines[:start]), lines[start:end], "\n".join(lines[end:])


def _table_rows(table: list[str]) -> list[list[str]]:
    rows = [[c.strip() for c in re.split(r"(?<!\\)\|", l.strip())[1:-1]] for l in table]
    return [r for r in rows[2:]] if len(rows) > 2 else []


def _check_obs_rows(module: str, game_name: str, rows: list[list[str]]) -> None:
    """The docstring's hand-written layout table against OBS_LAYOUT (drift is a warning)."""
    layout = _game(game_name).engine.OBS_LAYOUT
    named = set()
    for r in rows:
        m = re.match(r"(\d+)", r[0])
        names = re.findall(r"`(\w+)`", r[1])
        named.update(names)
        if m and names and names[0] in layout and layout[names[0]].start != int(m.group(1)):
            warn(f"{module}: its observation table puts {names[0]!r} at {m.group(1)}, "
                 f"OBS_LAYOUT at {layout[names[0]].start}")
    missing = [k for k in layout if k not in named]
    if missing:
        warn(f"{module}: its observation table does not list {missing} (OBS_LAYOUT does)")


def _check_action_rows(module: str, game_name: str, header: list[str], rows: list[list[str]]) -> None:
    col = next((k for k, h in enumerate(header) if h.strip("` ") == "ids"), 0)
    starts = {a for _, a, _, _ in action_blocks(game_name)}
    found = set()
    for r in rows:
        m = re.match(r"\s*(\d+)", r[col])
        if m:
            found.add(int(m.group(1)))
    if found != starts:
        warn(f"{module}: its action table starts blocks at {sorted(found)}, the constants at {sorted(starts)}")


def gen_env_page(module: str) -> str:
    """A PettingZoo environment's page: its module docstring (PettingZoo's format), with the
    table of spaces, the observation layout and the action table generated from the code
    (the docstring's own tables are checked against it), and its rule options appended to
    the arguments."""
    mod = obj(module)
    game_name = mod.raw_env.game.name
    doc = docstring_of(mod)
    pre, sections = _split_sections(doc)
    before, _, after = _first_table(pre)
    src = source_file(mod)
    out = [before.rstrip(), "", gen_spaces("pettingzoo", game_name), "", after.strip(), "",
           f'!!! info "Generated"\n    This page is the docstring of `{src}`; its tables of spaces, observation '
           f"and actions are generated from the code at build time (`OBS_LAYOUT`, the action constants), "
           f"so they match the installed version."]
    for title, body in sections:
        out += ["", f"## {title}", ""]
        if title.startswith("Observation"):
            b, table, a = _first_table(body)
            if table:
                _check_obs_rows(module, game_name, _table_rows(table))
            out += [b.strip(), "", gen_obs_table(game_name), "", a.strip()]
        elif title.startswith("Action"):
            b, table, a = _first_table(body)
            if table:
                header = [c.strip() for c in table[0].strip().strip("|").split("|")]
                _check_action_rows(module, game_name, header, _table_rows(table))
            out += [b.strip(), "", gen_action_table(game_name), "", a.strip(), "", "## Action mask", "",
                    gen_action_mask(module)]
        elif title.startswith("Reward"):
            out += [body.strip(), "", gen_reward_scales(game_name)]
        elif title.startswith("Arguments"):
            cls = _game(game_name).config_cls
            out += [body.strip(), "", f"### Rule options (`{cls.__name__}`)", "", gen_rule_options(game_name)]
        else:
            out.append(body.strip())
    return "\n".join(out).rstrip() + "\n"


def gen_action_mask(module: str) -> str:
    """The action mask of a PettingZoo environment: its space, from a live environment."""
    env = obj(module).raw_env()
    space = env.observation_space(env.possible_agents[0])["action_mask"]
    return (f'`observe(agent)["action_mask"]` is a {_box(space)}: 1 for each action that is legal for '
            f"`agent` now, 0 for the others, and all 0 when it is not `agent`'s turn or the episode is over. "
            f"It is the engine's own mask (`state.mask`), computed by the rules of the phase, so it is exact: "
            f"every action it allows is legal, and stepping any other raises (`raw_env`) or ends the episode "
            f"(`env()`), as [below](#illegal-moves-and-episode-ends). Sample from it, or mask the logits with it.")
