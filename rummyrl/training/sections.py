"""The sections of the training config that are settings classes of their own: the opponent
weights' named kinds (``opponents``), periodic evaluation (``eval``) and expert iteration
(``exit``). Each field is declared once with its type, range and docstring
(:mod:`rummyrl.settings`); :class:`~.config.TrainConfig` holds them, and the docs' field tables
read them from here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import field
from typing import Annotated, Literal

from rummyrl.agents.split import PHASES
from rummyrl.settings import Before, Field, Float, Int, settings


@settings
class OpponentConfig:
    """How often each kind of opponent is drawn for a new game (weights, normalised): the
    named kinds and their defaults. ``opponents`` is a mapping: these keys keep their
    defaults unless given, and any other key is an agent spec that ``load_agent`` builds
    (``pretrained``, ``expert:lookahead=4``, ``search:worlds=16``, a checkpoint path), drawn
    with its weight."""

    self_play: Float[Field(ge=0)] = 0.4
    """The current policy in every other seat (all seats learn)."""
    snapshots: Float[Field(ge=0)] = 0.2
    """A past snapshot of the policy, drawn uniformly from the pool."""
    simple: Float[Field(ge=0)] = 0.2
    """The rule-based ``simple`` baseline."""
    expert: Float[Field(ge=0)] = 0.2
    """The rule-based ``expert`` baseline."""
    random: Float[Field(ge=0)] = 0.0
    """Uniformly random legal play."""


def _over_defaults(value):
    """``opponents`` laid over :class:`OpponentConfig`'s defaults: the kinds it names change."""
    if not isinstance(value, dict):
        raise ValueError("must be a mapping of opponents (self_play, snapshots or an agent spec) to weights")
    for k in value:
        if not isinstance(k, str) or not k.strip():
            raise ValueError(f"each key is self_play, snapshots or an agent spec, got {k!r}")
    return {**dataclasses.asdict(OpponentConfig()), **value}


#: the type of ``TrainConfig.opponents``: a mapping of kinds to weights >= 0, over
#: :class:`OpponentConfig`'s defaults
OpponentWeights = Annotated[dict[str, Float[Field(ge=0)]], Before(_over_defaults)]


@settings(section="eval")
class EvalConfig:
    """Periodic evaluation with evaluate.py's code (greedy policy, duplicate deals)."""

    every_minutes: Float[Field(ge=0)] = 5.0
    """Minutes of training between evaluations (0: none by the clock)."""
    every_steps: Int[Field(ge=0)] = 0
    """Env steps between evaluations (0: none by steps). Evaluations by steps fall at the same
    points of training on any machine, so the checkpoint that becomes ``best.pt`` does too;
    by the clock, a slower machine evaluates (and may pick) other steps. With both 0 there
    is no learning curve and ``best.pt`` is the final network."""
    games: Int[Field(gt=0)] = 400
    """Games per opponent at each periodic evaluation."""
    final_games: Int[Field(ge=0)] = 2000
    """Games per opponent in the evaluation after training."""
    opponents: list[Annotated[str, Field(min_length=1)]] = field(default_factory=lambda: ["simple", "expert"])
    """The agents to evaluate against: any specs ``load_agent`` builds (baselines, names with
    options, ``search``, shipped networks, checkpoint paths)."""
    best_by: str = "mean"
    """What makes a checkpoint ``best.pt``: ``mean`` (its mean win rate over ``opponents``)
    or one opponent's name (its win rate against that one). A run that gains against one
    baseline while losing against another never beats its start by the mean."""
    unit: Literal["game", "hand"] = "game"
    """``game`` (to the target) or ``hand``."""
    max_hands: Int[Field(ge=0)] = 30
    """With ``unit: game``, a game not decided after this many hands (Gin; rounds in
    Rummy) ends as a draw, a loss for both sides' win rates (0: the rules' own cap, 100).
    Weak policies, whose hands run to the stock's end, would otherwise take minutes per
    evaluation; games between the rule agents end well before the cap."""

    def __post_init__(self):
        if self.best_by != "mean" and self.best_by not in self.opponents:
            raise ValueError(f"eval.best_by must be 'mean' or one of eval.opponents {self.opponents}, "
                             f"got {self.best_by!r}")


@settings(section="exit")
class ExitConfig:
    """Expert iteration (``algo: exit``, :mod:`rummyrl.training.exit`)."""

    teacher: str = "search"
    """The agent whose decisions the network learns: an agent spec, e.g. ``search:worlds=32``
    (search's own options choose its rollout policy: ``search:rollout=runs/NAME/best.pt``)."""
    buffer: Int[Field(gt=0)] = 200_000
    """Finished decisions kept for training (the oldest dropped)."""
    batches: Int[Field(gt=0)] = 16
    """Minibatches (of ``minibatch_size``) trained on per iteration."""
    learn: bool = True
    """Train the network on the records (``false``: a data run; the network stays as it
    started, the losses are still measured and logged, and an offline fit,
    ``scripts/exit_fit.py``, learns from the saved records instead)."""
    record_values: bool = False
    """Keep search's candidates and its mean value of each in the records (``cand``, ``q``;
    needs a ``search`` teacher), so an offline fit can measure what the network's moves are
    worth by search's reckoning (``q_gain``) and teach only its clear departures
    (``min_gain``). The policy target is search's choice either way."""
    depart_weight: Float[Field(gt=0)] = 1.0
    """Weight, in the policy loss, of the decisions where search chose other than the
    network did when the data were made (the ones with something to teach); the others
    weigh 1."""
    phase: Literal[("all", *PHASES)] = "all"
    """Where the teacher plays the learner's seats: ``all`` (every decision), ``draw`` (the
    draw decisions only), ``knock`` (Gin: the positions that allow ending the hand only) or
    ``stock`` (Rummy: the draws at which the stock's next card is known, agents/split.py);
    the network, greedy, plays the rest, and only the teacher's decisions are recorded.
    Distil search where its edge lies (``docs/research/scripts/search_where.py`` measures
    where): in Gin search at the knock alone won as many games against the expert as search
    everywhere on the same deals, for the cost of searching the knock decisions alone
    (docs/research/expert_iteration_gin.md)."""
    plays: Literal["teacher", "network"] = "teacher"
    """Who plays the teacher's decisions: ``teacher`` (search plays and is recorded) or
    ``network`` (DAgger, Ross, Gordon & Bagnell 2011: the network plays greedily everywhere
    and search only labels its positions). A network trained on search's own positions
    meets others when it plays: in Rummy search takes the discard at known-stock draws,
    which keeps the stock known for the next draw, so those draws were half takes in its
    records and a fifth in the network's games."""
    save_records: bool = False
    """Also write each iteration's finished records to ``<run dir>/records/`` (one
    ``.npz`` per iteration, each written whole), so the costly search data can be distilled
    again offline with other settings (``scripts/exit_fit.py``)."""
