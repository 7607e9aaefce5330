"""Expert iteration (``algo: exit``): search plays, the network learns to play like it.

Each iteration (:func:`exit_update`; :class:`ExpertIteration` is what the trainer calls,
:mod:`.methods`):

1. **Data.** The run's self-play lanes (:class:`~.lanes.Lanes`) play ``rollout_steps``
   batched steps. In every lane the learner's seats are played by the *teacher*, the
   ``search`` agent (``exit.teacher``, an agent spec such as ``search:worlds=32``), against
   an opponent from the pool (the teacher itself for self-play; snapshots of the network;
   the baselines). :class:`TeacherLanes` is this method's part of the lanes (the teacher and
   the records of games in progress) and :class:`TeacherSide` its part of their step loop:
   every teacher decision is recorded with the observation, the network's per-action input
   (the lanes compute it once per step), the mask, the action search chose, the network's
   own greedy choice and, with ``exit.record_values``, search's candidates and its mean
   value of each. When the lane's episode ends each record gets its return, the seat's
   rewards from that decision to the end (undiscounted).
2. **Distillation.** Finished records go to a replay buffer of the last ``exit.buffer``
   decisions; ``exit.batches`` minibatches of ``minibatch_size`` drawn from it train the
   network: cross-entropy of its policy to search's choice plus ``vf_coef`` times the
   squared error of its value to the return, with Adam at ``learning_rate``. With
   ``exit.learn: false`` (a data run, for an offline fit) the losses are measured and the
   network is left as it is.
   With ``exit.phase: knock`` (or ``draw``, ``play``, ``stock``) the teacher plays only
   those decisions of the learner's seats and the network, greedy, plays the rest; only
   the teacher's decisions are recorded. Search's cost then goes where its edge is
   (``docs/research/scripts/search_where.py``). With ``exit.plays: network`` (DAgger) the network plays
   those decisions too and search only labels them, so the records hold the positions the
   network's own play reaches.

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
the network for the student's choices, the learner concatenating their records in worker
order. The replay buffer and the distillation stay with the learner.

With ``exit.save_records: true`` each iteration's finished records are also written to
``<run dir>/records/`` (:func:`save_records`), so that the costly search data can be
distilled again offline with other settings (:mod:`.offline`, ``scripts/exit_fit.py``).
"""

from __future__ import annotations

import os
import time
import typing
from pathlib import Path

import numpy as np
import torch

from rummyrl.agents import load_agent
from rummyrl.agents.network import PolicyNet
from rummyrl.agents.neural import NeuralAgent
from rummyrl.agents.split import phase_rows

from .config import TrainConfig
from .methods import Update

if typing.TYPE_CHECKING:
    from .lanes import Lanes
    from .trainer import Trainer

#: the statistics :func:`distill` returns, logged as ``exit/<key>`` by the trainer (and
#: ``distill/train_<key>``, ``distill/valid_<key>`` by the offline fit), and what each means
METRICS = {
    "exit/policy_loss": "cross-entropy to the teacher's choice (departures weighted by `exit.depart_weight`)",
    "exit/value_loss": "half the squared error of the value to the hand's result",
    "exit/accuracy": "share of the minibatch decisions where the network's argmax is the teacher's choice",
    "exit/search_departs": "share of the iteration's decisions where the teacher chose other than the network",
    "exit/decisions_per_second": "teacher decisions recorded per second of the data phase",
    "exit/buffer": "decisions held in the replay buffer (`exit.buffer`)",
}

# A record (one teacher decision) holds obs, prior, mask, target (search's choice),
# net_choice, ret and, with ``exit.record_values``, cand (search's candidates, -1 for
# padding) and q (its mean value of each, NaN where unsearched). Records written before
# the soft-max targets were removed may also hold pi (their distribution), which nothing reads.

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


def network_agent(net: PolicyNet) -> NeuralAgent:
    """A greedy CPU copy of ``net``: the student whose choices the records keep."""
    copy = PolicyNet(net.game, net.cfg)
    copy.load_state_dict({k: v.cpu() for k, v in net.state_dict().items()})
    return NeuralAgent(copy.eval(), name="network")


