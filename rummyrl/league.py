"""A league: a network from the rules alone that learns against exploiters trained to beat it.

    rummyrl-league                                   # Gin: 4 rounds of 20 minutes (main) + 10 (exploiter)
    rummyrl-league --game rummy --rounds 3
    rummyrl-league --rounds 2 --main-minutes 1 --exploiter-minutes 1 --games 200   # a first look
    rummyrl-league --main-steps 4e7 --exploiter-steps 2e7 --main-minutes 600 --exploiter-minutes 600
                                                     # budgets in env steps: the same league on any machine

Self-play and a fixed curriculum teach a network to beat what it meets; they do not teach it
to leave no habit another player can learn to punish. AlphaStar's league (Vinyals et al.,
2019) adds players whose only job is to find the main agent's holes, the main exploiters,
and makes the main agent play them. This is that league reduced to its main agent and its
main exploiters:

Round ``r``:

1. The **main agent** trains ``--main-minutes`` more (resumed from its ``last.pt``) with the
   opponents of the game's plain config (self-play, its past snapshots drawn by PFSP, the
   plain curriculum: no expert anywhere) plus every exploiter found so far, each drawn with
   ``--exploiter-weight``.
2. Its network is frozen as ``main_r.pt``, and a fresh **exploiter**, from the rules alone,
   trains against it alone for ``--exploiter-minutes`` (:mod:`rummyrl.exploit`), then plays
   it over ``--games`` duplicate games. The exploiter plays nobody else.

``league.json`` in the run folder is written after every stage: per round the main agent's
minutes, env steps and last evaluation against the baselines, and the exploiter's win rate
against the frozen main agent with its interval. The main agent closes its holes when later
exploiters win less. The same command, run again, goes on where it stopped: a finished
stage is not run again, an unfinished one resumes from its ``last.pt``. At the end the main
agent's last network, ``main_R.pt`` of the last round (the one its last exploiter was
measured against, and the league's product), plays the plain config's evaluation opponents
over ``--games`` games. Not its ``best.pt``: that is chosen by the periodic evaluations
against the baselines over all rounds, so it can be an early network that no later
exploiter tested.

With ``--main-steps`` and ``--exploiter-steps`` the budgets are env steps (the minutes then
only cap them): with ``eval.every_steps`` (or no periodic evaluation), such a league is the
same on a slow or busy machine, and one stopped at any point and given again ends with the
same networks as one never stopped.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import yaml

from rummyrl import games as registry
from rummyrl.agents.checkpoint import load_checkpoint
from rummyrl.exploit import PLAIN, ROOT, exploit, shown_path, write_json
from rummyrl.training import ConfigError, load_config, report_run, train
from rummyrl.training.evaluation import eval_curves

#: the format of league.json
FORMAT = "rummyrl-league/1"


def main_overrides(game: str, players: int | None, minutes: float, exploiters: list[str], weight: float,
                   steps: int | None = None) -> list[str]:
    """The main agent's overrides for a round: its name, its cumulative time limit (and step
    budget, when given), PFSP over its snapshots, and the exploiters so far as opponents (laid
    over the plain config's)."""
    out = [f"name=league_{game}_main", f"game={game}", f"time_limit_minutes={minutes}", "snapshot_sampling=pfsp",
           "eval.final_games=0"] + ([f"total_steps={steps}"] if steps else [])
    if exploiters:
        out.append("opponents=" + yaml.safe_dump({e: weight for e in exploiters}, default_flow_style=True,
                                                 width=10**6).strip())
    if players is not None:
        out.append(f"num_players={players}")
    return out


def league(game: str = "gin", rounds: int = 4, main_minutes: float = 20.0, exploiter_minutes: float = 10.0,
           games: int = 2000, players: int | None = None, config: str | Path | None = None,
           run_dir: str | Path | None = None, overrides=(), exploiter_weight: float = 0.25,
           progress: bool = True, main_steps: int | None = None, exploiter_steps: int | None = None,
           main_only=()) -> dict:
    """Run (or go on with) the league in ``run_dir``; returns ``league.json``'s content.
    ``main_steps``, ``exploiter_steps``: budgets in env steps a round (the minutes then cap them).
    ``main_only``: overrides for the main agent alone, laid after ``overrides`` (for example
    ``init=`` a network from the rules alone and its ``net.hidden``); exploiters always start fresh."""
    g = registry.get(game)
    config = Path(config) if config else ROOT / PLAIN[g.name]
    run_dir = Path(run_dir or Path("runs") / f"league_{g.name}")
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / "league.json"
    state = json.loads(path.read_text()) if path.is_file() else \
        {"format": FORMAT, "game": g.name, "config": shown_path(config), "overrides": list(overrides),
         "main_only": list(main_only), "main_steps": main_steps, "exploiter_steps": exploiter_steps, "rounds": []}
    theirs = (state["game"], state["overrides"], state.get("main_only", []), state.get("main_steps"),
              state.get("exploiter_steps"))
    if theirs != (g.name, list(overrides), list(main_only), main_steps, exploiter_steps):
        raise ConfigError(f"{run_dir} holds a league of other settings (game, overrides, main-only overrides, "
                          f"main and exploiter steps: "
                          f"{theirs}); give another --run-dir")
    main_dir = run_dir / "main"
    cfg = None
    for r in range(1, rounds + 1):
        done = {x["round"]: x for x in state["rounds"]}
        if r in done and "exploiter" in done[r]:
            continue
        exploiters = [x["exploiter"]["path"] for x in state["rounds"] if "exploiter" in x]
        cfg = load_config(config, main_overrides(g.name, players, r * main_minutes, exploiters, exploiter_weight,
                                                 main_steps and r * main_steps) + list(overrides) + list(main_only))
        frozen = run_dir / f"main_{r}.pt"
        if r not in done:
            resume = load_checkpoint(main_dir / "last.pt", g.name) if (main_dir / "last.pt").is_file() else None
            tr = train(cfg, run_dir=main_dir, resume=resume, progress=progress, evaluate_start=False)
            if tr.interrupted:
                raise KeyboardInterrupt
            shutil.copyfile(main_dir / "last.pt", frozen)
            state["rounds"].append({"round": r, "main": {"minutes": round(tr.elapsed / 60, 2),
                                                         "env_steps": tr.global_step, "last_eval": tr.last_eval,
                                                         "frozen": frozen.name, "exploiters": len(exploiters)}})
            write_json(path, state)
        budget = [f"total_steps={exploiter_steps}"] if exploiter_steps else []
        br = exploit(str(frozen), g.name, players, exploiter_minutes, games, config, run_dir / f"exploiter_{r}",
                     [*overrides, *budget], progress)
        entry = next(x for x in state["rounds"] if x["round"] == r)
        entry["exploiter"] = {"path": str(Path(br["run_dir"]) / "best.pt"), "win_rate": br["win_rate"],
                              "ci95": br["ci95"], "games": br["games"], "minutes": br["minutes"],
                              "env_steps": br["env_steps"], "curve": br["curve"]}
        write_json(path, state)
    if cfg is None:  # every round done before: the main agent's config of the last one
        exploiters = [x["exploiter"]["path"] for x in state["rounds"][:-1]]
        cfg = load_config(config, main_overrides(g.name, players, rounds * main_minutes, exploiters,
                                                 exploiter_weight, main_steps and rounds * main_steps)
                          + list(overrides) + list(main_only))
    state["main_curve"] = eval_curves(main_dir)
    if "final" not in state and games > 0:
        last = run_dir / f"main_{max(x['round'] for x in state['rounds'])}.pt"
        report = json.loads(report_run(cfg, main_dir, games=games, checkpoint=last).read_text())
        state["final"] = {"evaluated": report.get("evaluated"), "pairings": [
            {"b": p["b"], "games": p["games"], "win_rate": p["win_rate_a"], "ci95": p["win_rate_a_ci95"]}
            for p in report["pairings"]]}
    write_json(path, state)
    return state


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="rummyrl-league", description="Train a network from the rules alone in a "
                                 "league with exploiters of it.", epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="gin", choices=registry.names())
    ap.add_argument("--players", type=int, default=None, help="Rummy's players (default: the plain config's)")
    ap.add_argument("--rounds", type=int, default=4, help="rounds of main training then a new exploiter (default 4)")
    ap.add_argument("--main-minutes", type=float, default=20.0, help="the main agent's minutes a round (default 20)")
    ap.add_argument("--exploiter-minutes", type=float, default=10.0,
                    help="each exploiter's training minutes (default 10)")
    ap.add_argument("--main-steps", type=float, default=None,
                    help="the main agent's env steps a round (a budget the same on any machine; the minutes cap it)")
    ap.add_argument("--exploiter-steps", type=float, default=None,
                    help="each exploiter's env steps (the minutes cap them)")
    ap.add_argument("--exploiter-weight", type=float, default=0.25,
                    help="each exploiter's weight among the main agent's opponents (default 0.25)")
    ap.add_argument("--games", type=int, default=2000,
                    help="duplicate games of each exploiter's and the final evaluation (default 2000)")
    ap.add_argument("--config", default=None, help="the config to start from (default: the game's plain config)")
    ap.add_argument("--run-dir", default=None, help="the league's folder (default runs/league_GAME)")
    ap.add_argument("--main", action="append", default=[], metavar="KEY=VALUE",
                    help="a config override for the main agent alone (repeatable), e.g. --main "
                         "init=agents/pretrained/gin-plain.pt --main net.hidden=192 to start it from a network of "
                         "the rules alone; exploiters always start fresh")
    ap.add_argument("overrides", nargs="*", help="config overrides key=value for every network of the league")
    args = ap.parse_intermixed_args(argv)
    bad = [f"{k} {v}" for k, v in (("--rounds", args.rounds), ("--games", args.games)) if v < 1] + \
          [f"{k} {v}" for k, v in (("--main-minutes", args.main_minutes), ("--exploiter-minutes", args.exploiter_minutes),
                                   ("--exploiter-weight", args.exploiter_weight)) if not v > 0] + \
          [f"{k} {v:g}" for k, v in (("--main-steps", args.main_steps), ("--exploiter-steps", args.exploiter_steps))
           if v is not None and v < 1]
    if bad:
        print(f"rummyrl-league: error: must be positive: {', '.join(bad)}", file=sys.stderr)
        return 2
    try:
        state = league(args.game, args.rounds, args.main_minutes, args.exploiter_minutes, args.games, args.players,
                       args.config, args.run_dir, args.overrides, args.exploiter_weight,
                       main_steps=int(args.main_steps) if args.main_steps else None,
                       exploiter_steps=int(args.exploiter_steps) if args.exploiter_steps else None,
                       main_only=args.main)
    except (ConfigError, ValueError, FileNotFoundError) as e:
        print(f"rummyrl-league: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("rummyrl-league: stopped; the same command goes on where it stopped", file=sys.stderr)
        return 130
    for x in state["rounds"]:
        e = x.get("exploiter")
        if e:
            print(f"round {x['round']}: the exploiter wins {e['win_rate']:.1%} [{e['ci95'][0]:.1%}, "
                  f"{e['ci95'][1]:.1%}] of {e['games']:,} games against the main agent of "
                  f"{x['main']['minutes']:.0f} minutes")
    for p in state.get("final", {}).get("pairings", []):
        print(f"the main agent against {p['b']}: {p['win_rate']:.1%} [{p['ci95'][0]:.1%}, {p['ci95'][1]:.1%}] "
              f"of {p['games']:,} games")
    return 0


__all__ = ["FORMAT", "league", "main", "main_overrides"]

if __name__ == "__main__":
    sys.exit(main())
