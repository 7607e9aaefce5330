"""The tiny training runs the tests share: settings overrides that finish in seconds."""

from __future__ import annotations

# a run of a few seconds: every opponent kind drawn, snapshots after every update
TINY = ["name=tiny", "num_envs=16", "rollout_steps=8", "total_steps=384", "minibatch_size=64",
        "net.hidden=16", "net.layers=1", "snapshot_every=1", "pool_size=2",
        "opponents.self_play=1", "opponents.snapshots=1", "opponents.simple=1", "opponents.expert=1",
        "opponents.random=1", "eval.every_minutes=0", "eval.games=4", "eval.final_games=4",
        "checkpoint_every_minutes=0", "time_limit_minutes=0", "lr_schedule=linear"]

TINY_EXIT = ["name=tiny_exit", "num_envs=12", "rollout_steps=12", "total_steps=432", "minibatch_size=32",
             "net.hidden=16", "net.layers=1", "exit.teacher=search:worlds=2,topk=2", "exit.batches=4",
             "exit.buffer=500", "opponents.self_play=1", "opponents.simple=1", "opponents.expert=1",
             "eval.every_minutes=0", "eval.games=4", "eval.final_games=4", "checkpoint_every_minutes=0",
             "time_limit_minutes=0"]

#: no default opponent: only the ones a test names
NONE = ["opponents.self_play=0", "opponents.snapshots=0", "opponents.simple=0", "opponents.expert=0",
        "opponents.random=0"]


def only(*weights) -> list[str]:
    """TINY with exactly these opponents (``(spec, weight)`` pairs), as one flow mapping (a
    spec may hold ``.``, ``:`` or ``=``, which a dotted override cannot), then the named
    defaults set to 0 (the mapping is laid over them)."""
    body = ", ".join(f"'{spec}': {w}" for spec, w in weights)
    return [o for o in TINY if not o.startswith("opponents.")] + [f"opponents={{{body}}}"] + NONE
