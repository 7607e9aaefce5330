"""``search``: determinized Monte Carlo search over the batched engine (Gin Rummy).

At each decision, for every game of the batch at once:

1. **Worlds.** ``worlds`` full states consistent with the observation
   (:mod:`rummyrl.gin_beliefs`: the opponent's hidden cards and the stock order, uniform or
   weighted by an opponent model).
2. **Candidates.** The ``topk`` legal actions the rollout policy prefers (all legal
   actions when it has no preferences to rank them by, or with ``topk=0``). A decision
   with one candidate is played at once.
3. **Rollouts.** Every candidate is applied in every world (the same worlds for every
   candidate: common random numbers) and the hand is played to its end by the rollout
   policy in both seats, all ``games x worlds x candidates`` rollouts stepped together on
   the batched engine.
4. **Value** of a rollout, in the game's terms: the hand's points, signed (+ for the
   searching player), plus ``game_value`` when the hand ends the game (signed the same
   way), so near the target winning the game counts, not only the points.
5. **Choice.** The rollout policy's own first choice is kept unless another candidate
   beats it on the paired differences over the worlds by more than ``z`` standard errors:
   an estimate from a few dozen worlds is noisy, and a bias of the worlds (an opponent
   model that is wrong) shows up as many small, unreliable gains.

Options (``search:worlds=64,rollout=expert,topk=3``):

=============  ============  =========================================================
option         default       meaning
=============  ============  =========================================================
``worlds``     32            sampled worlds per decision
``topk``       3             candidates per decision (0: every legal action)
``rollout``    ``expert``    the policy of both seats in the rollouts: an agent name or a
                             checkpoint path
``opponent``   (rollout)     the opponents' policy in the rollouts, if not the rollout
                             policy: an agent name or a checkpoint path
``belief``     ``weighted``  ``uniform`` or ``weighted`` (:mod:`rummyrl.gin_beliefs`)
``beta``       0.1           the opponent model's weight on thrown and declined cards
``gamma``      0.04          ... and on the deadwood of its hand per turn played
``steps``      40            Metropolis steps per world (``weighted`` only)
``knock``      -1            the deadwood the opponent would already have knocked with
                             (-1: assume nothing; ``weighted`` only)
``z``          1.0           standard errors a candidate must win by to replace the
                             rollout policy's choice (0: the best mean)
``game_value`` 100           value of winning the game, beside the hand's points
``horizon``    100           actions a rollout may take; one still going is a hand
                             nobody wins (value 0): nearly every expert hand ends
                             within 76 actions, and the few that do not are the ones
                             that reach the move cap and score nothing anyway
``win_value``  100           Rummy: value of going out, beside the round's points
``oversample`` 4             Rummy, ``weighted``: uniform worlds drawn per world kept
                             (the opponent model weighs them and resamples)
=============  ============  =========================================================

The rules the worlds are dealt and the rollouts played by are ``config=`` (a ``GinConfig``
or ``RummyConfig``), which tournaments (``evaluate.py``), the environments' opponents,
``rummyrl.agents.play`` and training's teacher set to their games' rules
(:meth:`SearchAgent.set_rules`; a PettingZoo policy is called by your code: call it with
``env.unwrapped.config``); without it, the target and players are read from the observation
and the rest are the engine's defaults.

Rummy (``--game rummy``) searches the same way, to the end of the round: the worlds come
from :mod:`rummyrl.rummy_beliefs` (options ``beta`` and ``oversample``), a rollout is
worth the round's points to the searching player (minus them when another player goes
out) plus ``win_value`` when it goes out itself, and ``horizon`` defaults to 400 actions.
Its defaults differ where that measured better against three experts
(docs/research/search.md): ``belief=uniform``, ``win_value=100`` (going out is what wins
the round) and ``worlds=64`` (less noise per decision).
"""

from __future__ import annotations

import numpy as np

from rummyrl import games

from .base import Agent, check_game
from .loading import load_agent
from .params import split_items


def rollout_value(state, opts: dict) -> np.ndarray:
    """Each finished rollout's value for seat 0, the searching player: the points of the
    hand (round) it won, minus those of one it lost, ``game_value`` more (or less) when the
    hand ends the game, and ``win_value`` (Rummy's option; 0 elsewhere) more when it went out."""
    w = state.last_winner
    sign = np.where(w == 0, 1.0, np.where(w > 0, -1.0, 0.0))
    target = state.config.target
    others = np.delete(state.scores, 0, axis=1).max(1)
    game = (state.scores[:, 0] >= target).astype(float) - (others >= target)
    return sign * state.last_points + opts["game_value"] * game + opts.get("win_value", 0.0) * (w == 0)


