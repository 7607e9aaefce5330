"""The generators by name, and the expansion of ``<!-- gen: NAME ARGS -->`` markers."""

from __future__ import annotations

import shlex

from _gen.commands import gen_cli_help, gen_configs, gen_scripts
from _gen.common import FENCE_RE, MARKER_RE, warn
from _gen.env_pages import gen_action_mask, gen_env_page, gen_reward_scales, gen_rewards, gen_rule_options, gen_spaces
from _gen.env_tables import gen_action_table, gen_obs_table
from _gen.notebooks import gen_notebooks
from _gen.options import gen_agents_matrix, gen_config_table, gen_docstring, gen_docstring_box, gen_search_options, gen_signature, gen_value
from _gen.results import gen_model_facts, gen_results_schema
from _gen.training import gen_tensorboard_keys


GENERATORS = {
    "env_page": gen_env_page,
    "spaces": gen_spaces,
    "obs_table": gen_obs_table,
    "action_table": gen_action_table,
    "action_mask": gen_action_mask,
    "rewards": gen_rewards,
    "reward_scales": gen_reward_scales,
    "rule_options": gen_rule_options,
    "docstring": gen_docstring,
    "docstring_box": gen_docstring_box,
    "signature": gen_signature,
    "value": gen_value,
    "config_table": gen_config_table,
    "search_options": gen_search_options,
    "agents_matrix": gen_agents_matrix,
    "tensorboard_keys": gen_tensorboard_keys,
    "cli_help": gen_cli_help,
    "configs": gen_configs,
    "scripts": gen_scripts,
    "results_schema": gen_results_schema,
    "model_facts": gen_model_facts,
    "notebooks": gen_notebooks,
}


def expand_markers(markdown: str, where: str = "") -> str:
    """Replace each ``<!-- gen: NAME ARGS -->`` line (outside fenced code) with its part."""
    out, in_fence = [], False
    for line in markdown.split("\n"):
        if FENCE_RE.match(line):
            in_fence = not in_fence
        m = None if in_fence else MARKER_RE.match(line)
        if not m:
            out.append(line)
            continue
        name, args = m.group(1), shlex.split(m.group(2))
        if name not in GENERATORS:
            warn(f"{where}: unknown generator {name!r}; known: {sorted(GENERATORS)}")
            out.append(line)
            continue
        try:
            out.append(GENERATORS[name](*args))
        except Exception as e:  # a broken generator must fail the build, naming the page
            warn(f"{where}: generator {name} {args} failed: {type(e).__name__}: {e}")
            out.append(line)
    return "\n".join(out)
