"""The card table as HTML (``rummyrl.envs.render_html``): what a seat sees and what it does
not, the environments' ``render_mode="html"``, and the records training's final report
writes beside its results."""

from __future__ import annotations

import re
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import rummyrl.envs  # noqa: F401 (the Gymnasium ids)
from rummyrl import games, records, training
from rummyrl.agents.network import PolicyNet
from rummyrl.cards import card_str
from rummyrl.envs import gin_rummy_v0, rummy_v0
from rummyrl.envs.render_html import render_html, table_html, table_view
from rummyrl.training.evaluation import report_run

ROOT = Path(__file__).resolve().parents[2]


def shown(html: str) -> set[str]:
    return set(re.findall(r'data-card="(\w\w)"', html))


@pytest.mark.parametrize("game, players", [("gin", 2), ("rummy", 4)])
def test_a_seat_sees_its_hand_the_pile_and_known_cards_only(game, players):
    g = games.get(game)
    config = g.make_config({}, players=players)
    state = g.engine.init(1, seed=5, config=config)
    for _ in range(9):  # play on a little: takes from the pile make known cards
        legal = np.flatnonzero(state.mask[0])
        take = g.take_action if state.mask[0, g.take_action] else legal[-1]
        g.engine.step(state, np.array([take]), inplace=True)
    names = [f"p{q}" for q in range(players)]
    for me in range(players):
        view = table_view(state, 0, names, viewer=me)
        html = table_html(view)
        allowed = {card_str(c) for c in np.flatnonzero(state.hands[0, me])}
        allowed |= {card_str(int(c)) for c in state.pile[0, :int(state.pile_len[0])]}
        for q in range(players):
            allowed |= {card_str(c) for c in np.flatnonzero(state.hands[0, q] & state.known[0, q])}
        if hasattr(state, "table_slot"):  # Rummy's melds on the table
            allowed |= {card_str(c) for c in np.flatnonzero(state.table_slot[0] >= 0)}
        assert shown(html) <= allowed and shown(html) >= {card_str(c) for c in np.flatnonzero(state.hands[0, me])}
        assert "cards" not in view["stock"]
        assert html.count("rrl-card back") == 1 + sum(int(state.hands[0, q].sum()) - int(
            (state.hands[0, q] & state.known[0, q]).sum()) for q in range(players) if q != me)
    everything = table_html(table_view(state, 0, names))
    assert len(shown(everything)) == 52  # from above: every hand, the pile and the stock
    with pytest.raises(ValueError, match="viewer must be a seat"):
        table_view(state, 0, names, viewer=players)
    with pytest.raises(ValueError, match="names must name"):
        table_view(state, 0, names[:1])


def test_render_mode_html_in_both_kinds_of_environment():
    env = gin_rummy_v0.env(render_mode="html", episode="hand")
    env.reset(seed=3)
    first = env.render()
    assert first.startswith("<div class='rrl'><style>") and len(shown(first)) == 52
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        if term or trunc:
            break
    assert 'class="rrl-ended"' in env.render()  # the hand as it was shown down
    env = rummy_v0.env(num_players=3, render_mode="html")
    env.reset(seed=1)
    assert 'data-zone="table"' in env.render()
    genv = gymnasium.make("rummyrl/Rummy-v0", num_players=3, opponent="simple", render_mode="html")
    genv.reset(seed=0)
    assert "(you)" in genv.render() and "(opponent)" in genv.render()
    with pytest.raises(ValueError, match="render_mode must be one of"):
        gin_rummy_v0.env(render_mode="svg")


def test_render_html_of_a_batch_game():
    state = games.get("gin").engine.init(3, seed=1)
    html = render_html(state, 2, viewer=0)
    assert "player_0" in html and len(shown(html)) == 11  # 10 cards and the upcard


def test_trainings_final_report_writes_replayable_records(tmp_path):
    cfg = training.load_config(str(ROOT / "configs" / "gin_rummy.yaml"),
                            ["net.hidden=16", "net.layers=1", "eval.final_games=4", "eval.opponents=[simple]"])
    net = PolicyNet(cfg.game, cfg.net)
    report_run(cfg, tmp_path, net=net)
    recs = records.read_records(tmp_path / "eval" / records.FILE_NAME)
    assert len(recs) == 4 and {r["seats"][r["a_seat"]] for r in recs} == {"policy"}
    for rec in recs:
        records.replay(rec)
