"""Expert iteration (``algo: exit``): search plays, the network learns to play like it.

Each iteration of :func:`exit_update`:

1. **Data.** The run's self-play lanes play ``rollout_steps`` batched steps. In every lane
   the learner's seats are played by the *teacher*, the ``search`` agent (``exit.teacher``,
   an agent spec such as ``search:worlds=32``), against an opponent from the pool (the
   teacher itself for self-play; snapshots of the network; the baselines). Every teacher
   decision is recorded: the observation, the network's per-action input, the mask, the
   action search chose, the network's own greedy choice and, with ``exit.target:
   softmax``, search's distribution: a soft-max of its mean action values over its
   candidates at ``exit.temperature`` (:func:`soft_targets`). When the lane's episode
   ends each record gets its return, the seat's rewards from that decision to the end
   (undiscounted).
2. **Distillation.** Finished records go to a replay buffer of the last ``exit.buffer``
   decisions; ``exit.batches`` minibatches of ``minibatch_size`` drawn from it train the
   network: cross-entropy of its policy to search's choice (or distribution) plus
   ``vf_coef`` times the squared error of its value to the return, with Adam at
   ``learning_rate``.
   With ``exit.phase: knock`` (or ``draw``) the teacher plays only those decisions of the
   learner's seats and the network, greedy, plays the rest; only the teacher's decisions
   are recorded. Search's cost then goes where its edge is (``scripts/search_where.py``).
   With ``exit.plays: network`` (DAgger) the network plays those decisions too and search
   only labels them, so the records hold the positions the network's own play reaches.
3. **The improved network becomes search's rollout policy** (``exit.rollout: network``: a
   copy of the network, greedy, ranks search's candidates and plays both seats of its
   rollouts) or search keeps the expert (``exit.rollout: expert``, the default, since on two
   cores a network rollout costs more than the expert's).

TensorBoard: ``exit/policy_loss``, ``exit/value_loss``, ``exit/accuracy`` (network argmax
equals search's choice on the minibatches), ``exit/search_departs`` (share of new
decisions where search chose other than the network's greedy action: how much there is
left to learn), ``exit/decisions_per_second`` and the periodic evaluation of the network
alone. ``--resume`` continues the network, optimizer, games and counters; the replay buffer
and the records of games in progress start afresh. PPO fine-tuning of the distilled network
is a resume with the other algorithm: ``python train.py --resume runs/NAME/last.pt algo=ppo``.

Where the data are made: with ``workers=0`` in this process (search spreads each batch of
decisions over the machine's cores); with ``workers=N`` on N Ray actors (:mod:`.workers`),
each with its share of the lanes, its own teacher seeded from the worker's seed and a copy of
the network for the student's choices (and search's rollouts), the learner concatenating
their records in worker order. The replay buffer and the distillation stay with the learner.

With ``exit.save_records: true`` each iteration's finished records are also written to
``<run dir>/records/`` (:func:`save_records`), so that the costly search data can be
distilled again offline with other settings (:mod:`.offline`, ``scripts/exit_fit.py``).
"""

from __future__ import annotations

import os
import typing
from pathlib import Path

import numpy as np
import torch

from rummyrl.agents.neural import NeuralAgent, PolicyNet, action_features, expert_prior
from rummyrl.agents.split import phase_rows

from .pool import EXPERT, SELF, SNAPSHOT
from .rollout import _game_stats, _hand_stats

if typing.TYPE_CHECKING:
    from .trainer import Trainer

# A record (one teacher decision) holds obs, prior, mask, target (search's choice),
# net_choice, ret and, with ``exit.target: softmax``, pi (search's distribution), cand
# (search's candidates, -1 for padding) and q (its mean value of each, NaN where unsearched).

#: what :class:`Pending` keeps beside a record to credit it, and drops when it is finished
_BOOKKEEPING = ("lane", "seat", "cum0")