#: every option of any game, for parsing spec strings
OPTIONS = {**games.SEARCH_DEFAULTS, "beta": (float, 0.0), "gamma": (float, 0.0), "steps": (int, 0), "knock": (float, 0.0),
           "oversample": (int, 0), "game_value": (float, 0.0), "win_value": (float, 0.0), "horizon": (int, 0)}


def parse_options(text: str) -> dict:
    """``"worlds=64,topk=3"`` -> ``{"worlds": 64, "topk": 3}``, every value checked. An agent
    spec that has options of its own goes in parentheses:
    ``"rollout=(expert:lookahead=4,w_gin=30),worlds=64"``."""
    out = {}
    for item in split_items(text):
        key, eq, value = item.partition("=")
        key = key.strip()
        value = value.strip()
        if value.startswith("(") and value.endswith(")"):
            value = value[1:-1]
        if not eq:
            raise ValueError(f"search option {item!r} is not KEY=VALUE; options: {', '.join(OPTIONS)}")
        if key in out:
            raise ValueError(f"search option {key!r} is given twice in {text!r}")
        if key not in OPTIONS:
            hint = ("; an agent spec with options of its own goes in parentheses, as in "
                    "rollout=(expert:lookahead=4,w_gin=30)" if ":" in text else "")
            raise ValueError(f"unknown search option {key!r}; options: {', '.join(OPTIONS)}{hint}")
        kind = OPTIONS[key][0]
        try:
            out[key] = kind(value)
        except ValueError:
            raise ValueError(f"search option {key}={value!r} must be a{'n int' if kind is int else ' number'}"
                             if kind is not str else f"search option {key} is empty") from None
    return out


