"""Play mode of the web app: games of a person against an agent, kept apart in a store.

A :class:`PlayGame` wraps the terminal game's session (:mod:`rummyrl.agents.play_session`:
its legal moves, the refusals with their rule ids, the descriptions of each move and of the
end of each deal), plays the agent's turns until it is the person's turn again, and answers
with what that person may see: the table from their seat (:func:`rummyrl.envs.render_html.table_view`
with ``viewer`` set), their legal moves, and the moves since their last one. The opponents'
hidden cards and the stock never leave the server while a deal is on; the showdown at a
deal's end shows what the rules show. Each game records itself (:mod:`rummyrl.records`), so
that a finished game can be replayed.

Nothing from which a hidden card can be computed is sent while a game is on: the server
deals from a seed of 63 bits drawn with :mod:`secrets` (the deals and the agents' random
choices follow from it) and sends it only once the game is over. A seed the person chose
gives the deal away to them, so such a game is marked ``deal_known`` in every answer and
``deal_known_to_player`` in its record.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from rummyrl.agents import load_agent
from rummyrl.agents.base import tell_rules
from rummyrl.agents.play_session import Quit, Refused, Session, make_session
from rummyrl.envs.render_html import ended_html, table_html, table_view
from rummyrl.reasons import explain
from rummyrl.records import GameRecorder

from .errors import ApiError
from .why import reason_rows

#: a game id: 16 hex digits
GAME_ID = re.compile(r"^[0-9a-f]{16}$")


@dataclass
class Opponent:
    """An agent given on the command line: its spec, its label, and per game whether it
    loads (None) or why not."""

    spec: str
    label: str
    games: dict = field(default_factory=dict)


class PlayGame:
    """One game of a person (seat ``session.human``) against ``opponent`` in every other seat."""

    def __init__(self, gid: str, session: Session, opponent: Opponent, seed: int, deal_known: bool = False,
                 client: str = ""):
        self.id = gid
        self.session = session
        self.opponent = opponent
        self.seed = seed
        self.deal_known = deal_known
        self.client = client
        self.game = session.game
        self.lock = threading.Lock()
        self.created = self.touched = time.monotonic()
        self.actions = 0
        self.last_deal_end = None
        self.record_saved = False
        seat_specs = [None if q == session.human else opponent.spec for q in range(len(session.names))]
        about = {"deal_known_to_player": True} if deal_known else {}
        self.recorder = GameRecorder(session.state, list(session.names), seed, human_seat=session.human,
                                     seat_specs=seat_specs, source="play", **about)
        self._advisor = None
        self._advisor_lock = threading.Lock()
        self.opening = self.advance()  # the agents' moves before the person's first turn

    # --- playing ------------------------------------------------------------------------
    @property
    def your_turn(self) -> bool:
        return not self.session.game_over and self.session.to_move == self.session.human

    def _apply(self, action: int) -> list[dict]:
        s = self.session
        p = s.to_move
        deal = int(self.game.deals_played(s.state)[0]) - 1
        step = self.actions
        text = s.apply(action)
        self.recorder.action(s.state, action)
        self.actions += 1
        events = [{"kind": "move", "seat": p, "name": s.names[p], "text": text, "step": step, "deal": deal}]
        if s.deal_ended:
            ended = table_view(s.state, 0, s.names, viewer=s.human, deal_ended=True)["ended"]
            lines = s.round_end_lines()
            ended["text"] = lines[1]  # the terminal game's words: "you score", "expert scores"
            ev = {"kind": "deal_end", "step": step, "deal": deal, "lines": lines, "ended": ended,
                  "html": ended_html(ended, s.names, self.game.deal)}
            self.last_deal_end = ev
            events.append(ev)
        if s.game_over:
            events.append({"kind": "game_over", "step": step, "deal": deal, "lines": s.game_end_lines()})
        return events

    def advance(self) -> list[dict]:
        """Play the agents' turns until it is the person's turn or the game is over."""
        events = []
        while not self.session.game_over and self.session.to_move != self.session.human:
            events += self._apply(self.session.agent_action())
        return events

    def move(self, body: dict) -> list[dict]:
        """Play the person's move (``command`` as typed in the terminal game, or ``action``),
        then the agents' turns. Raises :class:`ApiError` (and changes nothing) when the
        move is not legal now, with the reason."""
        s = self.session
        if s.game_over:
            raise ApiError(409, "the game is over: start a new one (POST /api/games)")
        if "step" in body and body["step"] != self.actions:
            raise ApiError(409, f"stale move: it was sent for step {body['step']}, but the game is at step "
                                f"{self.actions}; reload the game (GET /api/games/{self.id})")
        if "action" in body:
            a = body["action"]
            if not 0 <= a < s.state.mask.shape[1] or not s.state.mask[0, a]:
                raise ApiError(409, self.game.illegal_message(s.state, a, "you"))
            action = a
        else:
            try:
                action = s.command(body["command"])
            except Refused as e:
                raise ApiError(409, f"refused: {e}") from None
            except Quit:
                raise ApiError(400, "'q' quits the terminal game; here, leave the page or DELETE the game") from None
            if not isinstance(action, (int, np.integer)):
                raise ApiError(400, f"{body['command']!r} is not a move: send a move command (the commands of "
                                    f"'moves', e.g. 'd', 't', 'x Kd') or an action id")
        return self._apply(int(action)) + self.advance()

    # --- what the person sees -------------------------------------------------------------
    def response(self, events: list[dict]) -> dict:
        s = self.session
        view = table_view(s.state, 0, s.names, viewer=s.human, deal_ended=False)
        mine = self.your_turn
        out = {
            "id": self.id, "game": self.game.name, "title": self.game.title, "seat": s.human,
            "names": list(s.names), "opponent": self.opponent.label, "deal_known": self.deal_known,
            "step": self.actions, "over": s.game_over, "your_turn": mine, "view": view, "html": table_html(view),
            "moves": [{"action": m.action, "command": m.command, "text": m.text} for m in s.legal_moves()] if mine else [],
            "prompt": s.prompt() if mine else "", "hand": s.hand_line(), "events": events,
            "last_deal_end": self.last_deal_end, "commands": s.commands_help,
        }
        if s.game_over:  # the seed deals every deal of the game: only once none is hidden any more
            out["seed"] = str(self.seed)
        return out

    def hint_task(self):
        """The work of a hint, prepared under the game's lock: a function that computes what
        the opponent's agent weighs in the person's seat (a separate copy of the agent, so
        that the game's own agent plays on as it would have). It runs outside the game's
        lock, so a slow agent holds up no move."""
        s = self.session
        if not self.your_turn:
            raise ApiError(409, "a hint is for your turn, and it is not your turn (the game is over)")
        if self._advisor is None:
            # seeded from the game's secret seed: its random choices are no more known than the deal
            self._advisor = load_agent(self.opponent.spec, game=self.game.name, seed=(self.seed + 1) % 2**63)
            tell_rules((self._advisor,), s.state.config)
        advisor, lock, step = self._advisor, self._advisor_lock, self.actions
        obs = self.game.engine.observe(s.state, player=s.human)
        mask = s.state.mask.copy()
        texts = {m.action: m.text for m in s.legal_moves()}

        def compute() -> dict:
            with lock:
                found = explain(advisor, obs, mask)[0]
            return {"step": step, "agent": self.opponent.label, **reason_rows(found, texts)}

        return compute


class GameStore:
    """The games in play, by id: at most ``max_games`` in all and ``per_client`` per client
    (by address). A client past its share loses its own least recently used game; when the
    store is full, the client holding the most games loses its least recently used one.
    Finished games go before those still on. So one client, however fast it starts games,
    cannot push out another's. The ids of games dropped so are remembered (the last
    ``4 * max_games``), so that their player hears why the game is gone (410) rather than
    that it never was (404)."""

    def __init__(self, max_games: int = 1000, per_client: int | None = None):
        if max_games < 1:
            raise ValueError(f"max_games must be >= 1, got {max_games}")
        self.max_games = max_games
        self.per_client = max(1, max_games // 4) if per_client is None else per_client
        if not 1 <= self.per_client <= max_games:
            raise ValueError(f"per_client must be 1..{max_games} (max_games), got {per_client}")
        self._games: OrderedDict[str, PlayGame] = OrderedDict()  # least recently used first
        self._closed: OrderedDict[str, None] = OrderedDict()  # ids dropped to make room, oldest first
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    def new_id(self) -> str:
        return secrets.token_hex(8)

    def _evict(self, client: str | None) -> None:
        """Drop the least recently used game of ``client`` (None: of the client holding the
        most games), a finished one if it has one."""
        if client is None:
            held: dict[str, int] = {}
            for g in self._games.values():
                held[g.client] = held.get(g.client, 0) + 1
            client = max(held, key=held.get)
        theirs = [gid for gid, g in self._games.items() if g.client == client]
        done = next((gid for gid in theirs if self._games[gid].session.game_over), None)
        gid = done if done is not None else theirs[0]
        self._games.pop(gid)
        self._closed[gid] = None
        while len(self._closed) > 4 * self.max_games:
            self._closed.popitem(last=False)

    def add(self, game: PlayGame) -> None:
        with self._lock:
            self._games[game.id] = game
            while sum(g.client == game.client for g in self._games.values()) > self.per_client:
                self._evict(game.client)
            while len(self._games) > self.max_games:
                self._evict(None)

    def get(self, gid: str) -> PlayGame:
        with self._lock:
            game = self._games.get(gid) if isinstance(gid, str) and GAME_ID.match(gid) else None
            if game is None and gid in self._closed:
                raise ApiError(410, f"game {gid!r} was closed to make room for newer games (this table keeps "
                                    f"{self.max_games} games, {self.per_client} per player, the least recently "
                                    f"played go first); start a new one (POST /api/games)")
            if game is None:
                raise ApiError(404, f"no game {gid[:40]!r} here: it was never started, was closed, or the server has "
                                    f"restarted since; start a new one (POST /api/games)")
            self._games.move_to_end(gid)
            game.touched = time.monotonic()
            return game

    def remove(self, gid: str) -> None:
        self.get(gid)
        with self._lock:
            self._games.pop(gid, None)


def new_game(store: GameStore, opponent: Opponent, game: str, players: int | None, seat: int, seed: int | None,
             rules: dict, client: str = "") -> PlayGame:
    """A new game in the store (the arguments checked by the caller and by ``make_session``),
    dealt from ``seed`` (the person's choice: the deal is known to them) or, when it is None,
    from a secret one."""
    deal_known = seed is not None
    if seed is None:
        seed = secrets.randbits(63)
    try:
        session = make_session(game, opponent.spec, seat=seat, players=players, seed=seed, options=rules)
    except (ValueError, KeyError) as e:
        raise ApiError(422, str(e.args[0] if isinstance(e, KeyError) and e.args else e)) from None
    label = opponent.label
    P = len(session.names)
    session.names = ["you" if q == seat else (label if P == 2 else f"{label}-{q}") for q in range(P)]
    g = PlayGame(store.new_id(), session, opponent, seed, deal_known, client)
    store.add(g)
    return g


__all__ = ["ApiError", "GameStore", "Opponent", "PlayGame", "new_game"]