def concat_records(parts: list[dict]) -> dict[str, np.ndarray]:
    """One batch of records from several (in the given order); ``{}`` when none has any."""
    parts = [p for p in parts if p]
    if not parts:
        return {}
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


class TeacherSide:
    """Expert iteration's learner in the lanes' step loop (:meth:`~.lanes.Lanes.play`): the
    network (``student``, greedy) chooses at every learner row; at the rows of
    ``exit.phase`` the teacher decides too, plays (unless ``exit.plays: network``) and is
    recorded in ``pending``; the records whose episodes end are kept for :meth:`result`."""

    def __init__(self, cfg: TrainConfig, teacher, pending: Pending, student: NeuralAgent):
        self.ex, self.game = cfg.exit, cfg.game
        self.teacher, self.pending, self.student = teacher, pending, student
        self.finished: list[dict] = []
        self.decisions = self.departs = 0

    def act(self, step: int, lanes: np.ndarray, seats: np.ndarray, obs: np.ndarray, mask: np.ndarray,
            prior: np.ndarray) -> np.ndarray:
        mine = self.student.act_with_prior(obs, mask, prior)
        out = mine.copy()  # the network plays where the teacher does not
        at = slice(None)
        if self.ex.phase != "all":  # the teacher's decisions only
            at = np.flatnonzero(phase_rows(self.ex.phase, self.game, obs, mask))
            lanes, seats, obs, mask, prior, mine = lanes[at], seats[at], obs[at], mask[at], prior[at], mine[at]
        if lanes.size:
            extra = {}
            if self.ex.record_values:
                a, cand, values = self.teacher.decide(obs, mask)
                extra["cand"], extra["q"] = cand.astype(np.int16), values.astype(np.float32)
            else:
                a = self.teacher.act(obs, mask)
            if self.ex.plays == "teacher":  # else (DAgger) search only labels the network's positions
                out[at] = a
            self.departs += int((a != mine).sum())
            self.decisions += lanes.size
            self.pending.add(lanes, seats, obs=obs.copy(), prior=prior.astype(np.float16), mask=mask.copy(),
                             target=a.astype(np.int64), net_choice=mine.astype(np.int64), **extra)
        return out

    def credit(self, rewards: np.ndarray, done: np.ndarray) -> None:
        self.pending.credit(rewards)
        if done.any():
            self.finished.append(self.pending.finish(done))

    def result(self, stats: dict) -> dict[str, np.ndarray]:
        """The records whose episodes ended, with their returns; the decisions and
        departures counted in ``stats``."""
        stats["exit/decisions"] = self.decisions
        stats["exit/departs"] = self.departs
        return concat_records(self.finished)


class TeacherLanes:
    """Expert iteration's part of the lanes: the teacher and the records of games in
    progress, made on the first rollout (not in checkpoints: a resumed run starts them
    afresh, the teacher seeded from the lanes' generator then)."""

    def __init__(self, lanes: Lanes):
        self.lanes = lanes
        self.teacher = None
        self.pending: Pending | None = None

    def side(self, net: PolicyNet) -> TeacherSide:
        lanes, cfg = self.lanes, self.lanes.cfg
        if self.teacher is None:
            self.teacher = load_agent(cfg.exit.teacher, game=cfg.game, seed=int(lanes.rng.integers(2**31)))
            self.teacher.set_rules(lanes.env.state.config)  # the run's rules, for its worlds and rollouts
            self.pending = Pending(cfg.num_envs, cfg.num_players)
        return TeacherSide(cfg, self.teacher, self.pending, network_agent(net))

    def state_dict(self) -> dict:
        return {}

    def load_state_dict(self, d: dict) -> None:
        pass


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


#: the fields of a record that distillation reads
_TRAINED = ("obs", "prior", "mask", "target", "net_choice", "ret")


