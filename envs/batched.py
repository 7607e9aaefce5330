"""Batched card games for training: B games stepped at once, no Python loop over games,
for any game of the registry (``rummyrl.games``) and any number of players.

Self-play (:class:`SelfPlay`): one learner plays every seat of every game::

    from rummyrl.envs.batched import SelfPlay
    env = SelfPlay("gin", num_envs=1024, episode="game", reward="hand_points")
    batch = env.reset(seed=0)
    while training:
        actions = policy(batch.obs, batch.mask)   # (B,) one action per game, for batch.player
        batch = env.step(actions)

After every call, for each game ``b``:

* ``batch.player[b]``: the seat to act, ``batch.obs[b]`` its observation (the engine's
  ``OBS_LAYOUT``), ``batch.mask[b]`` its legal actions (bool);
* ``batch.rewards[b, q]``: the reward credited to seat ``q`` now: the acting seat receives
  everything that reached it since it last acted (so it is the reward of that seat's previous
  action), and when the game ended every seat receives its remainder. A learner that keeps one
  trajectory per seat appends ``rewards[b, q]`` to seat ``q``'s last transition. Over an
  episode each seat receives all its rewards exactly once; with a zero-sum scheme they add up
  to 0 over the seats;
* ``batch.done[b]`` (``terminated`` / ``truncated``): the game ended in this step; it was reset
  at once, so ``player``, ``obs`` and ``mask`` already belong to the next game, and
  ``batch.final`` holds the ended game's result (arrays, valid where ``done``):
  ``winner`` (-1: none), ``margin``, ``total`` ``(B, P)`` and, named after the game's deal
  (a Gin *hand*, a Rummy *round*), ``<deal>_points`` ``(B, P)``, ``<deal>s_won`` ``(B, P)``
  and ``<deal>s_played``. With ``final_observations=True`` the ended game's last
  observation of every seat is in ``batch.final_obs`` ``(B, P, OBS_DIM)``.

The arrays of a batch are buffers of the env, overwritten by the next call: copy what you
keep. Games are dealt as in every rummyrl env: lane ``b`` of ``reset(seed=s)`` plays game
``b`` of seed ``s`` (lane 0 is the game ``reset(seed=s)`` deals in the PettingZoo and Gymnasium
envs), and a lane's later games follow from the same seed. The seat bookkeeping
(:class:`SeatRewards`) and the step loop (:class:`BatchedSelfPlay`) know no game; a game
plugs in through the ``_core_*`` methods, which :class:`SelfPlay` implements for every
registered engine.

Single agent (:class:`OpponentVectorEnv`): a ``gymnasium.vector.VectorEnv`` in which the
learner plays one seat of each game and opponent policies the others, inside the env (one
batched call per opponent move when the opponent is an ``agents.Agent``; a plain callable is
called game by game). Each game's module names its classes: ``rummyrl.envs.gin_vector``
(``GinSelfPlay``, ``GinRummyVectorEnv``) and ``rummyrl.envs.rummy_vector`` (``RummySelfPlay``,
``RummyVectorEnv``).
"""


from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from rummyrl import games
from rummyrl.games import Game

from .options import check_render_mode, env_options, make_config, observation_space, parse_seat
from .render import render
from .seat_env import distinct, make_opponents, reseed_opponents


