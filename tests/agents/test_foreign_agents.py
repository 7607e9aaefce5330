"""Bring your own agent (agents/foreign.py, agents/exported.py): a policy function named
``module:function`` and a policy module saved with torch.export load with ``load_agent``, play a
tournament and sit across the table from a learner; a foreign action its mask does not
allow, a wrong shape or a spec that names nothing is a one-line error."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
import torch

from rummyrl import games, training
from rummyrl.agents import load_agent
from rummyrl.agents.foreign import is_callable_spec, is_exported
from rummyrl.agents.exported import ExportedAgent, save_policy
from rummyrl.tournament import run_tournament
from tiny_runs import only  # noqa: E402  (tests/ is on sys.path)

POLICIES = '''
import numpy as np

def lowest(observations, action_masks):
    """The lowest legal action of each row."""
    return action_masks.argmax(1)

def illegal(observations, action_masks):
    return np.full(len(observations), -1)

def ragged(observations, action_masks):
    return np.zeros((len(observations), 2), np.int64)

NOT_A_FUNCTION = 3
'''


@pytest.fixture
def policies(tmp_path, monkeypatch):
    (tmp_path / "my_policies.py").write_text(textwrap.dedent(POLICIES))
    monkeypatch.syspath_prepend(str(tmp_path))
    return "my_policies"


@pytest.mark.parametrize("game", ["gin", "rummy"])
def test_a_policy_function_plays_the_lowest_legal_action(policies, game):
    g = games.get(game)
    agent = load_agent(f"{policies}:lowest", game=game)
    state = g.engine.init(16, seed=3, config=g.make_config({}))
    obs, masks = g.engine.observe(state), state.mask
    assert agent.act(obs, masks).tolist() == [int(np.flatnonzero(m)[0]) for m in masks]


def test_a_policy_function_plays_a_tournament_and_trains_against_a_learner(policies, tmp_path):
    t = run_tournament([f"{policies}:lowest", "random"], game="gin", games=20, unit="hand", show_progress=False)
    (pairing,) = t.pairings
    assert pairing.games == 20
    cfg = training.load_config(None, only((f"{policies}:lowest", 1)) + ["eval.games=2", "eval.final_games=0"])
    tr = training.train(cfg, run_dir=tmp_path / "run", progress=False)
    assert tr.global_step > 0


@pytest.mark.parametrize("name, words", [("illegal", "returned action -1 for observation 0"),
                                         ("ragged", "it must return (4,) integer actions"),
                                         ("NOT_A_FUNCTION", "is a int, not a function"),
                                         ("nothing_here", "has no 'nothing_here'")])
def test_a_bad_policy_function_is_a_one_line_error(policies, name, words):
    g = games.get("gin")
    state = g.engine.init(4, seed=0, config=g.make_config({}))
    with pytest.raises(ValueError) as e:
        load_agent(f"{policies}:{name}", game="gin").act(g.engine.observe(state), state.mask)
    assert words in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_an_unimportable_module_names_the_form():
    with pytest.raises(ValueError, match="cannot import module 'no_such_module_here'.*'package.module:function'"):
        load_agent("no_such_module_here:policy", game="gin")


def test_which_specs_are_policy_functions():
    assert is_callable_spec("pkg.mod:fn") and is_callable_spec("mod:Class.method")
    assert not any(is_callable_spec(s) for s in ("expert:lookahead=4", "search:worlds=16,topk=3", "runs/a.pt",
                                                  "simple", "C:/models/a.pt"))


class Logits(torch.nn.Module):
    def __init__(self, obs_dim: int, actions: int):
        super().__init__()
        self.linear = torch.nn.Linear(obs_dim, actions)

    def forward(self, x):
        return self.linear(x)


@pytest.mark.parametrize("game", ["gin", "rummy"])
def test_an_exported_module_plays_the_best_legal_logit(tmp_path, game):
    g = games.get(game)
    torch.manual_seed(0)
    net = Logits(g.obs_dim, g.num_actions)
    path = tmp_path / "policy.pt2"
    save_policy(net, game, path)
    assert is_exported(path)
    agent = load_agent(str(path), game=game)
    assert isinstance(agent, ExportedAgent)
    state = g.engine.init(32, seed=1, config=g.make_config({}))
    obs, masks = g.engine.observe(state), state.mask
    with torch.no_grad():
        logits = net(torch.from_numpy(np.asarray(obs, np.float32))).numpy()
    want = [int(np.flatnonzero(m)[np.argmax(lg[m])]) for lg, m in zip(logits, masks)]
    assert agent.act(obs, masks).tolist() == want


def test_a_checkpoint_is_not_taken_for_an_exported_module(tmp_path):
    path = tmp_path / "weights.pt"
    torch.save({"a": torch.zeros(2)}, path)
    assert not is_exported(path) and not is_exported(tmp_path / "missing.pt")


def test_an_exported_module_of_the_wrong_width_is_a_one_line_error(tmp_path):
    g = games.get("gin")
    path = tmp_path / "narrow.pt2"
    batch = torch.export.Dim("batch", min=1)  # saved by hand, as a user of torch.export alone would
    program = torch.export.export(Logits(g.obs_dim, 5), (torch.zeros(2, g.obs_dim),), dynamic_shapes=({0: batch},))
    torch.export.save(program, path)
    state = g.engine.init(2, seed=0, config=g.make_config({}))
    with pytest.raises(ValueError, match=r"returned shape \(2, 5\).*must return \(2, 108\) logits"):
        load_agent(str(path), game="gin").act(g.engine.observe(state), state.mask)


class MaskReader(torch.nn.Module):
    """A policy that reads its mask: the highest legal action has the highest logit (all
    logits would be 0 without the mask, and the greedy pick the lowest legal action)."""

    def forward(self, obs, mask):
        return mask * torch.arange(1, mask.shape[1] + 1, dtype=torch.float32) + obs[:, :1] * 0


def test_an_exported_module_that_reads_the_mask_gets_it(tmp_path):
    g = games.get("gin")
    save_policy(MaskReader(), "gin", tmp_path / "reader.pt2", reads_mask=True)
    state = g.engine.init(8, seed=2, config=g.make_config({}))
    agent = load_agent(str(tmp_path / "reader.pt2"), game="gin")
    assert agent.inputs == 2
    assert agent.act(g.engine.observe(state), state.mask).tolist() == [int(np.flatnonzero(m)[-1]) for m in state.mask]


def test_an_exported_policy_sits_at_the_web_table(tmp_path):
    """rummyrl-web --opponent PATH.pt2: the person plays a whole game against an agent trained
    elsewhere, through the API, as against a built-in one."""
    pytest.importorskip("starlette")
    from web_support import play_whole_game  # noqa: E402  (tests/ is on sys.path)
    from web_support import web_client  # noqa: E402

    from rummyrl.web import create_app

    g = games.get("gin")
    torch.manual_seed(0)
    path = tmp_path / "policy.pt2"
    save_policy(Logits(g.obs_dim, g.num_actions), "gin", path)
    client = web_client(create_app([str(path)], rules={"target": 40}))
    (opponent,) = client.get("/api/config").json()["opponents"]
    assert opponent["spec"] == str(path) and not opponent["why_not"].get("gin")
    gid, answers = play_whole_game(client, "gin", None, seed=5)
    assert answers[-1]["over"] and len(answers) > 2
