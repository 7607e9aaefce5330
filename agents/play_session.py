"""The game behind ``python -m rummyrl.agents.play``: a session, without the terminal.

A :class:`Session` is one game (an engine state with a batch of one), the seat of the
human and the agent that plays every other seat. It turns typed commands into actions
(:meth:`Session.command`, refusing illegal ones with the reason), lists the legal moves,
plays actions (:meth:`Session.apply`) and describes the table, each move and the end of
each hand and game as text. :class:`~.play_gin.GinSession` and
:class:`~.play_rummy.RummySession` hold what differs per game; :func:`make_session` builds
one from the options of the command line. The prompt loop is in :mod:`.play`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rummyrl import games
from rummyrl import melds as M
from rummyrl.cards import card_str, parse_card, sort_key

from .loading import load_agent
from .base import Agent, tell_rules

RULE = "─"
WIDTH = 64


def plural(count: int, noun: str) -> str:
    """``"1 card"``, ``"3 cards"``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


class Refused(ValueError):
    """A command that is not a legal move now; the message says why."""


class Quit(Exception):
    """The player typed ``q``."""


@dataclass(frozen=True)
class Move:
    """A legal move as the player sees it."""

    action: int
    command: str  # what to type, e.g. "x Kd"
    text: str  # what it does, e.g. "discard K♦"


class Session:
    """One game (batch of one) of an engine, a human seat and the agents of the others."""

    engine = None
    game = None  #: the game's registry entry
    commands_help = ""

    def __init__(self, state, agent: Agent, names: list[str], human: int, symbols: bool = True):
        self.state = state
        self.agent = agent
        self.names = names
        self.human = human
        self.symbols = symbols
        self._obs = None  # the agent's observation buffer, reused every turn

    # --- playing ------------------------------------------------------------------------
    @property
    def to_move(self) -> int:
        """The seat whose turn it is."""
        return int(self.state.current[0])

    @property
    def game_over(self) -> bool:
        return bool(self.state.game_over[0])

    @property
    def deal_ended(self) -> bool:
        """Whether the last move ended a hand (Gin) or a round (Rummy)."""
        return bool(self.game.deal_ended(self.state)[0])

    def agent_action(self) -> int:
        """The agent's action for the seat to move."""
        self._obs = self.engine.observe(self.state, out=self._obs)
        return int(self.agent.act(self._obs, self.state.mask)[0])

    def apply(self, action: int) -> str:
        """Play ``action`` for the seat to move; what happened, in words."""
        p = self.to_move
        before = self.snapshot()
        self.engine.step(self.state, np.array([action], np.int64), inplace=True)
        return self.describe(p, action, before)

    # --- text helpers -------------------------------------------------------------------
    def card(self, c: int) -> str:
        return card_str(int(c), symbols=self.symbols)

    def cards(self, cards) -> str:
        return " ".join(self.card(c) for c in sorted((int(c) for c in cards), key=sort_key))

    def rule(self, title: str) -> str:
        return f"{RULE * 4} {title} " + RULE * max(4, WIDTH - len(title) - 6)

    def conj(self, p: int, third: str, plain: str | None = None) -> str:
        """The verb for player ``p``: ``plain`` (default ``third`` less its final s) for you."""
        if p != self.human:
            return third
        return plain if plain is not None else third[:-1]

    def verb(self, p: int, third: str, plain: str | None = None) -> str:
        """``"you score"`` / ``"expert scores"``."""
        return f"{self.names[p]} {self.conj(p, third, plain)}"

    def grouped(self, held: np.ndarray, meld_id: np.ndarray | None = None) -> str:
        """A hand as ``[A♠ 2♠ 3♠] [7♦ 7♣ 7♥] · 4♥ K♠``: its melds, then the other cards."""
        if meld_id is None:
            meld_id = M.best_melds(held[None]).meld_id[0]
        groups = []
        for j in range(int(meld_id.max(initial=-1)) + 1):
            cs = np.flatnonzero((meld_id == j) & held)
            if cs.size:
                groups.append("[" + self.cards(cs) + "]")
        loose = np.flatnonzero(held & (meld_id < 0))
        return " ".join(groups + ["·", self.cards(loose) if loose.size else "-"])

    def pile_text(self) -> str:
        st = self.state
        n = int(st.pile_len[0])
        if not n:
            return "discard pile empty"
        pile = st.pile[0, :n]
        under = pile[:-1][::-1][:5]
        more = " …" if n > 6 else ""
        below = f", below {' '.join(self.card(c) for c in under)}{more}" if under.size else ""
        return f"discard pile ({n}): top {self.card(pile[-1])}{below}"

    def top(self) -> int:
        st = self.state
        n = int(st.pile_len[0])
        return int(st.pile[0, n - 1]) if n else -1

    def held(self, c: int) -> bool:
        return bool(self.state.hands[0, self.human, c])

    # --- commands -----------------------------------------------------------------------
    def command(self, line: str):
        """What a typed line asks for: an action id to play, a text to show, or None (just
        prompt again). Raises :class:`Refused` with the reason, :class:`Quit` for ``q``."""
        words = line.split()
        if not words:
            return None
        w = words[0].lower()
        if w in ("q", "quit", "exit"):
            raise Quit
        if w in ("?", "h", "help"):
            return self.moves_text()
        if w in ("s", "show"):
            return self.view()
        if w.isascii() and w.isdigit():  # ASCII only: "²" is a digit to isdigit but not to int
            moves = self.legal_moves()
            n = int(w) if len(w) <= 6 else 0
            if len(words) > 1:
                raise Refused(f"a move number stands alone; got {line.strip()!r}")
            if not 1 <= n <= len(moves):
                raise Refused(f"there is no move {n}: choose 1..{len(moves)} (? lists them)")
            return moves[n - 1].action
        action = self.parse_move(w, words[1:])
        if not self.state.mask[0, action]:
            raise Refused(f"{self.engine.action_name(action)} is not legal now (? lists the legal moves)")
        return action

    def moves_text(self) -> str:
        moves = self.legal_moves()
        width = max(len(m.command) for m in moves)
        lines = ["legal moves (type the command or its number):"]
        lines += [f"  {i:>2}  {m.command:<{width}}  {m.text}" for i, m in enumerate(moves, 1)]
        lines.append(f"  also: ? this list · s show the table · q quit · {self.commands_help}")
        return "\n".join(lines)

    def one_card(self, cmd: str, args: list[str], what: str) -> int:
        if len(args) != 1:
            raise Refused(f"'{cmd}' takes one card, e.g. '{cmd} Kd' ({what})")
        try:
            return parse_card(args[0])
        except ValueError as e:
            raise Refused(str(e)) from None

    def not_held(self, c: int) -> Refused:
        return Refused(f"you do not hold {self.card(c)}")

    # --- to implement per game ----------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        raise NotImplementedError

    def parse_move(self, cmd: str, args: list[str]) -> int:
        raise NotImplementedError

    def view(self) -> str:
        raise NotImplementedError

    def hand_line(self) -> str:
        raise NotImplementedError

    def prompt(self) -> str:
        raise NotImplementedError

    def header(self) -> str:
        raise NotImplementedError

    def describe(self, p: int, action: int, before: dict) -> str:
        raise NotImplementedError

    def snapshot(self) -> dict:
        """What :meth:`describe` needs from before the step."""
        return {"hand": self.state.hands[0, self.human].copy(), "top": self.top()}

    def round_end_lines(self) -> list[str]:
        raise NotImplementedError

    def game_end_lines(self) -> list[str]:
        raise NotImplementedError


