"""Learning past the teacher: expert iteration end to end, the plain network's inputs, and
the bounded cost of evaluating weak policies."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import torch

from rummyrl import evaluate, games, gin, melds, training
from rummyrl.agents import load_agent
from rummyrl.agents.checkpoint import load_checkpoint
from rummyrl.agents.features import PRIOR_ILLEGAL
from rummyrl.agents.network import NetConfig, PolicyNet
from rummyrl.agents.neural import NeuralAgent
from rummyrl.engine_features import gin_features
from rummyrl.training import exit as exit_mod

from tiny_runs import TINY_EXIT  # noqa: E402  (tests/ is on sys.path)

ROOT = Path(__file__).resolve().parents[2]

def positions(n=64, steps=9, seed=0):
    """Observations and masks of the player to act, a few moves into expert games."""
    expert = load_agent("expert", game="gin")
    st = gin.init(n, seed=seed)
    for _ in range(steps):
        gin.step(st, expert.act(gin.observe(st), st.mask), inplace=True)
    return gin.observe(st), st.mask.copy()


@pytest.mark.slow
def test_a_tiny_expert_iteration_run_end_to_end(tmp_path):
    """Search data, distillation, checkpoint, evaluation: the records hold search's choices
    and their returns, the network moves towards them, the checkpoint plays."""
    cfg = training.load_config(ROOT / "configs" / "gin_rummy_exit.yaml", TINY_EXIT)
    assert cfg.algo == "exit" and cfg.episode == "hand"
    seen = []
    tr = training.train(cfg, run_dir=tmp_path / "run", progress=False, on_update=lambda t: seen.append(t.method.buffer.size))
    assert tr.updates == 3 and seen[-1] > 0 and seen == sorted(seen)
    buf = tr.method.buffer.data
    n = tr.method.buffer.size
    assert buf["mask"][np.arange(n), buf["target"][:n]].all(), "a recorded search choice is illegal"
    assert (np.abs(buf["ret"][:n]) <= 5.0).all()  # hand points / 25 (a hand scores at most ~125)
    assert np.abs(buf["ret"][:n]).max() > 0  # some hands ended with points
    for name in ("last.pt", "final.pt", "best.pt"):
        assert (tmp_path / "run" / name).is_file()
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(tmp_path / "run"))
    acc.Reload()
    tags = set(acc.Tags()["scalars"])
    assert {"exit/policy_loss", "exit/value_loss", "exit/accuracy", "exit/search_departs"} <= tags
    t = evaluate.run_tournament([str(tmp_path / "run" / "final.pt"), "simple"], game="gin", games=4,
                                show_progress=False)
    assert t.pairings[0].games == 4


@pytest.mark.slow
def test_distillation_learns_the_teachers_choices():
    """On a fixed buffer of decisions, distillation raises the network's agreement with the
    targets (here the random-but-legal choices of a made-up teacher) well above chance."""
    obs, mask = positions(256)
    rng = np.random.default_rng(0)
    target = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
    net = PolicyNet("gin", NetConfig(hidden=64, layers=2, prior_scale=0.0, features="none"))
    feats = np.where(mask, 0.0, PRIOR_ILLEGAL).astype(np.float16)
    buf = exit_mod.ReplayBuffer(1000)
    buf.add({"obs": obs, "prior": feats, "mask": mask, "target": target, "net_choice": target,
             "ret": np.zeros(len(obs), np.float32)})
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    before = exit_mod.distill(net, opt, buf, 1, 256, 0.5, 0.5, np.random.default_rng(1))
    exit_mod.distill(net, opt, buf, 300, 256, 0.5, 0.5, np.random.default_rng(2))
    after = exit_mod.distill(net, opt, buf, 1, 256, 0.5, 0.5, np.random.default_rng(3))
    legal = mask.sum(1).mean()
    assert before["accuracy"] < 2.5 / legal
    assert after["accuracy"] > 0.9 and after["policy_loss"] < before["policy_loss"] / 3


@pytest.mark.slow
@pytest.mark.parametrize("weight, learned", [(4.0, "departure"), (0.25, "agreement")])
def test_depart_weight_decides_between_conflicting_targets(weight, learned):
    """Each position twice: once where search agreed with the network (target a1), once where
    it departed (target a2). The weight of departures decides which one the network learns."""
    obs, mask = positions(128)
    rng = np.random.default_rng(4)
    a1 = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
    a2 = np.array([rng.choice(np.flatnonzero(m & (np.arange(m.size) != x))) for m, x in zip(mask, a1)])
    torch.manual_seed(0)
    net = PolicyNet("gin", NetConfig(hidden=64, layers=2, prior_scale=0.0, features="none"))
    feats = np.where(mask, 0.0, PRIOR_ILLEGAL).astype(np.float16)
    buf = exit_mod.ReplayBuffer(1000)
    twice = lambda x: np.concatenate([x, x])  # noqa: E731
    buf.add({"obs": twice(obs), "prior": twice(feats), "mask": twice(mask), "target": np.concatenate([a1, a2]),
             "net_choice": twice(a1), "ret": np.zeros(2 * len(obs), np.float32)})
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    exit_mod.distill(net, opt, buf, 300, 256, 0.5, 0.5, np.random.default_rng(2), depart_weight=weight)
    with torch.no_grad():
        logits, _ = net(torch.from_numpy(obs), torch.from_numpy(feats).float(), torch.from_numpy(mask))
    choice = logits.argmax(1).numpy()
    share = (choice == (a2 if learned == "departure" else a1)).mean()
    assert share > 0.9, share


@pytest.mark.slow
def test_record_values_keeps_search_values_beside_its_choice(tmp_path):
    """exit.record_values: every record keeps search's candidates and its mean value of each;
    its choice (the target) is among the candidates and, with z=0, the one of the best mean;
    the policy target stays its choice. A teacher without values is refused."""
    cfg = training.load_config(ROOT / "configs" / "gin_rummy_exit.yaml",
                            TINY_EXIT + ["exit.record_values=true", "exit.teacher=search:worlds=2,topk=2,z=0"])
    tr = training.train(cfg, run_dir=tmp_path / "values", progress=False)
    n = tr.method.buffer.size
    d = tr.method.buffer.data
    assert n > 0 and "pi" not in d
    cand, q, target = d["cand"][:n].astype(np.int64), d["q"][:n], d["target"][:n]
    searched = np.isfinite(q).sum(1) > 1
    assert searched.any() and (cand[searched] == target[searched, None]).any(1).all()
    best = cand[searched, np.nanargmax(np.where(np.isfinite(q[searched]), q[searched], -np.inf), 1)]
    assert np.array_equal(target[searched], best)
    assert (cand[~searched, 0] == target[~searched]).all()  # one candidate: nothing to weigh
    with pytest.raises(training.ConfigError, match="exit.record_values needs the action values of a search teacher"):
        training.load_config(ROOT / "configs" / "gin_rummy_exit.yaml", ["exit.record_values=true", "exit.teacher=expert"])


@pytest.mark.slow
def test_a_data_run_with_learn_false_leaves_the_network_as_it_started(tmp_path):
    """exit.learn=false: the records come and the losses are logged, the weights do not move
    (the optimizer never steps); with learn=true the same run moves them."""
    same, stepped = {}, {}
    for learn in ("false", "true"):
        cfg = training.load_config(ROOT / "configs" / "gin_rummy_exit.yaml", TINY_EXIT + [f"exit.learn={learn}"])
        start = training.Trainer(cfg, tmp_path / "start")
        start.setup()
        seen = []
        tr = training.train(cfg, run_dir=tmp_path / learn, progress=False, on_update=lambda t: seen.append(t.method.buffer.size))
        assert tr.updates == 3 and seen[-1] > 0
        same[learn] = all(torch.equal(p, tr.net.state_dict()[k]) for k, p in start.net.state_dict().items())
        stepped[learn] = bool(tr.opt.state)
    assert same == {"false": True, "true": False} and stepped == {"false": False, "true": True}


@pytest.mark.slow
def test_with_exit_plays_network_the_teacher_labels_positions_it_does_not_choose(tmp_path):
    """exit.plays=network (DAgger): the network plays and the teacher only labels, so two
    teachers see the very same positions; with exit.plays=teacher the games follow the
    teacher and differ."""
    obs = {}
    for plays in ("network", "teacher"):
        for teacher in ("simple", "random"):
            cfg = training.load_config(ROOT / "configs" / "gin_rummy_exit.yaml", TINY_EXIT + [
                f"exit.plays={plays}", f"exit.teacher={teacher}", "rollout_steps=120", "exit.buffer=100000",
                "total_steps=1440"])  # one iteration: its data are made before any distillation
            tr = training.train(cfg, run_dir=tmp_path / f"{plays}_{teacher}", progress=False)
            n = tr.method.buffer.size
            obs[plays, teacher] = tr.method.buffer.data["obs"][:n].copy()
            target = tr.method.buffer.data["target"][:n]
            if plays == "network":  # the labels are the teacher's, not the moves played
                assert (target != tr.method.buffer.data["net_choice"][:n]).mean() > 0.2
    a, b = obs["network", "simple"], obs["network", "random"]
    assert len(a) == len(b) > 100 and np.array_equal(a, b)
    c, d = obs["teacher", "simple"], obs["teacher", "random"]
    assert len(c) != len(d) or not np.array_equal(c, d)
    with pytest.raises(training.ConfigError, match="exit.plays must be one of 'teacher' or 'network'"):
        training.load_config(ROOT / "configs" / "gin_rummy_exit.yaml", ["exit.plays=search"])


def test_q_gain_is_search_value_of_the_chosen_moves_minus_the_base_moves():
    from rummyrl.training.offline import q_gain

    rec = {"cand": np.array([[3, 5, -1], [3, 5, 7], [2, 4, -1], [1, 2, -1], [1, 2, -1]]),
           "q": np.array([[10.0, 4.0, np.nan], [0.0, 6.0, 2.0], [np.nan] * 3, [1.0, 9.0, np.nan],
                          [1.0, 9.0, np.nan]])}
    pick, base = np.array([5, 7, 2, 1, 8]), np.array([3, 5, 4, 1, 1])
    # -6 and -4 points; agreeing counts 0; unsearched rows and moves search did not value are left out
    assert np.isclose(q_gain(rec, pick, base), -10.0 / 3)
    assert np.isclose(q_gain(rec, base, pick), 10.0 / 3)
    assert np.isnan(q_gain({k: v[2:3] for k, v in rec.items()}, pick[2:3], base[2:3]))


def test_clear_departures_keeps_only_search_departures_worth_min_gain():
    from rummyrl.training.offline import clear_departures

    # row 0: departs for +25; 1: for +5; 2: the network's move unvalued; 3: search kept the
    # network's move; 4: departs for exactly +20
    rec = {"cand": np.array([[3, 5, -1], [3, 5, 7], [2, 4, -1], [1, 2, -1], [6, 8, -1]]),
           "q": np.array([[30.0, 5.0, np.nan], [6.0, 1.0, 0.0], [9.0, np.nan, np.nan], [4.0, 1.0, np.nan],
                          [-10.0, -30.0, np.nan]]),
           "target": np.array([3, 3, 2, 1, 6]), "net_choice": np.array([5, 5, 4, 1, 8])}
    out, weak = clear_departures(rec, 20.0)
    assert out["target"].tolist() == [3, 5, 4, 1, 6] and weak == 2
    assert rec["target"].tolist() == [3, 3, 2, 1, 6]  # the records passed in are left as they were
    assert clear_departures(rec, 26.0)[0]["target"].tolist() == [5, 5, 4, 1, 8]
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="min_gain must be > 0"):
            clear_departures(rec, bad)
    with pytest.raises(ValueError, match="needs search's values"):
        clear_departures({k: v for k, v in rec.items() if k != "q"}, 20.0)


@pytest.mark.slow
def test_an_offline_fit_can_keep_the_epoch_whose_moves_search_values_most(tmp_path):
    """offline.fit(select="q_gain") on records with search's values: epoch 0 (the untrained
    network with the expert prior plays the expert's moves) gains exactly 0 over the expert,
    and the checkpoint kept is the epoch with the highest held-out q_gain; records without
    values are refused for it."""
    from rummyrl.training import offline

    cfg = training.load_config(ROOT / "configs" / "gin_rummy_exit.yaml", TINY_EXIT + [
        "exit.record_values=true", "exit.save_records=true", "rollout_steps=24", "total_steps=1152"])
    training.train(cfg, run_dir=tmp_path / "run", progress=False)
    fit_cfg = training.load_config(ROOT / "configs" / "gin_rummy_exit.yaml", [
        "net.hidden=32", "learning_rate=0.003", "minibatch_size=64"])
    out = tmp_path / "fit.pt"
    rows = offline.fit(fit_cfg, tmp_path / "run" / "records", out, epochs=4, valid_every=2,
                       log=lambda *_: None, select="q_gain")
    assert rows[0]["valid_q_gain_expert"] == 0.0 and all(np.isfinite(r["valid_q_gain"]) for r in rows)
    best = max(rows, key=lambda r: r["valid_q_gain"])
    assert load_checkpoint(out, "gin")["about"]["epoch"] == best["epoch"]
    with pytest.raises(ValueError, match="select must be one of"):
        offline.fit(fit_cfg, tmp_path / "run" / "records", out, epochs=1, valid_every=2, select="accuracy")
    # min_gain: search's weak departures are validated as the network's choice: fewer departures
    cleared = offline.fit(fit_cfg, tmp_path / "run" / "records", tmp_path / "clear.pt", epochs=0, valid_every=2,
                          log=lambda *_: None, min_gain=1e9)
    assert rows[0]["valid_depart_share"] > 0 and cleared[0]["valid_depart_share"] == 0.0
    with pytest.raises(ValueError, match="min_gain must be > 0"):  # refused before any record is read
        offline.fit(fit_cfg, tmp_path / "no_records", out, epochs=1, valid_every=2, min_gain=-1.0)

    # the target is search's choice: records with its values train the network as records without them
    def weights(name):
        offline.fit(fit_cfg, tmp_path / "run" / "records", tmp_path / name, epochs=1, valid_every=2,
                    log=lambda *_: None)
        return load_checkpoint(tmp_path / name, "gin")["model"]

    with_values = weights("values.pt")
    for f in (tmp_path / "run" / "records").glob("records_*.npz"):
        d = dict(np.load(f))
        del d["q"], d["cand"]
        np.savez(f, **d)
    without_values = weights("choices.pt")
    assert all(torch.equal(with_values[k], without_values[k]) for k in with_values)
    with pytest.raises(ValueError, match="needs search's values in the records"):
        offline.fit(fit_cfg, tmp_path / "run" / "records", out, epochs=1, valid_every=2, select="q_gain")


@pytest.mark.slow
def test_a_knock_phase_run_records_only_the_knock_decisions(tmp_path):
    """exit.phase=knock: the teacher plays (and is recorded at) the positions that allow a
    knock, the network everywhere else; a draw-phase run records only draws."""
    from rummyrl.agents.split import draw_rows, knock_rows

    for phase, rows in (("knock", knock_rows), ("draw", draw_rows)):
        cfg = training.load_config(ROOT / "configs" / "gin_rummy_exit.yaml",
                                TINY_EXIT + [f"exit.phase={phase}", "rollout_steps=40", "total_steps=1440"])
        tr = training.train(cfg, run_dir=tmp_path / phase, progress=False)
        n = tr.method.buffer.size
        mask = tr.method.buffer.data["mask"][:n]
        assert n > 0 and rows("gin", mask).all(), f"{phase}: a recorded decision is not one of the phase's"
        assert mask[np.arange(n), tr.method.buffer.data["target"][:n]].all()
    with pytest.raises(training.ConfigError, match="exit.phase=knock: knock decisions do not exist in Rummy"):
        training.load_config(ROOT / "docs" / "research" / "configs" / "rummy_exit.yaml", ["exit.phase=knock"])
    with pytest.raises(training.ConfigError, match="exit.phase=stock: stock decisions do not exist in Gin Rummy"):
        training.load_config(ROOT / "configs" / "gin_rummy_exit.yaml", ["exit.phase=stock"])


def test_search_decide_reports_the_values_its_choice_came_from():
    obs, mask = positions(24, steps=7)
    agent = load_agent("search:worlds=8,z=0", game="gin", seed=3)
    actions, cand, values = agent.decide(obs, mask)
    again = load_agent("search:worlds=8,z=0", game="gin", seed=3).act(obs, mask)
    assert np.array_equal(actions, again)
    searched = np.isfinite(values).sum(1) > 1
    assert searched.any()
    best = cand[searched, np.nanargmax(np.where(np.isfinite(values[searched]), values[searched], -np.inf), 1)]
    assert np.array_equal(actions[searched], best)  # z=0: the best mean
    assert (cand[~searched, 0] == actions[~searched]).all()


def test_pending_records_get_the_rewards_from_their_decision_on():
    p = exit_mod.Pending(num_envs=2, num_players=2)
    rec = dict(obs=np.zeros((1, 3)), prior=np.zeros((1, 2)), mask=np.ones((1, 2), bool), target=np.zeros(1, int),
               net_choice=np.zeros(1, int))
    p.credit(np.array([[1.0, -1.0], [0.0, 0.0]]))  # before the decision: not its return
    p.add(np.array([0]), np.array([1]), **rec)
    p.credit(np.array([[0.5, 2.0], [3.0, 0.0]]))
    assert p.finish(np.array([False, True])) == {}  # lane 1 ended, it has no records
    p.credit(np.array([[0.0, 0.25], [0.0, 0.0]]))
    out = p.finish(np.array([True, False]))
    assert out["ret"].tolist() == [2.25]
    assert (p.cum == 0).all()


def test_the_plain_network_holds_no_expert(monkeypatch):
    """Change the expert: the plain network's output does not move; the default network's does."""
    from rummyrl.agents import gin_expert

    obs, mask = positions(48)
    torch.manual_seed(0)
    plain = NeuralAgent(PolicyNet("gin", NetConfig(hidden=32, prior_scale=0.0, features="engine")))
    torch.manual_seed(0)
    default = NeuralAgent(PolicyNet("gin", NetConfig(hidden=32, prior_scale=2.0)))
    for p in list(plain.net.parameters()) + list(default.net.parameters()):
        torch.nn.init.normal_(p, std=0.1)  # heads start at zero; make every input count
    before = plain.logits(obs, mask), default.logits(obs, mask)

    real = gin_expert.expert_preferences
    monkeypatch.setattr(gin_expert, "expert_preferences",
                        lambda o, m, p=None: real(o, m, p) + np.random.default_rng(1).normal(0, 5, m.shape))
    after = plain.logits(obs, mask), default.logits(obs, mask)
    assert np.array_equal(before[0], after[0])
    assert not np.allclose(before[1][mask], after[1][mask])


def test_engine_features_are_the_deadwood_arithmetic():
    obs, mask = positions(40, steps=7)
    f = gin_features(obs, mask)
    hands = obs[:, gin.OBS_LAYOUT["hand"]] > 0.5
    top = obs[:, gin.OBS_LAYOUT["top_discard"]]
    checked = 0
    for b in range(len(obs)):
        for c in np.flatnonzero(mask[b, gin.DISCARD:gin.DISCARD + 52]):
            h = hands[b].copy()
            h[c] = False
            assert f[b, gin.DISCARD + c] == -0.25 * melds.deadwood(h[None])[0]
            checked += 1
        if mask[b, gin.TAKE_DISCARD] and top[b].max() > 0.5:
            t = top[b].argmax()
            h = hands[b].copy()
            h[t] = True
            best = min(melds.deadwood((h & (np.arange(52) != c))[None])[0] for c in np.flatnonzero(h) if c != t)
            assert f[b, gin.TAKE_DISCARD] == -0.25 * best
            checked += 1
        for a in (gin.DRAW_STOCK, gin.PASS):
            if mask[b, a]:
                assert f[b, a] == -0.25 * melds.deadwood(hands[b][None])[0]
                checked += 1
    assert checked > 100
    assert (f[~mask] == PRIOR_ILLEGAL).all()
    # Rummy has its own (tests/training/test_plain.py scripts a hand); a network with them builds
    assert games.get("rummy").engine_features is not None
    NetConfig(features="engine", prior_scale=0.0).check("rummy")


@pytest.mark.parametrize("override, words", [
    (["net.features=engine", "net.expert_params=''"], ["prior_scale must be 0"]),
    (["net.features=smart"], ["net.features", "smart"]),
    (["algo=alphazero"], ["algo", "alphazero"]),
    (["algo=exit", "exit.teacher=grandmaster"], ["exit.teacher", "grandmaster"]),
    (["algo=exit", "exit.rollout=network"], ["unknown config key 'exit.rollout'", "'teacher'"]),
    (["eval.max_hands=-1"], ["eval.max_hands"]),
    (["algo=exit", "exit.depart_weight=0"], ["exit.depart_weight"]),
    (["algo=exit", "exit.target=softmax"], ["unknown config key 'exit.target'", "'record_values'"]),
    (["algo=exit", "exit.temperature=2"], ["unknown config key 'exit.temperature'"]),
    (["net.card_encoder=false"], ["unknown config key 'net.card_encoder'", "'card_head'"]),
    (["algo=exit", "exit.phase=meld"], ["exit.phase", "meld"]),
])
def test_config_errors_of_the_new_keys(override, words):
    with pytest.raises(training.ConfigError) as e:
        training.load_config(ROOT / "configs" / "gin_rummy.yaml", override)
    for w in words:
        assert w in str(e.value)


def test_evaluating_a_weak_policy_is_bounded():
    """Random against random runs to 85 hands a game on average; with eval.max_hands the
    periodic evaluation stops every game by that many hands (a draw)."""
    cfg = training.load_config(ROOT / "configs" / "gin_rummy_plain.yaml", ["eval.max_hands=12"])
    assert evaluate_rules(cfg)["max_hands"] == 12
    from rummyrl.agents import RandomAgent

    t = evaluate.run_tournament(["random", "other"], game="gin", games=40, options=evaluate_rules(cfg),
                                show_progress=False, agents={"other": RandomAgent(seed=1)})
    p = t.pairings[0]
    assert p.draws > 20  # most games cut off
    assert p.hands <= 12 * 40
    unbounded = dataclasses.replace(cfg, eval=dataclasses.replace(cfg.eval, max_hands=0))
    assert "max_hands" not in evaluate_rules(unbounded)


def evaluate_rules(cfg):
    from rummyrl.training.evaluation import eval_rules

    return eval_rules(cfg)


@pytest.mark.slow
def test_rummy_expert_iteration_runs_and_its_checkpoint_plays(tmp_path):
    cfg = training.load_config(ROOT / "docs" / "research" / "configs" / "rummy_exit.yaml",
                            TINY_EXIT + ["num_players=3", "exit.teacher=search:worlds=2,topk=2,horizon=60",
                                         "rules.stock_passes=2"])
    tr = training.train(cfg, run_dir=tmp_path / "rummy", progress=False)
    assert tr.updates == 3 and tr.method.buffer.size > 0
    teacher = tr.lanes.part.teacher
    assert teacher.config.stock_passes == 2 and teacher.config.num_players == 3  # the run's rules
    buf = tr.method.buffer.data
    n = tr.method.buffer.size
    assert buf["mask"][np.arange(n), buf["target"][:n]].all()
    t = evaluate.run_tournament([str(tmp_path / "rummy" / "final.pt"), "random"], game="rummy", players=3,
                                games=3, show_progress=False)
    assert t.pairings[0].games == 3


def test_a_resumed_run_may_drop_an_opponent_its_games_in_progress_still_face(tmp_path):
    """Resuming with ``opponents.simple=0``: the lanes saved mid-game against simple (and
    random, whose generator the checkpoint holds) finish against them, new games follow the
    new mixture."""
    from rummyrl.training.config import to_overrides
    from rummyrl.training.pool import opponent_kinds

    cfg = training.load_config(ROOT / "configs" / "gin_rummy_exit.yaml",
                            TINY_EXIT + ["total_steps=144", "opponents.random=1", "opponents.self_play=0"])
    training.train(cfg, run_dir=tmp_path / "mix", progress=False)
    data = load_checkpoint(tmp_path / "mix" / "last.pt", "gin")
    kinds = set(data["lanes"]["kind"].tolist())
    names = opponent_kinds(cfg.opponents)
    assert {names.index("simple"), names.index("random")} <= kinds  # 12 lanes, three kinds: both are mid-game
    later = training.load_config(None, to_overrides(data["train_config"]) + [
        "opponents.simple=0", "opponents.random=0", "opponents.self_play=1", "total_steps=432"])
    tr = training.train(later, run_dir=tmp_path / "mix", resume=data, progress=False)
    assert tr.updates == 3 and tr.method.buffer.size > 0


def test_ppo_fine_tuning_continues_an_expert_iteration_checkpoint(tmp_path):
    """``train.py --resume EXIT_CHECKPOINT algo=ppo``: the distilled network goes on with PPO."""
    from rummyrl.training.config import to_overrides

    cfg = training.load_config(ROOT / "configs" / "gin_rummy_exit.yaml", TINY_EXIT + ["total_steps=144"])
    tr = training.train(cfg, run_dir=tmp_path / "exit", progress=False)
    data = load_checkpoint(tmp_path / "exit" / "last.pt", "gin")
    ppo = training.load_config(None, to_overrides(data["train_config"]) + ["algo=ppo", "total_steps=288"])
    tuned = training.train(ppo, run_dir=tmp_path / "exit", resume=data, progress=False)
    assert tuned.updates == tr.updates + 1
    before = data["model"]
    after = tuned.net.state_dict()
    assert any(not torch.equal(before[k], after[k]) for k in before)


@pytest.mark.slow
def test_saved_search_records_distil_again_offline(tmp_path):
    """exit.save_records writes every iteration's records whole; an offline fit on them (held
    out by file) raises the network's agreement with the teacher on the held-out files, and
    the checkpoint it keeps is the best epoch and plays."""
    from rummyrl.training import offline

    cfg = training.load_config(ROOT / "configs" / "gin_rummy_exit.yaml", TINY_EXIT + [
        "exit.teacher=simple", "exit.save_records=true", "exit.buffer=100000", "rollout_steps=24",
        "total_steps=2304", "net.prior_scale=0", "net.features=engine"])
    tr = training.train(cfg, run_dir=tmp_path / "run", progress=False)
    files = sorted((tmp_path / "run" / "records").glob("records_*.npz"))
    assert len(files) >= 4 and not list((tmp_path / "run" / "records").glob(".*"))  # no partial files
    rec = exit_mod.load_records(tmp_path / "run" / "records")
    assert len(rec["target"]) == tr.method.buffer.size  # every record the run trained on, once
    assert rec["mask"][np.arange(len(rec["target"])), rec["target"]].all()
    # a run resumed from an older checkpoint writes the same iteration numbers again: both kept
    update = int(files[0].stem.split("_")[1])
    again = exit_mod.save_records(tmp_path / "run" / "records", update, {k: v[:3] for k, v in rec.items()})
    assert again.name == f"{files[0].stem}_1.npz" and files[0].is_file()
    assert len(exit_mod.load_records(tmp_path / "run" / "records")["target"]) == len(rec["target"]) + 3
    again.unlink()

    fit_cfg = training.load_config(ROOT / "configs" / "gin_rummy_exit.yaml", [
        "net.prior_scale=0", "net.features=engine", "net.hidden=64", "learning_rate=0.003", "minibatch_size=64"])
    out = tmp_path / "fit.pt"
    rows = offline.fit(fit_cfg, tmp_path / "run" / "records", out, epochs=12, valid_every=4, log=lambda *_: None,
                       logdir=tmp_path / "tb")
    assert rows[0]["valid_accuracy"] < 0.5  # an untrained network does not play like simple
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(tmp_path / "tb"))  # the fit's losses, epoch by epoch, in TensorBoard
    acc.Reload()
    assert [e.step for e in acc.Scalars("distill/valid_loss")] == list(range(13))
    assert [e.value for e in acc.Scalars("distill/train_policy_loss")] == pytest.approx(
        [r["train_policy_loss"] for r in rows[1:]], rel=1e-5)
    assert max(r["valid_accuracy"] for r in rows) > rows[0]["valid_accuracy"] + 0.3
    best = min(rows, key=lambda r: r["valid_loss"])
    data = load_checkpoint(out, "gin")
    assert data["about"]["epoch"] == best["epoch"]
    t = evaluate.run_tournament([str(out), "simple"], game="gin", games=4, show_progress=False)
    assert t.pairings[0].games == 4
    with pytest.raises(ValueError, match="at least 100"):
        offline.load_split(tmp_path / "run" / "records", 100)
    # the first k files only (a learning curve over the run's minutes): exactly their decisions
    sizes = [len(exit_mod.read_records(f)["target"]) for f in files]
    tr4, va4, n4 = offline.load_split(tmp_path / "run" / "records", 2, first=4)
    assert n4 == 4 and len(tr4["target"]) == sizes[0] + sizes[2] and len(va4["target"]) == sizes[1] + sizes[3]
    for bad in (0, len(files) + 1):
        with pytest.raises(ValueError, match=f"between 1 and the {len(files)} records files"):
            offline.load_split(tmp_path / "run" / "records", 2, first=bad)

    # scripts/exit_fit.py: the rows in <out>.json, TensorBoard beside the checkpoint by default
    import importlib.util
    import json

    spec = importlib.util.spec_from_file_location("exit_fit", ROOT / "scripts" / "exit_fit.py")
    ef = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ef)
    cli = tmp_path / "cli" / "fit.pt"
    assert ef.main([str(tmp_path / "run" / "records"), "--config", str(ROOT / "configs" / "gin_rummy_exit.yaml"),
                    "--out", str(cli), "--epochs", "1", "--valid-every", "4", "net.prior_scale=0",
                    "net.features=engine", "net.hidden=64", "minibatch_size=64"]) == 0
    assert [r["epoch"] for r in json.loads((tmp_path / "cli" / "fit.pt.json").read_text())] == [0, 1]
    assert list((tmp_path / "cli" / "fit").glob("events.out.tfevents.*")) and cli.is_file()
    assert ef.default_logdir("runs/fit/model") == Path("runs/fit/model_tb")  # never the checkpoint's own path

    # docs/research/scripts/exit_curve.py: mark 0 is the starting network, the last mark fits every file,
    # and a rerun reuses the saved fits and matches
    spec = importlib.util.spec_from_file_location("exit_curve", ROOT / "docs" / "research" / "scripts" / "exit_curve.py")
    ec = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ec)
    dated = ec.file_minutes(tmp_path / "run")
    assert [f for f, _ in dated] == files and all(0 < t for _, t in dated)
    assert [t for _, t in dated] == sorted(t for _, t in dated)
    args = [str(tmp_path / "run"), "--config", str(ROOT / "configs" / "gin_rummy_exit.yaml"), "--minutes", "0",
            repr(dated[-1][1]), "--epochs", "1", "--select", "loss", "--valid-every", "2", "--against", "simple",
            "--games", "2", "--max-hands", "2", "--quiet", "--out", str(tmp_path / "curve"),
            "net.prior_scale=0", "net.features=engine", "net.hidden=64", "minibatch_size=64"]
    assert ec.main(args) == 0
    curve = json.loads((tmp_path / "curve" / "curve.json").read_text())
    assert [(p["files"], p["train_minutes"] == 0) for p in curve["points"]] == [(2, True), (len(files), False)]
    assert curve["points"][0]["kept_epoch"] == 0 and curve["points"][1]["kept_epoch"] in (0, 1)
    fits = sorted((tmp_path / "curve" / "fits").glob("*.pt"))
    stamps = [f.stat().st_mtime_ns for f in fits]
    assert ec.main(args) == 0 and [f.stat().st_mtime_ns for f in fits] == stamps
    assert json.loads((tmp_path / "curve" / "curve.json").read_text()) == curve
    with pytest.raises(SystemExit):  # a mark past the run's last file is refused, not clamped
        ec.main(args[:5] + [repr(dated[-1][1] + 1)] + args[6:])
