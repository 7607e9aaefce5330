"""The search agent: legal moves only, the same moves for the same seed, its options, and
it plays wherever an agent plays (PettingZoo policy, Gymnasium opponent, evaluate)."""

from __future__ import annotations

import numpy as np
import pytest

from rummyrl import gin, tournament
from rummyrl.agents import load_agent
from rummyrl.agents.search import SearchAgent, rollout_value

FAST = "search:worlds=4,topk=2"


def play(agent, games=12, steps=70, seed=0):
    """Search (seat 0) against expert (seat 1); every action of search is checked legal."""
    expert = load_agent("expert", game="gin")
    st = gin.init(games, seed=seed)
    moves = []
    for _ in range(steps):
        obs = gin.observe(st)
        live = np.flatnonzero(~st.game_over)
        a = np.zeros(games, np.int64)
        mine = live[st.current[live] == 0]
        theirs = live[st.current[live] == 1]
        if mine.size:
            a[mine] = agent.act(obs[mine], st.mask[mine])
            assert st.mask[mine, a[mine]].all(), "search played an illegal action"
            moves.append(a[mine].copy())
        if theirs.size:
            a[theirs] = expert.act(obs[theirs], st.mask[theirs])
        gin.step(st, a, inplace=True)
    return np.concatenate(moves)


@pytest.mark.slow
def test_search_plays_legal_moves_and_repeats_itself_for_a_seed():
    a = play(load_agent(FAST, game="gin", seed=3))
    b = play(load_agent(FAST, game="gin", seed=3))
    assert a.size > 200 and np.array_equal(a, b)


def test_search_departs_from_its_rollout_policy_only_when_values_say_so():
    """With z = 0 it takes the best mean; its values are hand points (a win of the game
    counts game_value more), within what one hand can score."""
    agent = SearchAgent(worlds=8, topk=3, z=0.0, seed=0)
    st = gin.init(8, seed=4)
    expert = load_agent("expert", game="gin")
    for _ in range(12):  # into the hand: a discard decision with several candidates
        obs = gin.observe(st)
        gin.step(st, expert.act(obs, st.mask), inplace=True)
    obs = gin.observe(st)
    cand, values = agent.action_values(obs, st.mask)
    assert cand.shape == (8, 3) and values.shape == (8, 8, 3)
    ok = ~np.isnan(values)
    assert (np.abs(values[ok]) <= 100 + 25 + 100 + 25 + 10).all()
    chosen = agent.choose(cand, values)
    mean = values.mean(1)  # NaN for padding candidates
    best = cand[np.arange(8), np.where(np.isnan(mean), -np.inf, mean).argmax(1)]
    assert np.array_equal(chosen, best)


@pytest.mark.parametrize("spec, message", [
    ("search:worlds=0", "worlds must be >= 1"),
    ("search:worlds=many", "worlds='many' must be an int"),
    ("search:depth=3", "unknown search option 'depth'"),
    ("search:worlds", "is not KEY=VALUE"),
    ("search:belief=exact", "belief must be one of"),
    ("search:rollout=nobody", "unknown agent 'nobody'"),
    ("search:opponent=search", "opponent policy of search cannot be search"),
    ("search:knock=-3", "knock must be a deadwood limit"),
    ("expert:worlds=3", "expert parameters: unknown config key 'worlds'"),
    ("random:worlds=3", "agent 'random' takes no options"),
    ("search:rollout=expert:w_gin=30,lookahead=4", r"unknown search option 'lookahead'.*goes in parentheses"),
    ("search:rollout=(expert:w_gin=30,worlds=8", r"a '\(' without its '\)'"),
    ("search:rollout=expert),worlds=8", r"a '\)' without its '\('"),
    ("search:rollout=(expert:lookahead=12)", "lookahead must be in 0..11, got 12"),
])
def test_bad_spec_is_a_clear_error(spec, message):
    with pytest.raises(ValueError, match=message):
        load_agent(spec, game="gin")


