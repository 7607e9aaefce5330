"""benchmarks/bench_trainers.py: the trainers side by side. Its JSON (the table in
docs/integrations.md is generated from it) holds per trainer the learner's moves, the seconds
and both evaluations; a stopped benchmark keeps the rows it finished; bad arguments are
one-line errors."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # each test trains, builds or runs a subprocess for seconds

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_trainers.py"


def bench():
    spec = importlib.util.spec_from_file_location("bench_trainers", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_tiny_benchmark_writes_its_rows_and_a_rerun_keeps_them(tmp_path, capsys):
    b = bench()
    out = tmp_path / "gin.json"
    args = ["--minutes", "0.02", "--games", "10", "--only", "cleanrl-style", "--work", str(tmp_path / "work"),
            "--out", str(out)]
    assert b.main(args) == 0
    d = json.loads(out.read_text())
    assert d["format"] == b.FORMAT and (d["minutes"], d["games"], d["seed"]) == (0.02, 10, 20011)
    (row,) = d["rows"]
    assert row["trainer"] == "cleanrl-style" and row["learner_moves"] > 0
    assert row["moves_per_second"] == pytest.approx(row["learner_moves"] / row["seconds"])
    for opponent in ("simple", "expert"):
        p = row[f"vs_{opponent}"]
        assert p["games"] == 10 and p["wins_a"] + p["wins_b"] + p["draws"] == 10
        assert p["win_rate_a_ci95"][0] <= p["win_rate_a"] <= p["win_rate_a_ci95"][1]
    assert "| cleanrl-style |" in capsys.readouterr().out
    policy = tmp_path / "work" / "cleanrl-style" / "policy.pt2"
    made = policy.stat().st_mtime_ns
    assert b.main(args) == 0  # the same benchmark again: the finished row is kept, nothing retrained
    assert json.loads(out.read_text())["rows"] == d["rows"] and policy.stat().st_mtime_ns == made
    assert b.main(args + ["--rerun"]) == 0  # --rerun trains it again, and keeps one row of it
    (again,) = json.loads(out.read_text())["rows"]
    assert policy.stat().st_mtime_ns != made and again["trainer"] == "cleanrl-style"
    with pytest.raises(SystemExit):  # other settings into the same JSON: refused, nothing lost
        b.main(["--minutes", "0.02", "--games", "12", "--only", "cleanrl-style", "--out", str(out)])
    assert json.loads(out.read_text())["rows"] == [again]


def test_a_speed_only_run_of_a_library_and_its_variant_has_no_evaluations(tmp_path, capsys):
    """``--games 0``: each row the learner's moves and seconds alone; a variant runs its base's
    example with its own arguments (SB3 with eight envs) and says so in its algorithm."""
    pytest.importorskip("sb3_contrib")
    b = bench()
    out = tmp_path / "procs.json"
    assert b.main(["--minutes", "0.05", "--games", "0", "--only", "sb3", "sb3-8envs", "--work", str(tmp_path / "w"),
                   "--out", str(out)]) == 0
    d = json.loads(out.read_text())
    assert [r["trainer"] for r in d["rows"]] == ["sb3", "sb3-8envs"] and d["games"] == 0
    assert "--only sb3 sb3-8envs" in d["command"]
    for r in d["rows"]:
        assert r["learner_moves"] > 0 and "vs_simple" not in r and "vs_expert" not in r
    assert d["rows"][1]["algorithm"].endswith("8 envs in one process (DummyVecEnv)")
    assert b.TRAINERS["sb3-8envs"][2][-2:] == ["--envs", "8"] and b.BASES == list(b.TRAINERS)[:6]


@pytest.mark.parametrize("args, says", [
    (["--python", "rllib"], "--python 'rllib': give TRAINER=PATH"),
    (["--python", "nobody=/usr/bin/python3"], "TRAINER one of rummyrl, cleanrl-style"),
    (["--minutes", "0"], "--minutes must be > 0"),
    (["--games", "1"], "--games 0 or >= 2"),
])
def test_bad_arguments_are_one_line_errors(capsys, args, says):
    with pytest.raises(SystemExit) as e:
        bench().main(args)
    assert e.value.code == 2 and says in capsys.readouterr().err
