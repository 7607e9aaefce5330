"""evaluate.py: statistics on constructed results with known answers, tournaments, CLI errors."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from rummyrl import report, stats, tournament
from rummyrl.agents.checkpoint import save_checkpoint

ROOT = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------ statistics
@pytest.mark.parametrize("wins, n, lo, hi", [
    (50, 100, 0.4038, 0.5962),  # textbook values of the Wilson interval
    (0, 10, 0.0, 0.2775),
    (10, 10, 0.7225, 1.0),
    (1252, 2000, 0.6046, 0.6469),
])
def test_wilson_interval_known_values(wins, n, lo, hi):
    a, b = stats.wilson_interval(wins, n)
    assert a == pytest.approx(lo, abs=5e-4) and b == pytest.approx(hi, abs=5e-4)


def test_bradley_terry_recovers_known_strengths():
    elo = np.array([200.0, 0.0, -150.0, -50.0])
    n = 200_000  # games per pair, won in exact proportion to the model's probabilities
    k = elo.size
    wins = np.zeros((k, k))
    for i in range(k):
        for j in range(k):
            if i != j:
                wins[i, j] = n / (1 + 10 ** ((elo[j] - elo[i]) / 400))
    rating, se = stats.bradley_terry(wins)
    assert rating - rating.mean() == pytest.approx(elo - elo.mean(), abs=1.0)
    assert (se < 3).all()
    # fewer games: the same ratings, wider errors (about 1/sqrt(games))
    r_small, se_small = stats.bradley_terry(wins / 100)
    assert r_small == pytest.approx(rating, abs=10)
    assert se_small == pytest.approx(se * 10, rel=0.1)


def test_bradley_terry_two_agents_matches_the_log_odds():
    rating, se = stats.bradley_terry(np.array([[0, 631], [369, 0]]))
    diff = rating[0] - rating[1]
    assert diff == pytest.approx(400 * math.log10(631 / 369), abs=1.5)  # the prior pulls a little
    # standard error of a difference of logits: 1 / sqrt(n p (1 - p)), split over two ratings
    expect = 400 / math.log(10) / math.sqrt(1000 * 0.631 * 0.369) / 2
    assert se[0] == pytest.approx(expect, rel=0.05)


def test_bradley_terry_one_against_three_copies():
    """4-player Rummy pairings (A alone against three copies of B): equal strengths win
    1 game in 4 and get equal ratings; winning 40% means s_A / s_B = 3 * 0.4 / 0.6 = 2,
    400 * log10(2) = 120.4 Elo apart. Without the offset the 25% agent would look weak."""
    offset = np.array([[0.0, -math.log(3)], [math.log(3), 0.0]])
    even, _ = stats.bradley_terry(np.array([[0, 25_000], [75_000, 0]]), offset=offset)
    assert even[0] - even[1] == pytest.approx(0.0, abs=0.5)
    strong, _ = stats.bradley_terry(np.array([[0, 40_000], [60_000, 0]]), offset=offset)
    assert strong[0] - strong[1] == pytest.approx(400 * math.log10(2), abs=0.5)
    naive, _ = stats.bradley_terry(np.array([[0, 40_000], [60_000, 0]]))
    assert naive[0] < naive[1]
    with pytest.raises(ValueError, match="antisymmetric"):
        stats.bradley_terry(np.zeros((2, 2)), offset=np.ones((2, 2)))


def test_bradley_terry_stays_finite_for_a_clean_sweep():
    rating, se = stats.bradley_terry(np.array([[0, 400], [0, 0]]))
    assert np.isfinite(rating).all() and np.isfinite(se).all() and rating[0] > rating[1]


# ------------------------------------------------------------------ tournaments
@pytest.mark.slow
def test_tournament_counts_add_up_and_repeat_with_a_seed(tmp_path):
    t1 = tournament.run_tournament(["simple", "random", "expert"], games=40, seed=3, show_progress=False)
    t2 = tournament.run_tournament(["simple", "random", "expert"], games=40, seed=3, show_progress=False)
    assert len(t1.pairings) == 3
    for p, q in zip(t1.pairings, t2.pairings):
        assert p.games == 40 and p.wins_a + p.wins_b + p.draws == p.games
        assert p.to_dict() | {"seconds": 0} == q.to_dict() | {"seconds": 0}
    jpath, ppath = report.write_outputs(t1, tmp_path / "out")
    data = json.loads(jpath.read_text())
    assert {p["a"] + "-" + p["b"] for p in data["pairings"]} == {"simple-random", "simple-expert", "random-expert"}
    assert ppath.stat().st_size > 5000
    table = report.format_table(t1)
    assert "| simple | random | 40 |" in table and "rating" in table


def test_duplicate_deals_give_each_seat_the_same_cards():
    seats, seeds = tournament._lineups(2, 5, True, np.random.default_rng(0))
    assert np.array_equal(seats, np.tile([0, 1], 5))
    assert np.array_equal(seeds[0::2], seeds[1::2]) and len(set(seeds[0::2])) == 5
    from rummyrl import gin

    state = gin.init(seeds.size, seed=seeds)
    assert np.array_equal(state.deck[0], state.deck[1]) and not np.array_equal(state.deck[0], state.deck[2])


def test_identical_agents_split_duplicate_games_evenly():
    # the same deterministic agent in both seats of each deal: whatever the deal, the game
    # is played twice with seats swapped, so each side wins exactly one of each pair
    from rummyrl.agents import load_agent

    spec = tournament.match_config("gin", "game")
    r = tournament.play_pairing(load_agent("simple"), load_agent("simple"), spec, 60, seed=1)
    assert r.wins_a == r.wins_b == 30


def test_rummy_pairing_rotates_the_lone_agent_through_every_seat():
    from rummyrl.agents import load_agent

    spec = tournament.match_config("rummy", "hand", 4)
    r = tournament.play_pairing(load_agent("simple", "rummy"), load_agent("random", "rummy"), spec, 40, seed=2)
    assert r.games == 40 and r.wins_a + r.wins_b + r.draws == 40
    assert r.wins_a > 20  # simple against three random players wins most rounds


# ------------------------------------------------------------------ command line
def _run(*args):
    return subprocess.run([sys.executable, "evaluate.py", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.slow
@pytest.mark.parametrize("args, words", [
    (["simple", "grandmaster"], ["grandmaster", "random"]),
    (["simple", "nowhere/model.pt"], ["does not exist"]),
    (["simple"], ["at least two agents"]),
    (["simple", "random", "--games", "0"], ["games"]),
    (["--game", "rummy", "--players", "9", "simple", "random"], ["Rummy is played by 2..6 players, not 9"]),
    (["simple", "random", "--option", "knock_limit=-3"], ["knock_limit"]),
    (["simple", "random", "--option", "colour=red"], ["colour"]),
])
def test_bad_input_gets_one_error_line(args, words):
    out = _run(*args, "--quiet")
    assert out.returncode == 2
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("evaluate.py: error:"), out.stderr
    for w in words:
        assert w in lines[0]


@pytest.mark.slow
def test_checkpoint_errors(tmp_path):
    corrupt = tmp_path / "corrupt.pt"
    corrupt.write_bytes(b"not a checkpoint at all")
    out = _run("simple", str(corrupt), "--quiet")
    assert out.returncode == 2 and "corrupt" in out.stderr and "Traceback" not in out.stderr
    foreign = tmp_path / "foreign.pt"
    torch.save({"weights": torch.zeros(3)}, foreign)
    out = _run("simple", str(foreign), "--quiet")
    assert out.returncode == 2 and "not a rummyrl checkpoint" in out.stderr
    rummy_ckpt = tmp_path / "rummy.pt"
    save_checkpoint(rummy_ckpt, {"game": "rummy", "num_players": 4, "net_config": {}, "model": {}})
    out = _run("simple", str(rummy_ckpt), "--quiet")
    assert out.returncode == 2 and "trained for 'rummy'" in out.stderr


@pytest.mark.slow
def test_chunks_play_the_same_games_as_one_batch():
    """A pairing cut into chunks: deterministic agents play exactly the games of one batch
    (the engines deal each game from its own seed); one chunk is the whole pairing."""
    one = tournament.run_tournament(["expert", "simple"], games=60, chunk=0, seed=7, show_progress=False)
    cut = tournament.run_tournament(["expert", "simple"], games=60, chunk=14, seed=7, show_progress=False)
    assert one.pairings[0].to_dict() | {"seconds": 0} == cut.pairings[0].to_dict() | {"seconds": 0}
    spec = tournament.match_config("gin", "game")
    chunks = tournament.pairing_chunks(spec, 60, seed=7, chunk=14)
    assert [c["seeds"].size for c in chunks] == [14, 14, 14, 14, 4]
    whole = tournament.pairing_chunks(spec, 60, seed=7, chunk=0)[0]
    assert np.array_equal(np.concatenate([c["seeds"] for c in chunks]), whole["seeds"])
    assert chunks[0]["agent_seeds"] == whole["agent_seeds"]  # the first chunk's agents as before chunks


def test_tournament_workers_without_ray_name_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails
    from rummyrl.distributed import RayMissingError

    with pytest.raises(RayMissingError, match=r'pip install -e "\.\[ray\]"'):
        tournament.run_tournament(["simple", "random"], games=4, workers=2, show_progress=False)


# ------------------------------------------------------------------ --record
def _evaluate_recording(tmp_path, rec, out, *extra):
    from rummyrl.evaluate import main as evaluate_main

    return evaluate_main(["simple", "random", "--games", "2", "--option", "target=10", "--seed", "5", "--quiet",
                          "--out", str(tmp_path / out), "--record", str(rec), *extra])


def _lines(path: Path) -> int:
    return sum(1 for line in path.read_bytes().splitlines() if line.strip())


def test_record_refuses_a_file_that_holds_records_unless_appending(tmp_path, capsys):
    """--record DIR into a fresh folder writes DIR/games.jsonl; a second run into the same
    folder is refused before any game is played (one error line naming the file, its record
    count and --record-append), leaving the file byte for byte; --record-append adds to it."""
    from rummyrl import records

    rec = tmp_path / "rec"
    assert _evaluate_recording(tmp_path, rec, "out1") == 0
    path = rec / "games.jsonl"
    before = path.read_bytes()
    assert _lines(path) == 2 and len(records.read_records(rec)) == 2
    capsys.readouterr()

    assert _evaluate_recording(tmp_path, rec, "out2") == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and err[0].startswith("evaluate.py: error:"), err
    assert str(path) in err[0] and "holds 2 game records" in err[0] and "--record-append" in err[0]
    assert path.read_bytes() == before
    assert not (tmp_path / "out2").exists()  # refused before playing: no results written

    assert _evaluate_recording(tmp_path, rec, "out3", "--record-append") == 0
    after = path.read_bytes()
    assert after.startswith(before) and _lines(path) == 4
    assert len(records.read_records(rec)) == 4
    assert "added 2 game records" in capsys.readouterr().out


@pytest.mark.parametrize("content", [None, b"", b"\n\n"])
def test_record_writes_an_absent_or_empty_file(tmp_path, content):
    rec = tmp_path / "rec"
    if content is not None:
        rec.mkdir()
        (rec / "games.jsonl").write_bytes(content)
    assert _evaluate_recording(tmp_path, rec, "out") == 0
    assert _lines(rec / "games.jsonl") == 2


def test_record_append_joins_no_lines_to_a_last_line_without_newline(tmp_path):
    from rummyrl import records

    rec = tmp_path / "rec"
    assert _evaluate_recording(tmp_path, rec, "out1") == 0
    path = rec / "games.jsonl"
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    assert _evaluate_recording(tmp_path, rec, "out2", "--record-append") == 0
    assert len(records.read_records(rec)) == 4


def test_record_append_needs_record(capsys):
    from rummyrl.evaluate import main as evaluate_main

    assert evaluate_main(["simple", "random", "--record-append"]) == 2
    assert "--record-append needs --record DIR" in capsys.readouterr().err


def test_out_refuses_a_folder_that_holds_results_unless_overwriting(tmp_path, capsys):
    """--out into a folder whose results.json exists is refused before any game is played (one
    error line naming the file and --overwrite), leaving it byte for byte; --overwrite
    replaces it with the new tournament's results."""
    from rummyrl.evaluate import main as evaluate_main

    def run(seed, *extra):
        return evaluate_main(["simple", "random", "--games", "2", "--option", "target=10", "--seed", str(seed),
                              "--quiet", "--out", str(tmp_path), *extra])

    assert run(5) == 0
    path = tmp_path / "results.json"
    before = path.read_bytes()
    capsys.readouterr()
    assert run(6) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and str(path) in err[0] and "--overwrite" in err[0], err
    assert path.read_bytes() == before
    assert run(6, "--overwrite") == 0
    assert json.loads(path.read_text())["settings"]["seed"] == 6 and not (tmp_path / "results.json.tmp").exists()