def test_an_agent_with_options_of_its_own_goes_in_parentheses():
    agent = load_agent("search:rollout=(expert:lookahead=4,w_danger=3,w_gin=30),worlds=8,"
                       "opponent=(expert:w_gin=10)", game="gin")
    assert agent.options["worlds"] == 8
    assert (agent.rollout.params.lookahead, agent.rollout.params.w_danger, agent.rollout.params.w_gin) == (4, 3.0, 30.0)
    assert (agent.opponent.params.lookahead, agent.opponent.params.w_gin) == (2, 10.0)
    rummy = load_agent("search:rollout=(planner:swap_margin=24,w_outs=10),worlds=4", game="rummy")
    assert (rummy.rollout.params.swap_margin, rummy.rollout.params.w_outs) == (24.0, 10.0)


def test_tournaments_environments_and_play_give_search_the_rules_of_their_games():
    """Worlds dealt and rollouts played by the engine's default rules would be other games
    than the ones search is in (a knock limit of 10 where the game's is 5)."""
    import gymnasium

    from rummyrl import envs  # noqa: F401 (registers the ids)
    from rummyrl import rummy

    def world_rules(agent, game, config):
        state = game.init(2, seed=0, config=config)
        return agent.worlds(game.observe(state), 2, np.random.default_rng(0)).state.config

    agent = load_agent(FAST, game="gin", seed=0)
    assert world_rules(agent, gin, gin.GinConfig(knock_limit=5)).knock_limit == 10  # nobody told it
    spec = tournament.match_config("gin", "hand", None, {"knock_limit": 5})
    tournament.play_pairing(agent, load_agent("random", game="gin"), spec, 2, seed=0)
    assert world_rules(agent, gin, spec).knock_limit == 5
    other = load_agent(FAST, game="gin", seed=0)
    gymnasium.make("rummyrl/GinRummy-v0", opponent=other, episode="hand", knock_limit=7)
    assert world_rules(other, gin, other.config).knock_limit == 7
    r = load_agent("search:worlds=2,topk=2", game="rummy", seed=0)
    config = rummy.RummyConfig(num_players=3, stock_passes=2, episode="round")
    gymnasium.make("rummyrl/Rummy-v0", opponent=r, num_players=3, episode="round", stock_passes=2)
    assert world_rules(r, rummy, config).stock_passes == 2
    from rummyrl.agents.play import make_session

    session = make_session("gin", FAST, seed=0, options={"knock_limit": 6})  # python -m rummyrl.agents.play
    assert world_rules(session.agent, gin, session.state.config).knock_limit == 6
    with pytest.raises(ValueError, match="search for 'rummy' plays by a RummyConfig"):
        r.set_rules(gin.GinConfig())


def test_search_is_a_pettingzoo_policy_and_a_gymnasium_opponent():
    import gymnasium

    from rummyrl import envs  # noqa: F401 (registers the ids)
    from rummyrl.envs import gin_rummy_v0

    agent = load_agent(FAST, game="gin", seed=0)
    env = gin_rummy_v0.env(episode="hand")
    env.reset(seed=1)
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        action = None if term or trunc else agent(obs["observation"], obs["action_mask"])
        env.step(action)
    g = gymnasium.make("rummyrl/GinRummy-v0", opponent=agent, episode="hand")
    obs, info = g.reset(seed=0)
    done = False
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        obs, reward, term, trunc, info = g.step(int(legal[0]))
        done = term or trunc


@pytest.mark.slow
def test_evaluate_plays_search_in_hands_against_random():
    """Through evaluate's pairing (all games batched): search, even with 4 worlds, wins
    nearly every hand against random play."""


    spec = tournament.match_config("gin", "hand")
    r = tournament.play_pairing(load_agent(FAST, game="gin", seed=0), load_agent("random", game="gin", seed=0),
                              spec, 20, seed=5)
    assert r.games == 20 and r.wins_a >= 16


def test_play_in_the_terminal_against_search():
    """``python -m rummyrl.agents.play --opponent search:...``: the session's opponent is the
    search agent, and as the non-dealer it answers the upcard offer first."""
    import io
    import re

    from rummyrl.agents import play

    session = play.make_session("gin", "search:worlds=2,topk=2", seat=0, seed=0, dealers=0,
                                decks=np.arange(52))
    out = io.StringIO()
    assert play.play(session, io.StringIO("?\n"), out) == 0
    assert re.search(r"search:worlds=2,topk=2 (passes on|takes) the upcard", out.getvalue())


