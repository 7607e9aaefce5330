"""The game registry (rummyrl.games): each entry agrees with its engine, every layer
reads a game through it, and the rule experts read their parameters by name."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rummyrl import games
from rummyrl.agents import load_agent
from rummyrl.agents import gin_expert, rummy_expert
from rummyrl.cards import NUM_CARDS
from rummyrl.random_play import random_actions

ENGINE_API = ("init", "step", "observe", "legal_mask", "reset_done", "game_result", "game_info", "action_name",
              "IllegalActionError", "NUM_ACTIONS", "OBS_DIM", "OBS_LAYOUT", "PHASE_NAMES", "END_NAMES")


def positions(game, n=64, steps=40, seed=0, players=None):
    """Observations and masks of ``n`` games after ``steps`` random moves each."""
    g = games.get(game)
    config = g.make_config(players=players)
    state = g.engine.init(n, seed=seed, config=config)
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    for _ in range(steps):
        live = np.flatnonzero(~state.game_over)
        o = g.engine.observe(state)
        obs.append(o[live])
        masks.append(state.mask[live].copy())
        g.engine.step(state, random_actions(state.mask, rng), inplace=True)
        g.engine.reset_done(state)
    return np.concatenate(obs), np.concatenate(masks)


@pytest.mark.parametrize("name", games.names())
def test_each_entry_agrees_with_its_engine(name):
    g = games.get(name)
    for attr in ENGINE_API:
        assert hasattr(g.engine, attr), attr
    assert g.num_actions == g.engine.NUM_ACTIONS and g.obs_dim == g.engine.OBS_DIM
    blocks = [*g.card_blocks, *(b for b in (g.meld_block, g.layoff_block, g.end_actions) if b is not None)]
    for b in blocks:
        assert 0 <= b.start < b.stop <= g.num_actions
    for b in g.card_blocks:
        assert b.stop - b.start == NUM_CARDS
        assert all(g.engine.action_name(a).endswith(("s", "h", "d", "c")) for a in range(b.start, b.stop))
    assert g.take_action in g.draw_actions and g.engine.action_name(g.take_action) == "take_discard"
    # the card planes come first in the observation and are the top-discard plane's neighbours
    assert g.card_planes * NUM_CARDS <= g.obs_dim and g.top_discard.stop <= g.card_planes * NUM_CARDS
    state = g.engine.init(2, seed=0, config=g.make_config(episode="hand"))
    for field in (f"{g.deal}_ended", f"{g.deal}_no", f"{g.deal}s_won"):
        assert hasattr(state, field), field
    assert set(g.search_defaults) >= set(g.belief_options)
    for kind in ("agents", "preferences", "params"):
        for entry in getattr(g, kind).values():
            assert callable(games.load(entry)), entry
    for entry in (g.rewards, g.renderer, g.observation_high, g.session):
        assert callable(games.load(entry)), entry
    assert games.of_config(state.config) is g


@pytest.mark.parametrize("name", games.names())
def test_players_and_rules_are_checked_by_the_entry(name):
    g = games.get(name)
    assert g.check_players(None) == g.default_players
    for bad in (g.min_players - 1, g.max_players + 1):
        with pytest.raises(ValueError, match=rf"{g.title} is played by .* players, not {bad}"):
            g.make_config(players=bad)
    with pytest.raises(ValueError, match="must be an integer"):
        g.check_players(2.5)
    with pytest.raises(ValueError, match="unknown config key"):
        g.make_config({"no_such_rule": 1})
    assert g.make_config(episode="hand").episode == g.deal
    assert g.make_config(episode=g.deal).episode == g.deal
    with pytest.raises(ValueError, match="an episode is 'hand'"):
        g.make_config(episode="match")


def test_unknown_games_and_entry_points_are_clear_errors():
    with pytest.raises(ValueError, match=r"unknown game 'poker'; choose one of \['gin', 'rummy'\]"):
        games.get("poker")
    with pytest.raises(ValueError, match=r"unknown game 'poker'"):
        load_agent("simple", game="poker")
    with pytest.raises(ValueError, match="a game named 'gin' is registered already"):
        games.register(games.get("gin"))
    with pytest.raises(ValueError, match="an entry point is 'module:attribute'"):
        games.load("rummyrl.gin")
    with pytest.raises(ValueError, match="is not the rules config of any registered game"):
        games.of_config(object())


def reordered(params):
    """The same values in a dataclass whose fields come in the reverse order."""
    fields = list(reversed(dataclasses.fields(params)))
    cls = dataclasses.make_dataclass("Reordered", [(f.name, f.type, dataclasses.field(default=f.default))
                                                   for f in fields], frozen=True)
    return cls(**{f.name: getattr(params, f.name) for f in fields})


@pytest.mark.parametrize("game, module, text", [
    ("gin", gin_expert, "w_danger=3,take_margin=0.5,knock_early=8,knock_slope=2,knock_floor=1,lookahead=4,w_gin=30"),
    ("rummy", rummy_expert, "w_danger=3,w_outs=10,swap_margin=24,fit_outs=1,hold_outs=2,w_danger_close=30,"
                            "close_cards=4"),
])
def test_the_experts_read_their_parameters_by_name_not_by_position(game, module, text):
    params = module.parse_params(text)
    obs, masks = positions(game)
    pref = module.expert_preferences(obs, masks, params)
    swapped = reordered(params)
    assert [f.name for f in dataclasses.fields(swapped)] != [f.name for f in dataclasses.fields(params)]
    assert np.array_equal(module.expert_preferences(obs, masks, swapped), pref)
    # and the parameters matter: the defaults play otherwise somewhere
    assert not np.array_equal(module.expert_preferences(obs, masks, None), pref)
    missing = dataclasses.make_dataclass("Missing", [("w_danger", float)], frozen=True)(1.0)
    with pytest.raises(ValueError, match="the kernel reads"):
        module.expert_preferences(obs, masks, missing)