# --------------------------------------------------------------------------------------
# Seat rewards: generic over the number of players
# --------------------------------------------------------------------------------------
class SeatRewards:
    """Rewards of B games of P players, credited to each seat when it next acts.

    :meth:`add` collects the rewards of every core step; :meth:`deliver` hands out, per game,
    the acting seat's sum since it last acted, and every seat's sum in games that ended.
    """

    def __init__(self, num_envs: int, num_players: int):
        self.pending = np.zeros((num_envs, num_players))
        self._owed = np.zeros(num_envs, bool)  # games with anything pending (rewards are rare)

    def add(self, rewards: np.ndarray, rows: np.ndarray) -> None:
        """Add ``rewards[rows]`` ``(B, P)`` to what the seats of games ``rows`` are owed."""
        self.pending[rows] += rewards[rows]
        self._owed[rows] = True

    def deliver(self, player: np.ndarray, done: np.ndarray, out: np.ndarray) -> np.ndarray:
        """Write into ``out`` ``(B, P)`` the rewards credited now (see the module docstring)
        and forget them: all seats of the games in ``done``, then the seat ``player[b]`` that
        is to act in each game (in a game that ended: the next game's first player, who is
        owed nothing yet)."""
        out[:] = 0.0
        d = np.flatnonzero(done)
        if d.size:
            out[d] = self.pending[d]
            self.pending[d] = 0.0
            self._owed[d] = False
        rows = np.flatnonzero(self._owed)
        if rows.size:
            seat = player[rows]
            out[rows, seat] = self.pending[rows, seat]
            self.pending[rows, seat] = 0.0
            self._owed[rows] = self.pending[rows].any(1)
        return out

    def clear(self) -> None:
        self.pending[:] = 0.0
        self._owed[:] = False


@dataclass
class SelfPlayBatch:
    """What one call of :class:`BatchedSelfPlay` returns; see the module docstring."""

    player: np.ndarray  # (B,) int64: the seat to act
    obs: np.ndarray  # (B, OBS_DIM) float32: its observation
    mask: np.ndarray  # (B, A) bool: its legal actions
    rewards: np.ndarray  # (B, P) float32: rewards credited to each seat now
    done: np.ndarray  # (B,) bool: the game ended in this step (and was reset)
    terminated: np.ndarray  # (B,) bool
    truncated: np.ndarray  # (B,) bool
    final: dict  # name -> (B, ...) array, valid where done
    final_obs: np.ndarray | None  # (B, P, OBS_DIM) float32 where done, with final_observations