def opponent_label(spec: str) -> str:
    """A baseline's name, or ``folder/file`` of a checkpoint (as evaluate.py labels them)."""
    p = Path(spec)
    if spec.endswith(".pt") or "/" in spec or "\\" in spec:
        return f"{p.parent.name}/{p.stem}".lstrip("/")
    return spec


def make_session(game: str, opponent: str | Agent = "simple", seat: int = 0, players: int | None = None,
                 seed: int = 0, options: dict | None = None, symbols: bool = True,
                 decks=None, dealers=None) -> Session:
    """A game to play: the engine state (one game, dealt from ``seed`` or from explicit
    ``decks`` / ``dealers`` as the engine's ``init`` takes them), the opponent agent and the
    seat names. Raises ``ValueError`` naming a bad argument."""
    g = games.get(game)
    P = g.check_players(players)
    config = g.make_config({"episode": "game", **(options or {})}, players=P)
    if not 0 <= seat < P:
        raise ValueError(f"--seat must be in 0..{P - 1} for {P} players, got {seat}")
    agent = load_agent(opponent, game=game, seed=seed)
    tell_rules((agent,), config)  # search plays its worlds by the game's rules
    agent.reset(seed=seed)
    label = agent.name if isinstance(opponent, Agent) else opponent_label(opponent)
    if P == 2:
        names = [label, label]
    else:
        names = [f"{label}-{q}" for q in range(P)]
    names[seat] = "you"
    state = g.engine.init(1, seed=seed, config=config, decks=decks, dealers=dealers)
    # the game's session class (Game.session) builds on this module, so it is found by name
    return games.load(g.session)(state, agent, names, seat, symbols=symbols)