class ReplayBuffer:
    """The last ``capacity`` finished records, a ring."""

    def __init__(self, capacity: int):
        self.capacity, self.size, self.pos = capacity, 0, 0
        self.data: dict[str, np.ndarray] = {}

    def add(self, rec: dict[str, np.ndarray]) -> None:
        n = len(rec.get("target", ()))
        if n == 0:
            return
        if not self.data:
            self.data = {k: np.zeros((self.capacity,) + v.shape[1:], v.dtype) for k, v in rec.items()}
        if n > self.capacity:
            rec = {k: v[-self.capacity:] for k, v in rec.items()}
            n = self.capacity
        idx = (self.pos + np.arange(n)) % self.capacity
        for k, v in rec.items():
            self.data[k][idx] = v
        self.pos = (self.pos + n) % self.capacity
        self.size = min(self.size + n, self.capacity)

    def sample(self, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        idx = rng.integers(0, self.size, n)
        return {k: v[idx] for k, v in self.data.items()}


class Pending:
    """Records whose episode has not ended yet, with each seat's reward so far."""

    def __init__(self, num_envs: int, num_players: int):
        self.chunks: list[dict[str, np.ndarray]] = []
        self.cum = np.zeros((num_envs, num_players), np.float64)  # rewards credited per (lane, seat)

    def add(self, lanes, seats, **fields) -> None:
        self.chunks.append({"lane": lanes, "seat": seats, "cum0": self.cum[lanes, seats].copy(), **fields})

    def credit(self, rewards: np.ndarray) -> None:
        self.cum += rewards

    def finish(self, done: np.ndarray) -> dict[str, np.ndarray]:
        """The records of the lanes whose episode ended (``done``), with their returns."""
        if not self.chunks or not done.any():
            if done.any():
                self.cum[done] = 0.0
            return {}
        rec = {k: np.concatenate([c[k] for c in self.chunks]) for k in self.chunks[0]}
        ended = done[rec["lane"]]
        if not ended.any():
            self.cum[done] = 0.0
            return {}
        out = {k: v[ended] for k, v in rec.items()}
        out["ret"] = (self.cum[out["lane"], out["seat"]] - out["cum0"]).astype(np.float32)
        keep = {k: v[~ended] for k, v in rec.items()}
        self.chunks = [keep] if keep["lane"].size else []
        self.cum[done] = 0.0
        return {k: v for k, v in out.items() if k not in _BOOKKEEPING}


def make_teacher(holder):
    """The search agent of ``exit.teacher``, seeded from ``holder``'s generator (the run's,
    or a Ray worker's)."""
    from rummyrl.agents import load_agent

    teacher = load_agent(holder.cfg.exit.teacher, game=holder.cfg.game, seed=int(holder.rng.integers(2**31)))
    teacher.set_rules(holder.env.state.config)  # the run's rules, for its worlds and rollouts
    return teacher


def network_agent(net: PolicyNet) -> NeuralAgent:
    copy = PolicyNet(net.io, net.cfg)
    copy.load_state_dict({k: v.cpu() for k, v in net.state_dict().items()})
    return NeuralAgent(copy.eval(), name="network")


def concat_records(parts: list[dict]) -> dict[str, np.ndarray]:
    """One batch of records from several (in the given order); ``{}`` when none has any."""
    parts = [p for p in parts if p]
    if not parts:
        return {}
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def soft_targets(choice: np.ndarray, cand: np.ndarray, values: np.ndarray, temperature: float,
                 num_actions: int) -> np.ndarray:
    """``(B, num_actions)`` policy targets: a soft-max of search's mean ``values`` over its
    candidates ``cand`` at ``temperature``; one-hot on ``choice`` where search did not
    think (fewer than two candidates with a value)."""
    B = len(choice)
    pi = np.zeros((B, num_actions), np.float32)
    valid = (cand >= 0) & np.isfinite(values)
    searched = valid.sum(1) > 1
    pi[np.flatnonzero(~searched), choice[~searched]] = 1.0
    if searched.any():
        v, c, ok = values[searched], cand[searched], valid[searched]
        z = np.where(ok, v / temperature, -np.inf)
        w = np.exp(z - z.max(1, keepdims=True))
        w /= w.sum(1, keepdims=True)
        rows = np.repeat(np.flatnonzero(searched), c.shape[1])
        keep = ok.reshape(-1)
        np.add.at(pi, (rows[keep], c.reshape(-1)[keep]), w.reshape(-1)[keep])
    return pi


def collect_search_data(tr: Trainer, stats: dict) -> dict[str, np.ndarray]:
    """Play ``rollout_steps`` batched steps with the teacher in the learner's seats; the
    records whose episodes ended, with their returns (see the module docstring). ``tr`` is
    whatever holds lanes: the trainer, or a Ray worker; its teacher and pending records are
    made on the first call."""
    cfg, env = tr.cfg, tr.env
    if getattr(tr, "exit_teacher", None) is None:
        tr.exit_teacher = make_teacher(tr)
        tr.exit_pending = Pending(cfg.num_envs, cfg.num_players)
    teacher, pending = tr.exit_teacher, tr.exit_pending
    student = network_agent(tr.net)
    if cfg.exit.rollout == "network":  # the latest network ranks search's candidates and plays its rollouts
        teacher.rollout = teacher.opponent = student
    batch = env.batch
    departs = decisions = 0
    finished = []
    for _ in range(cfg.rollout_steps):
        player = batch.player.copy()
        learner = (tr.lane_kind == SELF) | (player == tr.lane_seat)
        actions = np.zeros(cfg.num_envs, np.int64)
        rows = np.flatnonzero(learner)
        if rows.size:
            obs, mask = batch.obs[rows], batch.mask[rows]
            feats = action_features(cfg.net.features, cfg.game, obs, mask, cfg.num_players, cfg.net.expert_params)
            mine = student.act_with_prior(obs, mask, feats)
            actions[rows] = mine  # the network plays where the teacher does not
            if cfg.exit.phase != "all":  # the teacher's decisions only
                t = np.flatnonzero(phase_rows(cfg.exit.phase, cfg.game, obs, mask))
                rows, obs, mask, feats, mine = rows[t], obs[t], mask[t], feats[t], mine[t]
            if rows.size:
                extra = {}
                if cfg.exit.target == "softmax":
                    a, cand, values = teacher.decide(obs, mask)
                    extra["pi"] = soft_targets(a, cand, values, cfg.exit.temperature,
                                               mask.shape[1]).astype(np.float16)
                    extra["cand"], extra["q"] = cand.astype(np.int16), values.astype(np.float32)
                else:
                    a = teacher.act(obs, mask)
                if cfg.exit.plays == "teacher":  # else (DAgger) search only labels the network's positions
                    actions[rows] = a
                departs += int((a != mine).sum())
                decisions += rows.size
                pending.add(rows, player[rows], obs=obs.copy(), prior=feats.astype(np.float16),
                            mask=mask.copy(), target=a.astype(np.int64), net_choice=mine.astype(np.int64), **extra)
        others = np.flatnonzero(~learner)
        if others.size:
            kind = tr.lane_kind[others]
            prior = np.zeros((others.size, batch.mask.shape[1]), np.float32)
            snap = kind == SNAPSHOT
            if snap.any():
                r = others[snap]
                prior[snap] = action_features(cfg.net.features, cfg.game, batch.obs[r], batch.mask[r], cfg.num_players,
                                              cfg.net.expert_params)
            ex = kind == EXPERT
            if ex.any():
                r = others[ex]
                prior[ex] = expert_prior(cfg.game, batch.obs[r], batch.mask[r], cfg.num_players)
            actions[others] = tr.pool.act(kind, tr.lane_snap[others], batch.obs[others], batch.mask[others], prior)
        batch = env.step(actions)
        _hand_stats(env, tr, stats)
        pending.credit(batch.rewards)
        if batch.done.any():
            finished.append(pending.finish(batch.done))
            d = np.flatnonzero(batch.done)
            _game_stats(batch, tr, d, stats)
            tr.lane_kind[d], tr.lane_snap[d] = tr.pool.draw(d.size)
            tr.lane_seat[d] = tr.rng.integers(0, cfg.num_players, d.size)
    stats["exit/decisions"] = decisions
    stats["exit/departs"] = departs
    return concat_records(finished)


def save_records(folder, update: int, records: dict[str, np.ndarray]) -> Path | None:
    """Write one iteration's records as ``folder/records_<update>.npz``, through a temporary
    file renamed into place, so a killed run leaves only whole files. A name already taken
    (a run resumed from a checkpoint older than its last records) gets a suffix: saved
    records are never overwritten."""
    if not records:
        return None
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out, n = folder / f"records_{update:06d}.npz", 0
    while out.exists():
        n += 1
        out = folder / f"records_{update:06d}_{n}.npz"
    tmp = folder / f".{out.stem}.tmp.npz"
    np.savez_compressed(tmp, **records)
    os.replace(tmp, out)
    return out


def record_files(folder) -> list[Path]:
    """The files :func:`save_records` wrote to ``folder``, in iteration order."""
    files = sorted(Path(folder).glob("records_*.npz"))
    if not files:
        raise FileNotFoundError(f"no records_*.npz in {folder}: make them with exit.save_records=true")
    return files


def read_records(path) -> dict[str, np.ndarray]:
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def load_records(folder) -> dict[str, np.ndarray]:
    """Every record :func:`save_records` wrote to ``folder``, in iteration order."""
    return concat_records([read_records(f) for f in record_files(folder)])


def distill(net: PolicyNet, opt: torch.optim.Optimizer, buffer: ReplayBuffer, batches: int, size: int,
            vf_coef: float, max_grad_norm: float, rng: np.random.Generator, depart_weight: float = 1.0) -> dict:
    """``batches`` gradient steps on minibatches from the buffer: cross-entropy to search's
    choice (or distribution) plus ``vf_coef`` times the value's squared error; the mean
    losses. The decisions where search departed from the network's own choice weigh
    ``depart_weight`` times the others in the policy loss."""
    device = next(net.parameters()).device
    out = {"policy_loss": [], "value_loss": [], "accuracy": []}
    if buffer.size == 0:
        return {}
    net.train()
    for _ in range(batches):
        mb = buffer.sample(size, rng)
        t = {k: torch.from_numpy(np.ascontiguousarray(v)).to(device) for k, v in mb.items()}
        logits, value = net(t["obs"], t["prior"].float(), t["mask"])
        if "pi" in t:  # soft targets: cross-entropy to search's distribution
            ce = -(t["pi"].float() * torch.log_softmax(logits, 1)).sum(1)
        else:
            ce = torch.nn.functional.cross_entropy(logits, t["target"], reduction="none")
        w = 1.0 + (depart_weight - 1.0) * (t["target"] != t["net_choice"]).float()
        p_loss = (w * ce).sum() / w.sum()
        v_loss = 0.5 * (value - t["ret"]).pow(2).mean()
        loss = p_loss + vf_coef * v_loss
        if not torch.isfinite(loss):
            raise FloatingPointError(f"the distillation loss is not finite (policy {p_loss.item()}, value "
                                     f"{v_loss.item()}): lower the learning rate")
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), max_grad_norm)
        opt.step()
        out["policy_loss"].append(p_loss.item())
        out["value_loss"].append(v_loss.item())
        out["accuracy"].append((logits.argmax(1) == t["target"]).float().mean().item())
    net.eval()
    return {k: float(np.mean(v)) for k, v in out.items()}