class BatchedSelfPlay:
    """The self-play step loop over a batched game core; a game implements the ``_core_*``
    methods (Gin Rummy: :class:`GinSelfPlay`). The core's state must expose ``current``
    ``(B,)``, ``mask`` ``(B, A)``, ``game_over`` ``(B,)`` and ``truncated`` ``(B,)``."""

    num_players: int
    num_actions: int
    obs_dim: int
    #: the value of ``batch.final`` entries outside ended games (default 0)
    final_fill: dict = {}

    def __init__(self, num_envs: int, final_observations: bool = False):
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        B, P = int(num_envs), self.num_players
        self.num_envs = B
        self.final_observations = bool(final_observations)
        self.state = None
        self.seats = SeatRewards(B, P)
        self._step_r = np.zeros((B, P))
        self._final_rows = np.empty(0, np.int64)
        self._seat_obs = np.empty((B, self.obs_dim), np.float32) if final_observations else None
        self.batch = SelfPlayBatch(
            player=np.zeros(B, np.int64), obs=np.zeros((B, self.obs_dim), np.float32),
            mask=np.zeros((B, self.num_actions), bool), rewards=np.zeros((B, P), np.float32),
            done=np.zeros(B, bool), terminated=np.zeros(B, bool), truncated=np.zeros(B, bool),
            final=self._final_buffers(B),
            final_obs=np.zeros((B, P, self.obs_dim), np.float32) if final_observations else None,
        )

    # --- what a game provides -----------------------------------------------------------
    def _final_buffers(self, num_envs: int) -> dict:
        """The arrays of ``batch.final``."""
        raise NotImplementedError

    def _core_init(self, seed, options) -> None:
        """Start ``num_envs`` games in ``self.state``."""
        raise NotImplementedError

    def _core_next_games(self, rows: np.ndarray) -> None:
        """Start the next game in lanes ``rows``."""
        raise NotImplementedError

    def _core_step(self, actions) -> None:
        raise NotImplementedError

    def _core_observe(self, out: np.ndarray, player=None) -> None:
        """Observations of the player to act (``player=None``) or of seat ``player``."""
        raise NotImplementedError

    def _core_rewards(self, out: np.ndarray) -> np.ndarray:
        """Write the last step's rewards ``(B, P)`` into ``out`` for the games where any
        arose and return those rows (the other rows of ``out`` are ignored)."""
        raise NotImplementedError

    def _core_final(self, rows: np.ndarray) -> None:
        """Fill ``self.batch.final`` at ``rows`` for games that are over."""
        raise NotImplementedError

    # --- the loop --------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> SelfPlayBatch:
        """Start a game in every lane: from ``seed`` (lane b plays game b of it), from
        explicit deals in ``options``, or without either the next game of each lane."""
        if seed is None and not options and self.state is not None:
            self._core_next_games(np.arange(self.num_envs))
        else:
            self._core_init(seed, options)
        self.seats.clear()
        b = self.batch
        for arr in (b.done, b.terminated, b.truncated):
            arr[:] = False
        self._clear_final()
        self._emit()
        return b

    def step(self, actions) -> SelfPlayBatch:
        """One action per game (for ``batch.player``); returns the next batch."""
        if self.state is None:
            raise RuntimeError(f"{type(self).__name__}: call reset() before step()")
        self._core_step(actions)
        st, b = self.state, self.batch
        rows = self._core_rewards(self._step_r)
        if rows.size:
            self.seats.add(self._step_r, rows)
        np.copyto(b.done, st.game_over)
        self._clear_final()
        if b.done.any():
            d = np.flatnonzero(b.done)
            b.truncated[d] = st.truncated[d]
            b.terminated[d] = ~st.truncated[d]
            self._core_final(d)
            if self.final_observations:
                for q in range(self.num_players):
                    self._core_observe(self._seat_obs, q)
                    b.final_obs[d, q] = self._seat_obs[d]
            self._final_rows = d
            self._core_next_games(d)
        self._emit()
        return b

    def _emit(self) -> None:
        st, b = self.state, self.batch
        self._core_observe(b.obs)
        np.copyto(b.mask, st.mask)
        np.copyto(b.player, st.current)
        self.seats.deliver(b.player, b.done, b.rewards)

    def _clear_final(self) -> None:
        """Zero the rows of the previous step's ended games, so stale results never show."""
        d = self._final_rows
        if d.size:
            b = self.batch
            b.terminated[d] = False
            b.truncated[d] = False
            for name, arr in b.final.items():
                arr[d] = self.final_fill.get(name, 0)
            if b.final_obs is not None:
                b.final_obs[d] = 0.0
            self._final_rows = np.empty(0, np.int64)


