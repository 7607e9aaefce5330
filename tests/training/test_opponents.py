"""Any agent as a training opponent: ``opponents:`` and ``eval.opponents`` take every spec
``load_agent`` builds (a checkpoint path, a name with options, ``search``, a shipped
network), in both games. The pool draws each with its weight, plays exactly that agent's
moves, keeps its generator across a resume, and a spec that builds no agent is a one-line
error naming the allowed forms."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from rummyrl import games, training
from rummyrl.agents import load_agent
from rummyrl.agents.checkpoint import load_checkpoint, pretrained_path
from rummyrl.training.config import ConfigError
from rummyrl.training.pool import SELF, OpponentPool, opponent_kinds
from rummyrl.training.config import to_overrides
from tiny_runs import TINY, only  # noqa: E402  (tests/ is on sys.path)

def test_the_pool_draws_each_spec_with_its_weight_and_plays_its_moves():
    """Weights 1:3 between a checkpoint path and a name with options: the draws follow them
    (a binomial test), and the rows of each kind get exactly the moves that agent, built by
    load_agent with the pool's seed, plays on them."""
    ckpt = str(pretrained_path("gin", "pretrained"))
    cfg = training.load_config(None, only((ckpt, 1), ("expert:lookahead=4", 3)))
    pool = OpponentPool(cfg, np.random.default_rng(5))
    assert pool.kinds[-2:] == [ckpt, "expert:lookahead=4"]
    kind, _ = pool.draw(4000)
    share = np.mean(kind == pool.kinds.index(ckpt))
    assert abs(share - 0.25) < 5 * np.sqrt(0.25 * 0.75 / 4000), share
    assert set(np.unique(kind)) == {pool.kinds.index(ckpt), pool.kinds.index("expert:lookahead=4")}

    state = games.get("gin").engine.init(64, seed=3)
    obs, mask = games.get("gin").engine.observe(state), state.mask
    kind = np.resize([pool.kinds.index(ckpt), pool.kinds.index("expert:lookahead=4")], 64)
    got = pool.act(kind, np.zeros(64, np.int64), obs, mask, np.zeros((64, 1)))
    for k in np.unique(kind):
        rows = kind == k
        want = load_agent(pool.kinds[k], game="gin", seed=cfg.seed + k).act(obs[rows], mask[rows])
        assert np.array_equal(got[rows], want), pool.kinds[k]
    assert mask[np.arange(64), got].all()


@pytest.mark.slow
@pytest.mark.parametrize("game, spec", [("gin", "expert:lookahead=4"), ("rummy", "pretrained"),
                                        ("rummy", "search:worlds=2,topk=2")])
def test_a_run_against_a_spec_plays_only_it_and_resumes_exactly(game, spec, tmp_path):
    """A tiny run whose only opponent is ``spec``: every game it finishes was against that
    agent, and stopped after one update then resumed it ends with the weights, games in
    progress and agent generators of the uninterrupted run."""
    cfg = training.load_config(None, only((spec, 1)) + [f"game={game}", "eval.games=2", "eval.final_games=0"])
    whole = training.train(cfg, run_dir=tmp_path / "whole", progress=False)
    k = whole.pool.kinds.index(spec)
    assert set(np.unique(whole.lanes.kind)) == {k} and k in whole.pool.baselines
    assert whole.pool.baselines[k].name == load_agent(spec, game=game).name
    first = training.train(cfg, run_dir=tmp_path / "split", max_updates=1, progress=False)
    assert first.updates == 1
    data = load_checkpoint(tmp_path / "split" / "last.pt", game)
    assert data["train_config"]["opponents"][spec] == 1.0
    resumed = training.train(cfg, run_dir=tmp_path / "split", resume=data, progress=False)
    assert resumed.global_step == whole.global_step
    for name, p in whole.net.state_dict().items():
        assert torch.allclose(p, resumed.net.state_dict()[name], atol=1e-6, rtol=0), name
    assert np.array_equal(whole.lanes.env.state.hands, resumed.lanes.env.state.hands)
    a, b = whole.pool.baselines[k], resumed.pool.baselines[k]
    if hasattr(a, "rng"):
        assert a.rng.bit_generator.state == b.rng.bit_generator.state


@pytest.mark.slow
def test_eval_opponents_take_any_spec_and_best_by_names_one(tmp_path):
    ckpt = str(pretrained_path("gin", "pretrained-plain"))
    cfg = training.load_config(None, TINY + [f"eval.opponents=[simple, '{ckpt}']", f"eval.best_by={ckpt}",
                                          "eval.games=2", "eval.every_minutes=0.0001"])
    tr = training.train(cfg, run_dir=tmp_path / "run", progress=False)
    assert set(tr.last_eval["win_rate"]) == {"simple", "pretrained/gin-plain"}
    assert tr.best_score == max(tr.best_score, tr.last_eval["score"])
    assert tr.last_eval["score"] == tr.last_eval["win_rate"]["pretrained/gin-plain"]


@pytest.mark.parametrize("override, words", [
    ("opponents={nobody: 1}", ["opponents: 'nobody'", "self_play, snapshots,", "checkpoint path"]),
    ("opponents={'runs/none/best.pt': 1}", ["opponents: 'runs/none/best.pt'", "checkpoint path"]),
    ("opponents={'expert:colour=red': 1}", ["opponents: 'expert:colour=red'", "colour"]),
    ("eval.opponents=[simple, nobody]", ["eval.opponents: 'nobody'", "a name with options"]),
    ("opponents={simple: -1}", ["opponents.simple must be >= 0, got -1"]),
    ("opponents=[simple]", ["opponents must be a mapping"]),
])
def test_a_spec_that_builds_no_agent_is_a_one_line_error(override, words):
    with pytest.raises(ConfigError) as e:
        training.load_config(None, TINY + [override])
    msg = str(e.value)
    assert "\n" not in msg and all(w in msg for w in words), msg


def test_kinds_keep_the_named_defaults_first_and_overrides_round_trip():
    """A config naming an agent spec draws the named kinds as before (their order does not
    depend on which a config names), and its saved form loads back to the same weights."""
    cfg = training.load_config(None, ["opponents={'expert:lookahead=4': 0.5, simple: 0.1}"])
    assert opponent_kinds(cfg.opponents) == ["self_play", "snapshots", "simple", "expert", "random",
                                             "expert:lookahead=4"]
    assert cfg.opponents["self_play"] == 0.4 and cfg.opponents["simple"] == 0.1  # defaults kept, one changed
    import dataclasses
    again = training.load_config(None, to_overrides(dataclasses.asdict(cfg)))
    assert again.opponents == cfg.opponents and list(again.opponents) == list(cfg.opponents)
    assert OpponentPool(cfg, np.random.default_rng(0)).kinds.index("self_play") == SELF