def exit_update(tr: Trainer, update_threads: int) -> tuple:
    """One iteration (data, distillation, the new rollout policy); returns what
    :func:`~.loop.run_update` returns: (statistics, game statistics, env steps, times,
    samples trained on)."""
    import time

    cfg, workers = tr.cfg, tr.workers
    if tr.exit_buffer is None:
        tr.exit_buffer = ReplayBuffer(cfg.exit.buffer)
    t0 = time.perf_counter()
    torch.set_num_threads(1)
    records, stats = workers.collect()  # the search data: here, or on the Ray workers
    workers.release()
    tr.exit_buffer.add(records)
    if cfg.exit.save_records:
        save_records(tr.run_dir / "records", tr.updates, records)
    t1 = time.perf_counter()
    torch.set_num_threads(update_threads)
    upd = distill(tr.net, tr.opt, tr.exit_buffer, cfg.exit.batches, cfg.minibatch_size, cfg.vf_coef,
                  cfg.max_grad_norm, tr.rng, cfg.exit.depart_weight)
    decisions = stats.pop("exit/decisions")
    departs = stats.pop("exit/departs")
    upd["search_departs"] = departs / max(decisions, 1)
    upd["decisions_per_second"] = decisions / max(t1 - t0, 1e-9)
    upd["buffer"] = float(tr.exit_buffer.size)
    tr.updates += 1
    steps = cfg.rollout_steps * cfg.num_envs
    tr.global_step += steps
    snapshot = tr.updates % cfg.snapshot_every == 0
    if snapshot:
        tr.pool.add_snapshot(tr.net)
    workers.broadcast(tr.net, snapshot)  # Ray: the distilled network to the workers
    t2 = time.perf_counter()
    return upd, stats, steps, (t0, t1, t2), len(records.get("target", ()))