# --------------------------------------------------------------------------------------
# Self-play over a rummyrl engine
# --------------------------------------------------------------------------------------
class SelfPlay(BatchedSelfPlay):
    """Batched self-play of ``game`` (a registry name or entry; see the module docstring).
    Keyword arguments: ``reward`` (a scheme of the game's reward class, default its
    per-deal points), ``points_scale`` and ``game_points_scale`` (default the game's),
    ``final_observations`` and every rule option of the game's config. Reset options:
    ``decks`` and ``dealers`` as the engine's ``init`` takes them (one deck for all lanes,
    ``(B, 52)``, or a schedule ``(B, H, 52)``). ``batch.final`` holds ``winner``,
    ``margin``, ``total`` and, named after the game's deal, ``<deal>_points`` (points won
    in deals), ``<deal>s_won`` and ``<deal>s_played``."""

    final_fill = {"winner": -1}

    def __init__(self, game, num_envs: int, reward: str | None = None, points_scale: float | None = None,
                 game_points_scale: float | None = None, final_observations: bool = False, **rules):
        self.game = game = games.get(game)
        where = type(self).__name__
        self.config = make_config(game.config_cls, rules, where, env_options(type(self)))
        self.reward_scheme = games.load(game.rewards).parse_for(reward or game.points_reward,
                                                                (points_scale, game_points_scale), where)
        self.num_players = game.players_of(self.config)
        self.num_actions = game.num_actions
        self.obs_dim = game.obs_dim
        super().__init__(num_envs, final_observations)
        self.single_observation_space = observation_space(game, self.config)
        self.single_action_space = spaces.Discrete(game.num_actions)

    def _final_buffers(self, num_envs):
        B, P, deal = num_envs, self.num_players, self.game.deal
        return {"winner": np.full(B, -1, np.int64), "margin": np.zeros(B, np.int64),
                "total": np.zeros((B, P), np.int64), f"{deal}_points": np.zeros((B, P), np.int64),
                f"{deal}s_won": np.zeros((B, P), np.int64), f"{deal}s_played": np.zeros(B, np.int64)}

    def _core_init(self, seed, options):
        options = dict(options or {})
        unknown = sorted(set(options) - {"decks", "dealers"})
        if unknown:
            raise ValueError(f"{type(self).__name__}: unknown reset option(s) {unknown}; known: ['decks', 'dealers']")
        self.state = self.game.engine.init(self.num_envs, seed=seed, config=self.config,
                                         decks=options.get("decks"), dealers=options.get("dealers"))

    def _core_next_games(self, rows):
        self.game.engine.reset_done(self.state, rows)

    def _core_step(self, actions):
        self.game.engine.step(self.state, actions, inplace=True)

    def _core_observe(self, out, player=None):
        self.game.engine.observe(self.state, player, out=out)

    def _core_rewards(self, out):
        rows = np.flatnonzero(self.game.deal_ended(self.state))
        if rows.size:
            out[rows] = 0.0
            self.reward_scheme.add(self.state, out, rows)
        return rows

    def _core_final(self, rows):
        st, f, deal = self.state, self.batch.final, self.game.deal
        res = self.game.engine.game_result(st, rows)
        f["winner"][rows] = res.winner
        f["margin"][rows] = res.margin
        f["total"][rows] = res.total
        f[f"{deal}_points"][rows] = st.scores[rows]
        f[f"{deal}s_won"][rows] = self.game.deals_won(st)[rows]
        f[f"{deal}s_played"][rows] = self.game.deals_played(st)[rows]


# --------------------------------------------------------------------------------------
# Single agent: gymnasium.vector.VectorEnv with the opponents inside
# --------------------------------------------------------------------------------------
#: opponent moves (all lanes together) in one call before it is taken for a bug
_MAX_OPPONENT_ROUNDS = 100_000