@pytest.mark.parametrize("players", [2, 4])
def test_rummy_search_plays_legal_moves(players):
    from rummyrl import rummy

    agent = load_agent("search:worlds=3,topk=2", game="rummy", seed=1)
    expert = load_agent("expert", game="rummy")
    st = rummy.init(6, seed=2, config=rummy.RummyConfig(num_players=players, episode="round"))
    searched = 0
    for _ in range(60):
        live = np.flatnonzero(~st.game_over)
        if not live.size:
            break
        obs = rummy.observe(st)
        a = np.zeros(6, np.int64)
        mine = live[st.current[live] == 0]
        theirs = live[st.current[live] != 0]
        if mine.size:
            a[mine] = agent.act(obs[mine], st.mask[mine])
            assert st.mask[mine, a[mine]].all(), "search played an illegal action"
            searched += mine.size
        if theirs.size:
            a[theirs] = expert.act(obs[theirs], st.mask[theirs])
        rummy.step(st, a, inplace=True)
    assert searched > 20


def test_options_of_the_other_game_are_refused():
    with pytest.raises(ValueError, match="unknown search option.*'gamma'.*for rummy"):
        load_agent("search:gamma=0.1", game="rummy")
    with pytest.raises(ValueError, match="unknown search option.*'oversample'.*for gin"):
        load_agent("search:oversample=2", game="gin")