def distill(net: PolicyNet, opt: torch.optim.Optimizer, buffer: ReplayBuffer, batches: int, size: int,
            vf_coef: float, max_grad_norm: float, rng: np.random.Generator, depart_weight: float = 1.0,
            learn: bool = True) -> dict:
    """``batches`` gradient steps on minibatches from the buffer: cross-entropy to search's
    choice plus ``vf_coef`` times the value's squared error; the mean losses. The decisions
    where search departed from the network's own choice weigh ``depart_weight`` times the
    others in the policy loss. With ``learn=False`` the same minibatches are drawn and their
    losses measured, and the network is left as it is."""
    device = next(net.parameters()).device
    out = {"policy_loss": [], "value_loss": [], "accuracy": []}
    if buffer.size == 0:
        return {}
    net.train(learn)
    for _ in range(batches):
        mb = buffer.sample(size, rng)
        t = {k: torch.from_numpy(np.ascontiguousarray(mb[k])).to(device) for k in _TRAINED}
        with torch.set_grad_enabled(learn):
            logits, value = net(t["obs"], t["prior"].float(), t["mask"])
            ce = torch.nn.functional.cross_entropy(logits, t["target"], reduction="none")
            w = 1.0 + (depart_weight - 1.0) * (t["target"] != t["net_choice"]).float()
            p_loss = (w * ce).sum() / w.sum()
            v_loss = 0.5 * (value - t["ret"]).pow(2).mean()
            loss = p_loss + vf_coef * v_loss
        if not torch.isfinite(loss):
            raise FloatingPointError(f"the distillation loss is not finite (policy {p_loss.item()}, value "
                                     f"{v_loss.item()}): lower the learning rate")
        if learn:
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), max_grad_norm)
            opt.step()
        out["policy_loss"].append(p_loss.item())
        out["value_loss"].append(v_loss.item())
        out["accuracy"].append((logits.argmax(1) == t["target"]).float().mean().item())
    net.eval()
    return {k: float(np.mean(v)) for k, v in out.items()}


def exit_update(tr: Trainer, update_threads: int) -> Update:
    """One iteration of expert iteration: search data from the workers, distillation, the
    snapshot when one is due, the new weights to the workers."""
    cfg, workers, buffer = tr.cfg, tr.workers, tr.method.buffer
    t0 = time.perf_counter()
    torch.set_num_threads(1)
    records, stats = workers.collect()  # the search data: here, or on the Ray workers
    buffer.add(records)
    if cfg.exit.save_records:
        save_records(tr.run_dir / "records", tr.updates, records)
    t1 = time.perf_counter()
    torch.set_num_threads(update_threads)
    upd = distill(tr.net, tr.opt, buffer, cfg.exit.batches, cfg.minibatch_size, cfg.vf_coef,
                  cfg.max_grad_norm, tr.rng, cfg.exit.depart_weight, learn=cfg.exit.learn)
    decisions = stats.pop("exit/decisions")
    departs = stats.pop("exit/departs")
    upd["search_departs"] = departs / max(decisions, 1)
    upd["decisions_per_second"] = decisions / max(t1 - t0, 1e-9)
    upd["buffer"] = float(buffer.size)
    steps = cfg.rollout_steps * cfg.num_envs
    tr.end_update(steps)  # Ray: the distilled network to the workers
    t2 = time.perf_counter()
    return Update(upd, stats, steps, (t0, t1, t2), len(records.get("target", ())))


class ExpertIteration:
    """``algo: exit`` for the trainer (:mod:`.methods`). The replay buffer is the learner's
    and is not in checkpoints: a resumed run fills it afresh."""

    section = "exit"
    lanes_part = TeacherLanes
    concat = staticmethod(concat_records)

    def __init__(self, tr: Trainer):
        self.tr = tr
        self.buffer = ReplayBuffer(tr.cfg.exit.buffer)

    def update(self, update_threads: int) -> Update:
        return exit_update(self.tr, update_threads)

    def state_dict(self, resumable: bool) -> dict:
        return {}

    def load_state_dict(self, data: dict) -> None:
        pass

    def close(self) -> None:
        pass