class OpponentVectorEnv(VectorEnv):
    """``num_envs`` single-agent games as a ``gymnasium.vector.VectorEnv``: the learner plays
    one seat of each game, opponent policies the others, inside the env. A game's class sets
    ``game`` (``rummyrl.envs.gin_vector.GinRummyVectorEnv``, ``rummyrl.envs.rummy_vector.RummyVectorEnv``).

    Opponents are given as in ``rummyrl.envs.seat_env`` (one for every other seat, or one per relative
    seat). The games where an opponent is to act move together, one ``step(..., active=)``
    of the engine per round of opponent moves; an opponent with an ``act`` method (an
    ``agents.Agent``) is called once for all its games, a plain callable game by game.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["ansi"]}
    game: Game

    def __init__(self, num_envs: int, opponent, seat, reward, scales: tuple, final_observations: bool,
                 render_mode: str | None, rules: dict):
        where = type(self).__name__
        core = self.game.engine
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"{where}: num_envs must be a positive int, got {num_envs!r}")
        self.config = make_config(self.game.config_cls, rules, where, env_options(type(self)))
        self.reward_scheme = games.load(self.game.rewards).parse_for(reward, scales, where)
        check_render_mode(render_mode, self.metadata["render_modes"], where)
        self.num_envs = B = int(num_envs)
        self.num_players = P = self.game.players_of(self.config)
        self.opponents = make_opponents(opponent, self.game.name, P, where, self.config)
        # each distinct opponent with the relative seats it plays (1..P-1)
        self._groups = [(o, np.array([j + 1 for j, x in enumerate(self.opponents) if x is o]),
                         callable(getattr(o, "act", None))) for o in distinct(self.opponents)]
        self.fixed_seat = parse_seat(seat, P, where)
        self._seat_now = self.fixed_seat
        self.final_observations = bool(final_observations)
        self.render_mode = render_mode
        self.single_observation_space = observation_space(self.game, self.config)
        self.single_action_space = spaces.Discrete(core.NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, B)
        self.action_space = batch_space(self.single_action_space, B)
        self.state = None
        self.seat = np.zeros(B, np.int64)
        self.skipped_episodes = 0
        self._r = np.zeros((B, P))
        self._reward = np.zeros(B)
        self._carry = np.zeros(B)
        self._fresh = np.zeros(B, bool)
        self._opp_obs = np.empty((B, core.OBS_DIM), np.float32)
        self._opp_act = np.zeros(B, np.int64)
        self._lanes = np.arange(B)

    # ---------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        where, core = type(self).__name__, self.game.engine
        options = dict(options or {})
        unknown = sorted(set(options) - {"decks", "dealers", "seat"})
        if unknown:
            raise ValueError(f"{where}: unknown reset option(s) {unknown}; known: ['decks', 'dealers', 'seat']")
        # a seat given here holds until the next reset(), for the episodes that autoreset
        self._seat_now = (parse_seat(options["seat"], self.num_players, "reset option") if "seat" in options
                          else self.fixed_seat)
        if seed is not None or "decks" in options or self.state is None:
            game_seed = seed if seed is not None else int(self.np_random.integers(2**63))
            self.state = core.init(self.num_envs, seed=game_seed, config=self.config,
                                   decks=options.get("decks"), dealers=options.get("dealers"))
        else:
            core.reset_done(self.state, self._lanes)
        reseed_opponents(self.opponents, self.np_random)
        self._choose_seats(self._lanes)
        self._carry[:] = 0.0
        self._fresh[:] = True
        done = np.zeros(self.num_envs, bool)  # every lane is fresh: ends here are skips
        self._advance(done, done.copy(), done.copy(), {})
        return self._observations(), self._infos(done, {})

    def step(self, actions):
        where, core = type(self).__name__, self.game.engine
        if self.state is None:
            raise RuntimeError(f"{where}: call reset() before step()")
        st, B = self.state, self.num_envs
        a = np.asarray(actions)
        if a.shape != (B,) or a.dtype.kind not in "iu":
            raise ValueError(f"{where}: actions must be an int array of shape ({B},), got {a.dtype} {a.shape}")
        self._reward[:] = self._carry
        self._carry[:] = 0.0
        self._fresh[:] = False
        try:
            core.step(st, a, inplace=True)
        except core.IllegalActionError as e:
            raise core.IllegalActionError(f"{where}, learner: {e}") from None
        self._collect()
        done = np.zeros(B, bool)
        terminated, truncated = np.zeros(B, bool), np.zeros(B, bool)
        final: dict = {}
        self._advance(done, terminated, truncated, final)
        return self._observations(), self._reward.copy(), terminated, truncated, self._infos(done, final)

    # ---------------------------------------------------------------------------------
    def _choose_seats(self, rows: np.ndarray) -> None:
        if self._seat_now is None:
            self.seat[rows] = self.np_random.integers(0, self.num_players, rows.size)
        else:
            self.seat[rows] = self._seat_now

    def _collect(self) -> None:
        """Add the learner's rewards of the last core step; in lanes whose episode began in
        this call they wait for the learner's first step (``_carry``)."""
        st = self.state
        rows = np.flatnonzero(self.game.deal_ended(st))
        if rows.size == 0:
            return
        r = self._r
        r[rows] = 0.0
        self.reward_scheme.add(st, r, rows)
        gain = r[rows, self.seat[rows]]
        fresh = self._fresh[rows]
        self._reward[rows[~fresh]] += gain[~fresh]
        self._carry[rows[fresh]] += gain[fresh]

    def _advance(self, done, terminated, truncated, final) -> None:
        """Reset ended games and let the opponents move until the learner is to act in every
        game."""
        st, core, where = self.state, self.game.engine, type(self).__name__
        for _ in range(_MAX_OPPONENT_ROUNDS):
            if st.game_over.any():
                rows = np.flatnonzero(st.game_over)
                ended = rows[~self._fresh[rows]]  # the learner's episode ends
                skipped = rows[self._fresh[rows]]  # ended before the learner acted: not an episode
                if ended.size:
                    done[ended] = True
                    truncated[ended] = st.truncated[ended]
                    terminated[ended] = ~st.truncated[ended]
                    self._record_final(ended, final)
                self.skipped_episodes += skipped.size
                self._carry[skipped] = 0.0
                core.reset_done(st, rows)
                self._choose_seats(rows)
                self._fresh[rows] = True
            opp = st.current != self.seat
            if not opp.any():
                return
            core.observe(st, out=self._opp_obs)
            relative = (st.current - self.seat) % self.num_players if len(self._groups) > 1 else None
            self._opp_act[:] = 0
            for opponent, seats, batched in self._groups:
                rows = np.flatnonzero(opp if relative is None else opp & np.isin(relative, seats))
                if rows.size == 0:
                    continue
                if batched:
                    acts = opponent.act(self._opp_obs[rows], st.mask[rows])
                else:
                    acts = [opponent(self._opp_obs[i], st.mask[i].copy()) for i in rows]
                self._opp_act[rows] = acts
            try:
                core.step(st, self._opp_act, inplace=True, active=opp)
            except core.IllegalActionError as e:
                raise core.IllegalActionError(f"{where}, opponents {self.opponents!r}: {e}") from None
            self._collect()
        raise RuntimeError(f"{where}: the opponents moved {_MAX_OPPONENT_ROUNDS} times in one step")

    def _record_final(self, rows: np.ndarray, final: dict) -> None:
        st, B, P, core, deal = self.state, self.num_envs, self.num_players, self.game.engine, self.game.deal
        if not final:
            final.update(winner=np.full(B, -1, np.int64), margin=np.zeros(B, np.int64),
                         total=np.zeros((B, P), np.int64), **{f"{deal}_points": np.zeros((B, P), np.int64),
                                                              f"{deal}s_played": np.zeros(B, np.int64)},
                         seat=np.zeros(B, np.int64))
            if self.final_observations:
                final["_obs"] = {"observation": np.zeros((B, core.OBS_DIM), np.float32),
                                 "action_mask": np.zeros((B, core.NUM_ACTIONS), np.int8)}
        res = core.game_result(st, rows)
        final["winner"][rows] = res.winner
        final["margin"][rows] = res.margin
        final["total"][rows] = res.total
        final[f"{deal}_points"][rows] = st.scores[rows]
        final[f"{deal}s_played"][rows] = self.game.deals_played(st)[rows]
        final["seat"][rows] = self.seat[rows]
        if self.final_observations:
            obs = core.observe(st, self.seat)
            final["_obs"]["observation"][rows] = obs[rows]

    def _observations(self) -> dict:
        st = self.state
        return {"observation": self.game.engine.observe(st, self.seat), "action_mask": st.mask.astype(np.int8)}

    def _infos(self, done: np.ndarray, final: dict) -> dict:
        infos = {"action_mask": self.state.mask.astype(np.int8), "seat": self.seat.copy()}
        if done.any():
            obs = final.pop("_obs", None)
            infos["final_info"] = final
            infos["_final_info"] = done
            if obs is not None:
                infos["final_obs"] = obs
                infos["_final_obs"] = done.copy()
        return infos

    def render(self):
        if self.render_mode is None:
            return None
        if self.state is None:
            raise RuntimeError(f"{type(self).__name__}: call reset() before render()")
        names = tuple(f"player_{p}" for p in range(self.num_players))
        return tuple(render(self.game, self.state, b, names, None) for b in range(self.num_envs))
