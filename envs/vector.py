"""Batched Gin Rummy for training: B games stepped at once, no Python loop over games.

Self-play (:class:`GinSelfPlay`): one learner plays every seat of every game::

    env = GinSelfPlay(num_envs=1024, episode="game", reward="hand_points")
    batch = env.reset(seed=0)
    while training:
        actions = policy(batch.obs, batch.mask)   # (B,) one action per game, for batch.player
        batch = env.step(actions)

After every call, for each game ``b``:

* ``batch.player[b]``: the seat to act, ``batch.obs[b]`` its observation (``rummyrl.gin.observe``
  layout), ``batch.mask[b]`` its legal actions (bool);
* ``batch.rewards[b, q]``: the reward credited to seat ``q`` now: the acting seat receives
  everything that reached it since it last acted (so it is the reward of that seat's previous
  action), and when the game ended every seat receives its remainder. A learner that keeps one
  trajectory per seat appends ``rewards[b, q]`` to seat ``q``'s last transition. Over an
  episode each seat receives all its rewards exactly once; with a zero-sum scheme they add up
  to 0 over the seats;
* ``batch.done[b]`` (``terminated`` / ``truncated``): the game ended in this step; it was reset
  at once, so ``player``, ``obs`` and ``mask`` already belong to the next game, and
  ``batch.final`` holds the ended game's result (arrays, valid where ``done``):
  ``winner`` (-1: none), ``margin`` (G-19), ``total`` and ``hand_points`` ``(B, 2)``,
  ``hands_won`` ``(B, 2)``, ``hands_played``. With ``final_observations=True`` the ended game's
  last observation of every seat is in ``batch.final_obs`` ``(B, 2, OBS_DIM)``.

The arrays of a batch are buffers of the env, overwritten by the next call: copy what you
keep. Games are dealt as in every rummyrl env: lane ``b`` of ``reset(seed=s)`` plays game
``b`` of seed ``s`` (lane 0 is the game ``reset(seed=s)`` deals in the PettingZoo and Gymnasium
envs), and a lane's later games follow from the same seed. The seat bookkeeping
(:class:`SeatRewards`) and the step loop (:class:`BatchedSelfPlay`) do not depend on Gin Rummy
or on the number of players; a game plugs in through the ``_core_*`` methods.

Single agent (:class:`GinRummyVectorEnv`): a ``gymnasium.vector.VectorEnv`` in which the
learner plays one seat of each game and an opponent policy the other, inside the env (one
batched call per opponent move when the opponent is an ``agents.Agent``; a plain callable is
called game by game).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from rummyrl import gin

from .gin_options import make_config, observation_space
from .gin_rewards import GAME_POINTS_SCALE, HAND_POINTS_SCALE, RewardScheme
from .gym_gin import make_opponent, parse_seat, reseed_opponent
from .render import render_gin


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
# Gin Rummy
# --------------------------------------------------------------------------------------
_SELFPLAY_OPTIONS = ("num_envs", "reward", "hand_points_scale", "game_points_scale", "final_observations")


class GinSelfPlay(BatchedSelfPlay):
    """Batched Gin Rummy self-play (see the module docstring). Keyword arguments: ``reward``,
    ``hand_points_scale``, ``game_points_scale`` (``envs.gin_rewards``),
    ``final_observations`` and every rule option of ``rummyrl.gin.GinConfig``. Reset options:
    ``decks`` and ``dealers`` as ``rummyrl.gin.init`` takes them (one deck for all lanes,
    ``(B, 52)``, or a schedule ``(B, H, 52)``)."""

    num_players = gin.NUM_PLAYERS
    num_actions = gin.NUM_ACTIONS
    obs_dim = gin.OBS_DIM
    final_fill = {"winner": -1}

    def __init__(self, num_envs: int, reward: str = "hand_points",
                 hand_points_scale: float = HAND_POINTS_SCALE,
                 game_points_scale: float = GAME_POINTS_SCALE,
                 final_observations: bool = False, **rules):
        where = "GinSelfPlay"
        self.config = make_config(rules, where, _SELFPLAY_OPTIONS)
        try:
            self.reward_scheme = RewardScheme.parse(reward, hand_points_scale, game_points_scale)
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
        super().__init__(num_envs, final_observations)
        self.single_observation_space = observation_space(self.config)
        self.single_action_space = spaces.Discrete(gin.NUM_ACTIONS)

    def _final_buffers(self, num_envs):
        B, P = num_envs, self.num_players
        return {"winner": np.full(B, -1, np.int64), "margin": np.zeros(B, np.int64),
                "total": np.zeros((B, P), np.int64), "hand_points": np.zeros((B, P), np.int64),
                "hands_won": np.zeros((B, P), np.int64), "hands_played": np.zeros(B, np.int64)}

    def _core_init(self, seed, options):
        options = dict(options or {})
        unknown = sorted(set(options) - {"decks", "dealers"})
        if unknown:
            raise ValueError(f"GinSelfPlay: unknown reset option(s) {unknown}; known: ['decks', 'dealers']")
        self.state = gin.init(self.num_envs, seed=seed, config=self.config,
                              decks=options.get("decks"), dealers=options.get("dealers"))

    def _core_next_games(self, rows):
        gin.reset_done(self.state, rows)

    def _core_step(self, actions):
        gin.step(self.state, actions, inplace=True)

    def _core_observe(self, out, player=None):
        gin.observe(self.state, player, out=out)

    def _core_rewards(self, out):
        rows = np.flatnonzero(self.state.hand_ended)
        if rows.size:
            out[rows] = 0.0
            self.reward_scheme.add(self.state, out, rows)
        return rows

    def _core_final(self, rows):
        st, f = self.state, self.batch.final
        res = gin.game_result(st, rows)
        f["winner"][rows] = res.winner
        f["margin"][rows] = res.margin
        f["total"][rows] = res.total
        f["hand_points"][rows] = st.scores[rows]
        f["hands_won"][rows] = st.hands_won[rows]
        f["hands_played"][rows] = st.hand_no[rows] + 1


# --------------------------------------------------------------------------------------
# Single agent: gymnasium.vector.VectorEnv with the opponent inside
# --------------------------------------------------------------------------------------
_VECTOR_OPTIONS = ("num_envs", "opponent", "seat", "reward", "hand_points_scale",
                   "game_points_scale", "final_observations", "render_mode")
#: opponent moves (all lanes together) in one call before it is taken for a bug
_MAX_OPPONENT_ROUNDS = 100_000


class GinRummyVectorEnv(VectorEnv):
    """``num_envs`` single-agent Gin Rummy games as a ``gymnasium.vector.VectorEnv``.

    The learner plays one seat per game (``seat=None``: random each episode), ``opponent``
    the other, as in :class:`envs.gym_gin.GinRummyEnv`, whose arguments it takes. Episodes
    reset in the same step (``AutoresetMode.SAME_STEP``): where ``terminations | truncations``
    the returned observation is the next episode's first, and ``infos["final_obs"]`` (dict of
    ``(B, ...)`` arrays) and ``infos["final_info"]`` (``winner``, ``margin``, ``total``,
    ``hand_points``, ``hands_played``, ``seat``, each ``(B, ...)``) describe the ended one, rows valid where
    ``infos["_final_info"]``. ``infos["action_mask"]`` is the learner's mask. An illegal
    learner action raises ``IllegalActionError`` naming the game.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["ansi"]}

    def __init__(self, num_envs: int = 8, opponent="random", seat=None, reward: str = "hand_points",
                 hand_points_scale: float = HAND_POINTS_SCALE,
                 game_points_scale: float = GAME_POINTS_SCALE,
                 final_observations: bool = True, render_mode: str | None = None, **rules):
        where = "GinRummyVectorEnv"
        if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"{where}: num_envs must be a positive int, got {num_envs!r}")
        self.config = make_config(rules, where, _VECTOR_OPTIONS)
        try:
            self.reward_scheme = RewardScheme.parse(reward, hand_points_scale, game_points_scale)
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"{where}: render_mode must be 'ansi' or None, got {render_mode!r}")
        self.num_envs = B = int(num_envs)
        self.opponent = make_opponent(opponent, where)
        self._batched_opponent = callable(getattr(self.opponent, "act", None))
        self.fixed_seat = parse_seat(seat, where)
        self._seat_now = self.fixed_seat
        self.final_observations = bool(final_observations)
        self.render_mode = render_mode
        self.single_observation_space = observation_space(self.config)
        self.single_action_space = spaces.Discrete(gin.NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, B)
        self.action_space = batch_space(self.single_action_space, B)
        self.state: gin.GinState | None = None
        self.seat = np.zeros(B, np.int64)
        self.skipped_episodes = 0
        self._r = np.zeros((B, gin.NUM_PLAYERS))
        self._reward = np.zeros(B)
        self._carry = np.zeros(B)
        self._fresh = np.zeros(B, bool)
        self._opp_obs = np.empty((B, gin.OBS_DIM), np.float32)
        self._opp_act = np.zeros(B, np.int64)
        self._lanes = np.arange(B)

    # ---------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        options = dict(options or {})
        unknown = sorted(set(options) - {"decks", "dealers", "seat"})
        if unknown:
            raise ValueError(f"GinRummyVectorEnv: unknown reset option(s) {unknown}; "
                             "known: ['decks', 'dealers', 'seat']")
        # a seat given here holds until the next reset(), for the episodes that autoreset
        self._seat_now = parse_seat(options["seat"], "reset option") if "seat" in options else self.fixed_seat
        if seed is not None or "decks" in options or self.state is None:
            game_seed = seed if seed is not None else int(self.np_random.integers(2**63))
            self.state = gin.init(self.num_envs, seed=game_seed, config=self.config,
                                  decks=options.get("decks"), dealers=options.get("dealers"))
        else:
            gin.reset_done(self.state, self._lanes)
        reseed_opponent(self.opponent, self.np_random)
        self._choose_seats(self._lanes)
        self._carry[:] = 0.0
        self._fresh[:] = True
        done = np.zeros(self.num_envs, bool)  # every lane is fresh: ends here are skips
        self._advance(done, done.copy(), done.copy(), {})
        return self._observations(), self._infos(done, {})

    def step(self, actions):
        if self.state is None:
            raise RuntimeError("GinRummyVectorEnv: call reset() before step()")
        st, B = self.state, self.num_envs
        a = np.asarray(actions)
        if a.shape != (B,) or a.dtype.kind not in "iu":
            raise ValueError(f"GinRummyVectorEnv: actions must be an int array of shape ({B},), "
                             f"got {a.dtype} {a.shape}")
        self._reward[:] = self._carry
        self._carry[:] = 0.0
        self._fresh[:] = False
        try:
            gin.step(st, a, inplace=True)
        except gin.IllegalActionError as e:
            raise gin.IllegalActionError(f"GinRummyVectorEnv, learner: {e}") from None
        self._collect()
        done = np.zeros(B, bool)
        terminated, truncated = np.zeros(B, bool), np.zeros(B, bool)
        final: dict = {}
        self._advance(done, terminated, truncated, final)
        return self._observations(), self._reward.copy(), terminated, truncated, self._infos(done, final)

    # ---------------------------------------------------------------------------------
    def _choose_seats(self, rows: np.ndarray) -> None:
        if self._seat_now is None:
            self.seat[rows] = self.np_random.integers(0, gin.NUM_PLAYERS, rows.size)
        else:
            self.seat[rows] = self._seat_now

    def _collect(self) -> None:
        """Add the learner's rewards of the last core step; in lanes whose episode began in
        this call they wait for the learner's first step (``_carry``)."""
        st = self.state
        rows = np.flatnonzero(st.hand_ended)
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
        """Reset ended games and let the opponent move until the learner is to act in every
        game."""
        st = self.state
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
                gin.reset_done(st, rows)
                self._choose_seats(rows)
                self._fresh[rows] = True
            opp = st.current != self.seat
            if not opp.any():
                return
            gin.observe(st, out=self._opp_obs)
            rows = np.flatnonzero(opp)
            if self._batched_opponent:
                acts = self.opponent.act(self._opp_obs[rows], st.mask[rows])
            else:
                acts = [self.opponent(self._opp_obs[i], st.mask[i].copy()) for i in rows]
            self._opp_act[:] = 0
            self._opp_act[rows] = acts
            try:
                gin.step(st, self._opp_act, inplace=True, active=opp)
            except gin.IllegalActionError as e:
                raise gin.IllegalActionError(f"GinRummyVectorEnv, opponent {self.opponent!r}: {e}") from None
            self._collect()
        raise RuntimeError(f"GinRummyVectorEnv: the opponent moved {_MAX_OPPONENT_ROUNDS} times in one step")

    def _record_final(self, rows: np.ndarray, final: dict) -> None:
        st, B = self.state, self.num_envs
        if not final:
            final.update(winner=np.full(B, -1, np.int64), margin=np.zeros(B, np.int64),
                         total=np.zeros((B, gin.NUM_PLAYERS), np.int64),
                         hand_points=np.zeros((B, gin.NUM_PLAYERS), np.int64),
                         hands_played=np.zeros(B, np.int64), seat=np.zeros(B, np.int64))
            if self.final_observations:
                final["_obs"] = {"observation": np.zeros((B, gin.OBS_DIM), np.float32),
                                 "action_mask": np.zeros((B, gin.NUM_ACTIONS), np.int8)}
        res = gin.game_result(st, rows)
        final["winner"][rows] = res.winner
        final["margin"][rows] = res.margin
        final["total"][rows] = res.total
        final["hand_points"][rows] = st.scores[rows]
        final["hands_played"][rows] = st.hand_no[rows] + 1
        final["seat"][rows] = self.seat[rows]
        if self.final_observations:
            obs = gin.observe(st, self.seat)
            final["_obs"]["observation"][rows] = obs[rows]

    def _observations(self) -> dict:
        st = self.state
        return {"observation": gin.observe(st, self.seat), "action_mask": st.mask.astype(np.int8)}

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
            raise RuntimeError("GinRummyVectorEnv: call reset() before render()")
        return tuple(render_gin(self.state, b) for b in range(self.num_envs))