class SearchAgent(Agent):
    """Determinized Monte Carlo search over the batched engine (see the module docstring):
    ``SearchAgent(game, seed, config=None, **options)`` with the options of the table
    above, or by name, ``load_agent("search:worlds=64,topk=3", game=...)``."""

    name = "search"

    def __init__(self, game: str = "gin", seed: int | None = None, config=None, **options):
        self.game = check_game(game)
        self.g = games.get(game)
        known = {**games.SEARCH_DEFAULTS, **self.g.search_defaults}
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise ValueError(f"unknown search option(s) {unknown} for {game}; options: {', '.join(known)}")
        opts = {k: v for k, (_, v) in known.items()} | options
        if opts["horizon"] < 1:
            raise ValueError(f"search option horizon must be >= 1, got {opts['horizon']}")
        if opts["worlds"] < 1:
            raise ValueError(f"search option worlds must be >= 1, got {opts['worlds']}")
        if opts["topk"] < 0:
            raise ValueError(f"search option topk must be >= 0 (0: every legal action), got {opts['topk']}")
        if opts["belief"] not in self.g.beliefs.MODELS:
            raise ValueError(f"search option belief must be one of {list(self.g.beliefs.MODELS)}, "
                             f"got {opts['belief']!r}")
        for key in ("beta", "gamma", "z", "steps", "oversample"):
            if key in opts and not opts[key] >= 0:
                raise ValueError(f"search option {key} must be >= 0, got {opts[key]}")
        if opts.get("knock", -1) < -1:
            raise ValueError(f"search option knock must be a deadwood limit >= 0, or -1 for none, got {opts['knock']}")
        for key in ("rollout", "opponent"):
            if opts[key].partition(":")[0] == "search":
                raise ValueError(f"the {key} policy of search cannot be search itself")
        self.options = opts
        self.rollout = load_agent(opts["rollout"], game=game, seed=seed)
        self.opponent = load_agent(opts["opponent"], game=game, seed=seed) if opts["opponent"] else self.rollout
        self.config = config
        self.reset(seed)

    def set_rules(self, config) -> None:
        """Deal the worlds and play the rollouts by ``config``, the rules of the games it is
        in (tournaments, environments and training call this)."""
        if not isinstance(config, self.g.config_cls):
            raise ValueError(f"search for {self.game!r} plays by a {self.g.config_cls.__name__}, got {config!r}")
        self.config = config

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.rollout.reset(seed)
        if self.opponent is not self.rollout:
            self.opponent.reset(seed)

    def __repr__(self) -> str:
        return f"SearchAgent(game={self.game!r}, " + ", ".join(f"{k}={v!r}" for k, v in self.options.items()) + ")"

    # ----------------------------------------------------------------------------------
    def worlds(self, observations: np.ndarray, n: int, rng: np.random.Generator):
        """``n`` full states consistent with each observation, dealt by the rules search
        was told (the game's belief sampler, ``Game.beliefs``, with this search's options)."""
        opts = self.options
        return self.g.beliefs.sample_worlds(observations, n, rng, self.config, model=opts["belief"],
                                            **{k: opts[k] for k in self.g.belief_options})

    def candidates(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``(B, k)`` candidate actions per game, the rollout policy's first choice first;
        -1 pads games with fewer legal actions."""
        k = self.options["topk"]
        prefs = getattr(self.rollout, "preferences", None)
        if prefs is None or k == 0:
            score = masks.astype(np.float64)
            first = self.rollout.act(observations, masks)
            score[np.arange(len(first)), first] = 2.0
            k = int(masks.sum(1).max())
        else:
            score = np.where(masks, prefs(observations, masks), -np.inf)
        order = np.argsort(-score, axis=1, kind="stable")[:, :k]
        legal = np.take_along_axis(masks, order, 1)
        return np.where(legal, order, -1)

    def action_values(self, observations: np.ndarray, masks: np.ndarray, cand: np.ndarray | None = None):
        """Search every game: ``(candidates (B, k), values (B, worlds, k))``; values of
        padding candidates are NaN."""
        obs = np.ascontiguousarray(observations, np.float32)
        masks = np.asarray(masks, bool)
        cand = self.candidates(obs, masks) if cand is None else cand
        B, k = cand.shape
        n = self.options["worlds"]
        worlds = self.worlds(obs, n, self.rng)
        # rollout (game b, world j, candidate i) is entry (b * n + j) * k + i
        first = np.repeat(cand, n, axis=0).reshape(-1)
        valid = first >= 0
        state = worlds.state.take(np.repeat(np.arange(B * n), k)[valid])
        self.g.engine.step(state, first[valid], inplace=True)
        values = np.full(B * n * k, np.nan)
        values[valid] = self._play_out(state)
        return cand, values.reshape(B, n, k)

    def _play_out(self, state) -> np.ndarray:
        """Play every game of ``state`` to the end of its hand (or ``horizon`` actions); the
        value of each."""
        values = np.zeros(state.batch_size)  # a rollout cut off at the horizon is worth 0
        idx = np.arange(state.batch_size)  # row of state -> rollout
        engine = self.g.engine
        obs = np.empty((state.batch_size, engine.OBS_DIM), np.float32)
        for step in range(self.options["horizon"] + 1):
            done = state.game_over
            if done.any():  # score finished rollouts and drop them from the batch
                values[idx[done]] = rollout_value(state.take(done), self.options)
                if done.all():
                    break
                state, idx = state.take(~done), idx[~done]
            if step == self.options["horizon"]:
                break
            o = engine.observe(state, out=obs[: idx.size])
            if self.opponent is self.rollout:
                actions = self.rollout.act(o, state.mask)
            else:  # the searching player (seat 0) plays the rollout policy, the others theirs
                actions = np.empty(idx.size, np.int64)
                mine = state.current == 0
                for agent, rows in ((self.rollout, mine), (self.opponent, ~mine)):
                    if rows.any():
                        actions[rows] = agent.act(o[rows], state.mask[rows])
            engine.step(state, actions, inplace=True)
        return values

    def choose(self, cand: np.ndarray, values: np.ndarray) -> np.ndarray:
        """The choice rule: the first candidate unless another beats it by ``z`` SEs."""
        n = values.shape[1]
        diff = values - values[:, :, :1]
        mean = diff.mean(1)
        se = diff.std(1, ddof=1) / np.sqrt(n) if n > 1 else np.zeros_like(mean)
        score = np.where(np.isnan(mean), -np.inf, mean - self.options["z"] * np.nan_to_num(se))
        score[:, 0] = 0.0
        return cand[np.arange(len(cand)), score.argmax(1)]

    def decide(self, observations: np.ndarray, action_masks: np.ndarray):
        """Act, and say what search saw: ``(actions (B,), candidates (B, k), mean values
        (B, k))``; the values are NaN for padding and for games with a single candidate
        (played without search)."""
        obs = np.ascontiguousarray(observations, np.float32)
        masks = np.asarray(action_masks, bool)
        cand = self.candidates(obs, masks)
        out = cand[:, 0].copy()
        means = np.full(cand.shape, np.nan)
        think = np.flatnonzero((cand[:, 1:] >= 0).any(1)) if cand.shape[1] > 1 else np.zeros(0, np.int64)
        if think.size:
            c, v = self.action_values(obs[think], masks[think], cand[think])
            out[think] = self.choose(c, v)
            means[think] = v.mean(1)
        return out, cand, means

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return self.decide(*self.check_batch(observations, action_masks))[0]
