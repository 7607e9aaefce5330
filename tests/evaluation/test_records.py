"""Game records: a tournament's records replay exactly on the engines and give its results
back; recording (with or without reasons) changes no game; a record that the engine
contradicts is refused; the reasons are the agents' own figures, beside the same moves."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rummyrl import games, records
from rummyrl.agents import load_agent
from rummyrl.agents.base import tell_rules
from rummyrl.evaluate import main as evaluate_main
from rummyrl.reasons import act_and_explain, explain, kind_of
from rummyrl.tournament import run_tournament

CASES = [("gin", ["expert", "simple", "random"], {}), ("rummy", ["expert", "simple"], {"players": 3})]


def _without_seconds(t) -> list[dict]:
    return [{k: v for k, v in p.to_dict().items() if k != "seconds"} for p in t.pairings]


@pytest.fixture(scope="module", params=CASES, ids=[c[0] for c in CASES])
def recorded(request):
    game, specs, kw = request.param
    t = run_tournament(specs, game=game, games=12, seed=3, chunk=6, show_progress=False, record=True, **kw)
    plain = run_tournament(specs, game=game, games=12, seed=3, chunk=6, show_progress=False, **kw)
    return game, t, plain


def test_recording_changes_no_result(recorded):
    _, t, plain = recorded
    assert _without_seconds(t) == _without_seconds(plain)
    assert all(not p.records for p in plain.pairings)


@pytest.mark.slow
def test_the_records_replay_and_give_the_tournaments_results_back(recorded):
    game, t, _ = recorded
    g = games.get(game)
    for p in t.pairings:
        assert len(p.records) == p.games
        wins_a = wins_b = draws = hands = 0
        a_totals = []
        for rec in p.records:
            rec = json.loads(json.dumps(rec))  # what a file holds
            r = records.replay(rec)
            assert r.steps == sum(len(d["actions"]) for d in rec["deals"])
            final = r.state(r.steps)
            assert final.game_over[0]
            w = int(final.winner[0])
            wins_a += w == rec["a_seat"]
            wins_b += w >= 0 and w != rec["a_seat"]
            draws += w < 0
            hands += len(r.deal_ends)
            a_totals.append(g.engine.game_result(final).total[0, rec["a_seat"]])
            assert rec["seats"][rec["a_seat"]] == p.a and rec["seat_specs"][rec["a_seat"]] in t.settings["agent_specs"].values()
        assert (wins_a, wins_b, draws, hands) == (p.wins_a, p.wins_b, p.draws, p.hands)
        assert np.mean(a_totals) == pytest.approx(p.points_game[p.a])


def test_the_deals_are_the_engines_deals_of_the_seeds(recorded):
    game, t, _ = recorded
    g = games.get(game)
    rec = t.pairings[0].records[1]
    config = g.config_cls.from_dict(rec["rules"])
    state = g.engine.init(1, seed=np.array([rec["seed"]]), config=config)
    assert records.deck_text(state.deck[0]) == rec["deals"][0]["deck"]
    assert int(state.dealer[0]) == rec["deals"][0]["dealer"]


def test_a_record_the_engine_contradicts_is_refused(recorded):
    game, t, _ = recorded
    rec = json.loads(json.dumps(t.pairings[0].records[0]))
    bad = json.loads(json.dumps(rec))
    bad["deals"][0]["points"] += 1
    with pytest.raises(records.RecordMismatch, match="deal 0 ended"):
        records.replay(bad)
    bad = json.loads(json.dumps(rec))
    bad["result"]["totals"][0] += 1
    with pytest.raises(records.RecordMismatch, match="the game ended"):
        records.replay(bad)
    bad = json.loads(json.dumps(rec))
    bad["deals"][0]["actions"][0] = 10_000
    with pytest.raises(records.RecordError, match="deal 0, action 0"):
        records.replay(bad)
    bad = json.loads(json.dumps(rec))
    bad["deals"][0]["deck"] = bad["deals"][0]["deck"][:-2] + bad["deals"][0]["deck"][:2]
    with pytest.raises(records.RecordError, match="each of the 52 cards once"):
        records.replay(bad)
    for field, value, message in (("format", "other/1", "format must be"), ("seats", "x", "field 'seats'"),
                                  ("game", "poker", "unknown game")):
        bad = {**rec, field: value}
        with pytest.raises(ValueError, match=message):
            records.replay(bad)


def test_files_round_trip_and_name_the_bad_line(tmp_path, recorded):
    _, t, _ = recorded
    recs = t.pairings[0].records
    path = records.write_records(tmp_path / "games.jsonl", recs, append=False)
    assert records.read_records(tmp_path) == json.loads(json.dumps(recs))
    with path.open("a") as f:
        f.write('{"format": "rummyrl-game/1"}\n')
    with pytest.raises(records.RecordError, match=rf"games.jsonl:{len(recs) + 1}: field 'game'"):
        records.read_records(path)
    with pytest.raises(FileNotFoundError):
        records.read_records(tmp_path / "missing")


def test_the_replay_draws_every_hand_face_up(recorded):
    game, t, _ = recorded
    r = records.replay(t.pairings[0].records[0])
    html = r.html(0)
    P = r.record["players"]
    hand = games.get(game).engine.init(1, config=r.state(0).config).hands[0].sum(1)[0]
    # every dealt card face up, the upcard, and the stock in draw order: all 52 cards
    assert html.count("data-card=") == 52
    assert P * int(hand) < 52
    end = r.deal_ends[0]
    assert "class=\"rrl-ended\"" in r.html(end) and "class=\"rrl-ended\"" not in r.html(end - 1)
    assert "<details" in r._repr_html_()


@pytest.mark.slow
def test_evaluate_writes_records_with_reasons(tmp_path):
    out = tmp_path / "out"
    rc = evaluate_main(["expert", "search:worlds=4,topk=2", "--games", "2", "--seed", "1", "--quiet",
                        "--out", str(out), "--record", str(tmp_path / "rec"), "--record-reasons"])
    assert rc == 0
    recs = records.read_records(tmp_path / "rec")
    assert len(recs) == 2
    plain = json.loads((out / "results.json").read_text())
    rc = evaluate_main(["expert", "search:worlds=4,topk=2", "--games", "2", "--seed", "1", "--quiet",
                        "--out", str(tmp_path / "out2")])
    again = json.loads((tmp_path / "out2" / "results.json").read_text())
    for p, q in zip(plain["pairings"], again["pairings"]):  # the reasons changed no move
        assert {k: v for k, v in p.items() if k != "seconds"} == {k: v for k, v in q.items() if k != "seconds"}
    kinds = set()
    for rec in recs:
        r = records.replay(rec)
        for step in range(r.steps):
            why = r.reasons(step)
            assert why is not None and why["top"], step
            kinds.add(why["kind"])
            if why["kind"] == "search":
                assert why["chosen"] == r.actions[step]
            if why["kind"] == "preference":
                assert why["top"][0]["action"] == r.actions[step]
    assert kinds == {"preference", "search"}


def test_record_reasons_needs_record(capsys):
    assert evaluate_main(["expert", "simple", "--record-reasons"]) == 2
    assert "--record-reasons needs --record DIR" in capsys.readouterr().err


@pytest.mark.parametrize("game", ["gin", "rummy"])
@pytest.mark.parametrize("spec", ["expert", "simple", "random", "pretrained", "search:worlds=4,topk=3"])
def test_reasons_come_with_the_agents_own_moves(game, spec):
    g = games.get(game)
    config = g.make_config({}, players=None)
    state = g.engine.init(6, seed=11, config=config)
    for _ in range(7):  # a few moves in: draws and discards both
        state = g.engine.step(state, load_agent("simple", game=game).act(g.engine.observe(state), state.mask))
    obs = g.engine.observe(state)
    one, two = load_agent(spec, game=game, seed=5), load_agent(spec, game=game, seed=5)
    tell_rules((one, two), config)
    actions, why = act_and_explain(one, obs, state.mask)
    assert np.array_equal(actions, two.act(obs, state.mask))
    assert len(why) == 6
    kind = kind_of(one)
    assert {w["kind"] for w in why} == {kind}
    for b, w in enumerate(why):
        legal = set(np.flatnonzero(state.mask[b]).tolist())
        assert {r["action"] for r in w["top"]} <= legal
        if kind == "network":
            ps = [r["p"] for r in w["top"]]
            assert ps == sorted(ps, reverse=True) and 0 < sum(ps) <= 1.0001
            assert w["top"][0]["action"] == actions[b] and np.isfinite(w["value"])
        if kind == "search" and w["searched"]:
            assert w["chosen"] == actions[b] and all(r["sd"] >= 0 for r in w["top"])
    assert all("chosen" in w for w in explain(one, obs, state.mask))