def test_rollouts_are_scored_up_to_the_horizon_and_zero_beyond():
    """Rollouts that end within ``horizon`` actions (the last one included) get their
    hand's value; longer ones are worth 0. Checked against playing the hands out by hand."""
    from rummyrl import gin_beliefs

    expert = load_agent("expert", game="gin")
    st = gin.init(16, seed=8)
    for _ in range(6):
        gin.step(st, expert.act(gin.observe(st), st.mask), inplace=True)
    worlds = gin_beliefs.sample_worlds(gin.observe(st), 2, np.random.default_rng(0)).state
    ref = worlds.copy()
    length = np.zeros(ref.batch_size, int)
    while not ref.game_over.all():
        live = ~ref.game_over
        a = np.zeros(ref.batch_size, np.int64)
        a[live] = expert.act(gin.observe(ref)[live], ref.mask[live])
        gin.step(ref, a, inplace=True, active=live)
        length[live] += 1
    horizon = int(np.sort(length)[len(length) // 2])  # some rollouts end on exactly this action
    agent = SearchAgent(worlds=2, horizon=horizon, seed=0)
    values = agent._play_out(worlds.copy())
    full = rollout_value(ref, agent.options)
    assert (length == horizon).any() and (length > horizon).any()
    assert np.array_equal(values[length <= horizon], full[length <= horizon])
    assert (values[length > horizon] == 0).all()


def test_rummy_win_value_is_added_to_the_rounds_the_searcher_goes_out_in():
    from rummyrl import rummy

    expert = load_agent("expert", game="rummy")
    st = rummy.init(64, seed=2, config=rummy.RummyConfig(num_players=4, episode="round"))
    while not st.game_over.all():
        live = ~st.game_over
        a = np.zeros(st.batch_size, np.int64)
        a[live] = expert.act(rummy.observe(st)[live], st.mask[live])
        rummy.step(st, a, inplace=True, active=live)
    plain = SearchAgent("rummy", seed=0, win_value=0.0)
    keen = SearchAgent("rummy", seed=0, win_value=50.0)
    won = st.last_winner == 0
    assert won.any() and (~won).any()
    diff = rollout_value(st, keen.options) - rollout_value(st, plain.options)
    assert np.array_equal(diff, np.where(won, 50.0, 0.0))


def test_the_opponent_model_plays_the_other_seat_of_the_rollouts():
    """``opponent=`` changes who plays seat 1 of the rollouts, and only that: naming the
    rollout policy itself gives the same values as the default, another policy other ones."""
    st = gin.init(6, seed=11)
    expert = load_agent("expert", game="gin")
    for _ in range(10):
        gin.step(st, expert.act(gin.observe(st), st.mask), inplace=True)
    obs = gin.observe(st)
    values = {}
    for opponent in ("", "expert", "random"):
        agent = SearchAgent(worlds=6, topk=3, seed=2, **({"opponent": opponent} if opponent else {}))
        _, values[opponent] = agent.action_values(obs, st.mask)
    assert np.array_equal(values[""], values["expert"], equal_nan=True)
    assert not np.allclose(values[""], values["random"], equal_nan=True)


class _SeatSpy:
    """An agent that plays like ``inner`` and records which seat each call acted for."""

    def __init__(self, inner, seat, log):
        self.inner, self.seat, self.log = inner, seat, log
        self.game = "gin"

    def reset(self, seed=None):
        pass

    def act(self, obs, mask):
        self.log.append((self.seat, obs.shape[0]))
        return self.inner.act(obs, mask)


def test_rollout_policy_and_opponent_act_for_their_own_seats(monkeypatch):
    """In the rollouts the rollout policy acts only for the searching seat and the opponent
    model only for the other: the rows each is given are those of its seat."""
    st = gin.init(4, seed=12)
    expert = load_agent("expert", game="gin")
    for _ in range(8):
        gin.step(st, expert.act(gin.observe(st), st.mask), inplace=True)
    agent = SearchAgent(worlds=4, topk=2, opponent="simple", seed=0)
    log = []
    agent.rollout, agent.opponent = _SeatSpy(expert, 0, log), _SeatSpy(load_agent("simple", game="gin"), 1, log)
    seen = []
    engine_step = agent.g.engine.step

    def step(state, actions, inplace=False, **kw):
        seen.append(state.current.copy())
        return engine_step(state, actions, inplace=inplace, **kw)

    monkeypatch.setattr(agent.g.engine, "step", step)
    agent._play_out(gin_worlds(gin.observe(st), 4))
    assert {s for s, _ in log} == {0, 1}
    # every step's batch is split by seat: the calls' row counts add up to the rows to act
    calls = iter(log)
    for current in seen[:20]:
        for seat in (0, 1):
            rows = int((current == seat).sum())
            if rows:
                assert next(calls) == (seat, rows)


def gin_worlds(obs, n):
    from rummyrl import gin_beliefs

    return gin_beliefs.sample_worlds(obs, n, np.random.default_rng(0)).state


def _search_curve_module():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "docs" / "research" / "scripts" / "search_curve.py"
    spec = importlib.util.spec_from_file_location("search_curve", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_search_curve_saves_each_point_and_reuses_it(tmp_path, monkeypatch):
    """docs/research/scripts/search_curve.py: each point is the match evaluate would play with the same
    spec and seed; a rerun reuses the saved points (a killed run loses only the point in
    progress), and a saved point of another match is refused, not silently reused."""
    import json



    sc = _search_curve_module()
    args = ["--worlds", "2", "3", "--model", "expert=topk=2", "--games", "4", "--seed", "5", "--quiet",
            "--max-hands", "3", "--out", str(tmp_path)]
    assert sc.main(args) == 0
    curve = json.loads((tmp_path / "curve.json").read_text())
    assert [p["spec"] for p in curve["points"]] == ["search:topk=2,worlds=2", "search:topk=2,worlds=3"]
    assert (tmp_path / "curve.png").stat().st_size > 0
    direct = tournament.run_tournament(["search:topk=2,worlds=3", "simple"], games=4, seed=5,
                                     options={"max_hands": 3}, show_progress=False).pairings[0]
    assert curve["points"][1]["wins"] == direct.wins_a and curve["points"][1]["games"] == direct.games == 4
    alone = tournament.run_tournament(["expert", "simple"], games=4, seed=5, options={"max_hands": 3},
                                    show_progress=False).pairings[0]
    assert curve["baseline"]["spec"] == "expert" and curve["baseline"]["wins"] == alone.wins_a

    def must_not_play(*a, **k):
        raise AssertionError("a saved point was played again")

    monkeypatch.setattr(sc, "run_tournament", must_not_play)
    (tmp_path / "curve.json").unlink()
    assert sc.main(args) == 0 and json.loads((tmp_path / "curve.json").read_text()) == curve
    with pytest.raises(SystemExit, match="another match"):
        sc.main([a if a != "5" else "6" for a in args])
    monkeypatch.undo()
    # against the baseline itself the baseline is even by symmetry and not played
    assert sc.main(["--against", "expert", "--worlds", "2", "--games", "2", "--quiet", "--max-hands", "2",
                    "--out", str(tmp_path / "vs_expert")]) == 0
    assert json.loads((tmp_path / "vs_expert" / "curve.json").read_text())["baseline"] is None
