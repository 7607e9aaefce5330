"""Game records: every game of a tournament as one line of JSON, and its exact replay.

``evaluate.py --record DIR`` (and training's final evaluation) writes ``DIR/games.jsonl``,
one game per line; docs/records.md describes the format field by field. A record holds the
rules, the seats, the deck order and dealer of every deal, every action, how each deal
ended with its points, and the game's result, so that :func:`replay` plays it again on the
engine action by action and checks each deal's end and the result against the record.
With ``--record-reasons`` each decision also carries what the agent weighed
(:mod:`rummyrl.reasons`).

    from rummyrl import records
    for rec in records.read_records("eval_results/gin/games.jsonl"):
        r = records.replay(rec)            # raises RecordMismatch if the engine disagrees
        r.state(r.deal_ends[0])            # the table right after the first deal ended
        r.html(10)                         # the table before action 10, every hand face up

:class:`BatchRecorder` is what a tournament chunk calls to record its batch of games as
they are played; :class:`GameRecorder` records a single game (the web app's).
"""

from __future__ import annotations

import dataclasses
import html
import json
from pathlib import Path

import numpy as np

from rummyrl import games as registry
from rummyrl.cards import NUM_CARDS, card_str, parse_card
from rummyrl.envs import render_html

#: the format name and version every record carries
FORMAT = "rummyrl-game/1"
#: the file a recording writes in its folder
FILE_NAME = "games.jsonl"


class RecordError(ValueError):
    """A record that is not a well-formed game record; the message names the field."""


class RecordMismatch(RecordError):
    """The engine, replaying a record, ends a deal or the game differently from the record."""


def deck_text(deck) -> str:
    """A deck order as 104 characters, two per card (``"As7dTc..."``), first dealt first."""
    return "".join(card_str(int(c)) for c in deck)


def parse_deck(text: str) -> np.ndarray:
    """The ``(52,)`` int8 deck order of :func:`deck_text`."""
    if not isinstance(text, str) or len(text) != 2 * NUM_CARDS:
        raise RecordError(f"a deck is {2 * NUM_CARDS} characters, two per card, got {text!r:.40}")
    cards = [parse_card(text[i:i + 2]) for i in range(0, len(text), 2)]
    if sorted(cards) != list(range(NUM_CARDS)):
        raise RecordError(f"a deck must hold each of the 52 cards once: {text!r}")
    return np.array(cards, np.int8)


def _deal_start(state, b: int) -> dict:
    return {"dealer": int(state.dealer[b]), "deck": deck_text(state.deck[b]), "actions": []}


def _deal_end(state, b: int, game) -> dict:
    return {"end": game.end_names[int(state.last_end[b])], "winner": int(state.last_winner[b]),
            "points": int(state.last_points[b]), "scores": [int(x) for x in state.scores[b]]}


def _result(state, b: int, game) -> dict:
    res = game.engine.game_result(state, np.array([b]))
    return {"winner": int(res.winner[0]), "truncated": bool(state.truncated[b]),
            "totals": [int(x) for x in res.total[0]], "margin": int(res.margin[0]),
            "deals": int(game.deals_played(state)[b])}


def header(config, seats: list[str], seed=None, **about) -> dict:
    """The first fields of a record: format, game, rules, players, the seats' labels, the
    game's deal seed (None when it was dealt from decks) and ``about`` (who played whom)."""
    g = registry.of_config(config)
    rec = {"format": FORMAT, "game": g.name, "rules": dataclasses.asdict(config),
           "players": g.players_of(config), "seats": list(seats)}
    if seed is not None:
        rec["seed"] = int(seed)
    rec.update(about)
    rec["deals"] = []
    return rec


class GameRecorder:
    """Records one game of a batch-of-one state as it is played: call :meth:`action` after
    every step (with the action played and, optionally, its reasons); :attr:`record` is the
    record so far (its ``result`` once the game is over)."""

    def __init__(self, state, seats: list[str], seed=None, **about):
        self.game = registry.of_config(state.config)
        self.record = header(state.config, seats, seed, **about)
        self.record["deals"].append(_deal_start(state, 0))

    def action(self, state, action: int, reasons: dict | None = None) -> None:
        deal = self.record["deals"][-1]
        deal["actions"].append(int(action))
        if reasons is not None:
            deal.setdefault("reasons", [None] * (len(deal["actions"]) - 1)).append(reasons)
        elif "reasons" in deal:
            deal["reasons"].append(None)
        if self.game.deal_ended(state)[0]:
            deal.update(_deal_end(state, 0, self.game))
            if not state.game_over[0]:
                self.record["deals"].append(_deal_start(state, 0))
        if state.game_over[0]:
            self.record["result"] = _result(state, 0, self.game)


class BatchRecorder:
    """Records a batch of games as a tournament chunk plays them, at the cost of a few array
    copies per step: :meth:`step` after every engine step, :meth:`records` at the end."""

    def __init__(self, state, reasons: bool = False):
        self.game = registry.of_config(state.config)
        n = state.batch_size
        self.deals = [[_deal_start(state, b)] for b in range(n)]
        self.reasons = reasons
        self._why = [[None] for _ in range(n)]  # per game, per deal: reasons of each action or None

    def step(self, state, actions: np.ndarray, live: np.ndarray, reasons: dict | None = None) -> None:
        """After ``engine.step(state, actions, active=live)``: append each live game's action
        (and its reasons, ``{row: reasons}``), close the deals that ended, open the next."""
        for b in np.flatnonzero(live):
            deal = self.deals[b][-1]
            deal["actions"].append(int(actions[b]))
            if self.reasons:
                deal.setdefault("reasons", []).append((reasons or {}).get(int(b)))
        for b in np.flatnonzero(self.game.deal_ended(state) & live):
            self.deals[b][-1].update(_deal_end(state, b, self.game))
            if not state.game_over[b]:
                self.deals[b].append(_deal_start(state, b))

    def records(self, state, seats_of, seeds, about: dict) -> list[dict]:
        """One record per game: ``seats_of(b)`` its seats' labels, ``seeds[b]`` its deal
        seed, ``about`` fields common to all (plus ``game_index``)."""
        out = []
        for b, deals in enumerate(self.deals):
            rec = header(state.config, seats_of(b), seeds[b], **about, game_index=b)
            rec["deals"] = deals
            rec["result"] = _result(state, b, self.game)
            out.append(rec)
        return out


# --------------------------------------------------------------------------------------
# Reading and writing
# --------------------------------------------------------------------------------------
def write_records(path, records, append: bool = True) -> Path:
    """Write ``records`` as JSON lines to ``path`` (appended by default); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a" if append else "w", encoding="utf-8") as f:
        for rec in records:
            f.write(json.dumps(rec, separators=(",", ":")) + "\n")
    return path


def _record_files(path) -> list[Path]:
    path = Path(path)
    if path.is_dir():
        files = sorted(path.glob("*.jsonl"))
        if not files:
            raise FileNotFoundError(f"{path} holds no *.jsonl records")
        return files
    if path.is_file():
        return [path]
    raise FileNotFoundError(f"no record file or folder {path}")


def scan_records(path):
    """Every non-blank line of a ``.jsonl`` file, or of every ``*.jsonl`` file of a folder
    (sorted), as ``(file, line_no, record, None)`` when it is a valid record
    (:func:`check_record`) and ``(file, line_no, None, reason)`` when it is not: a bad line
    never hides the good ones. Raises FileNotFoundError for a missing file or an empty folder."""
    for f in _record_files(path):
        with f.open("rb") as fh:
            for i, raw in enumerate(fh, 1):
                if not raw.strip():
                    continue
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as e:
                    yield f, i, None, f"not UTF-8 (byte {e.start}: {raw[e.start:e.start + 1]!r})"
                    continue
                try:
                    rec = check_record(json.loads(line))
                except (RecordError, ValueError, RecursionError) as e:
                    yield f, i, None, (f"not JSON ({e})" if isinstance(e, json.JSONDecodeError) else
                                       "not JSON (nested too deeply)" if isinstance(e, RecursionError) else str(e))
                    continue
                yield f, i, rec, None


def read_records(path) -> list[dict]:
    """The records of a ``.jsonl`` file, or of every ``*.jsonl`` file of a folder (sorted),
    each checked by :func:`check_record`; a bad line is a :class:`RecordError` naming the
    file and line (:func:`scan_records` reads past bad lines instead)."""
    out = []
    for f, i, rec, error in scan_records(path):
        if error is not None:
            raise RecordError(f"{f}:{i}: {error}")
        out.append(rec)
    return out


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _int_field(where: str, x, lo: int, hi: int) -> int:
    if not _is_int(x) or not lo <= x <= hi:
        raise RecordError(f"{where} must be an integer {lo}..{hi}, got {json.dumps(x)[:40]}")
    return x


def _int_list(where: str, x, n: int) -> list:
    if not isinstance(x, list) or len(x) != n or not all(_is_int(v) for v in x):
        raise RecordError(f"{where} must be a list of {n} integers, got {json.dumps(x)[:60]}")
    return x


def check_record(rec) -> dict:
    """``rec`` if it is a well-formed game record this version reads, else
    :class:`RecordError` naming the field that is missing or wrong: the rules (a valid
    config of the game), the seats and their specs, every deal's dealer, deck and actions
    (ids of the game's action space), each deal's end and the result (seats in range, one
    total per seat). Whether the actions are legal, and the ends and result what the engine
    gives, is checked by :func:`replay`."""
    if not isinstance(rec, dict):
        raise RecordError(f"a record is a JSON object, got {type(rec).__name__}")
    if rec.get("format") != FORMAT:
        raise RecordError(f"format must be {FORMAT!r}, got {rec.get('format')!r:.60}")
    for key, kind in (("game", str), ("rules", dict), ("players", int), ("seats", list), ("deals", list)):
        if not isinstance(rec.get(key), kind) or isinstance(rec.get(key), bool):
            raise RecordError(f"field {key!r} must be a {kind.__name__}, got {rec.get(key)!r:.60}")
    if rec["game"] not in registry.names():
        raise RecordError(f"unknown game {rec['game']!r:.40}; the games: {registry.names()}")
    g = registry.get(rec["game"])
    try:
        config = g.config_cls.from_dict(rec["rules"])
    except (TypeError, ValueError) as e:
        raise RecordError(f"rules: {e}") from None
    P = g.players_of(config)
    if rec["players"] != P:
        raise RecordError(f"players is {rec['players']} but the rules are for {P} players")
    if len(rec["seats"]) != P or not all(isinstance(s, str) for s in rec["seats"]):
        raise RecordError(f"seats must be a list of {P} labels (strings), got {json.dumps(rec['seats'])[:80]}")
    specs = rec.get("seat_specs")
    if specs is not None and (not isinstance(specs, list) or len(specs) != P
                              or not all(s is None or isinstance(s, str) for s in specs)):
        raise RecordError(f"seat_specs must be a list of {P} agent specs (strings, null for a person), "
                          f"got {json.dumps(specs)[:80]}")
    if "seed" in rec and rec["seed"] is not None:
        _int_field("seed", rec["seed"], 0, 2**64 - 1)
    if not rec["deals"]:
        raise RecordError("a record has at least one deal")
    A = g.num_actions
    for d, deal in enumerate(rec["deals"]):
        if not isinstance(deal, dict) or not isinstance(deal.get("actions"), list) or "deck" not in deal \
                or "dealer" not in deal:
            raise RecordError(f"deal {d} must be an object with 'dealer', 'deck' and 'actions'")
        _int_field(f"deal {d}: dealer", deal["dealer"], 0, P - 1)
        try:
            parse_deck(deal["deck"])
        except ValueError as e:
            raise RecordError(f"deal {d}: deck: {e}") from None
        for i, a in enumerate(deal["actions"]):
            _int_field(f"deal {d}, action {i}", a, 0, A - 1)
        if "reasons" in deal and (not isinstance(deal["reasons"], list) or len(deal["reasons"]) != len(deal["actions"])):
            raise RecordError(f"deal {d}: reasons must be a list with one entry per action")
        if "end" in deal:
            if deal["end"] not in g.end_names:
                raise RecordError(f"deal {d}: end must be one of {list(g.end_names)}, got {deal['end']!r:.40}")
            _int_field(f"deal {d}: winner", deal.get("winner"), -1, P - 1)
            _int_field(f"deal {d}: points", deal.get("points"), -10**9, 10**9)
            _int_list(f"deal {d}: scores", deal.get("scores"), P)
    res = rec.get("result")
    if res is not None:
        if not isinstance(res, dict):
            raise RecordError(f"result must be an object, got {json.dumps(res)[:40]}")
        _int_field("result.winner", res.get("winner"), -1, P - 1)
        _int_list("result.totals", res.get("totals"), P)
        _int_field("result.margin", res.get("margin"), -10**9, 10**9)
        _int_field("result.deals", res.get("deals"), 0, len(rec["deals"]))
        if not isinstance(res.get("truncated"), bool):
            raise RecordError(f"result.truncated must be true or false, got {json.dumps(res.get('truncated'))[:40]}")
    return rec


# --------------------------------------------------------------------------------------
# Replay
# --------------------------------------------------------------------------------------
class Replay:
    """A record played again on its engine (:func:`replay`). Step ``i`` is the table
    before action ``i`` (step 0: the first deal just dealt; step ``len(actions)``: the end);
    :meth:`state` is a copy of the engine state at a step, :attr:`deal_ends` the steps
    right after each deal ended, :meth:`html` the table drawn with every hand face up."""

    def __init__(self, record: dict, states: list, actions: list[int], deal_of: list[int], deal_ends: list[int]):
        self.record = record
        self.game = registry.get(record["game"])
        self._states = states
        self.actions = actions
        self.deal_of = deal_of
        self.deal_ends = deal_ends

    @property
    def steps(self) -> int:
        """The number of actions of the game."""
        return len(self.actions)

    def check_step(self, step) -> int:
        if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or not 0 <= step <= self.steps:
            raise ValueError(f"step must be an int in 0..{self.steps}, got {step!r}")
        return int(step)

    def state(self, step: int):
        """A copy of the engine state (batch of one) at ``step``."""
        return self._states[self.check_step(step)].copy()

    def deal_at(self, step: int) -> int:
        """The deal (from 0) the action at ``step`` belongs to (the last deal at the end)."""
        step = self.check_step(step)
        return self.deal_of[step] if step < self.steps else self.deal_of[-1]

    def reasons(self, step: int) -> dict | None:
        """What the agent weighed at the action of ``step``, where the record has it."""
        step = self.check_step(step)
        if step == self.steps:
            return None
        d = self.deal_of[step]
        first = self.deal_of.index(d)
        why = self.record["deals"][d].get("reasons")
        return why[step - first] if why else None

    def names(self) -> list[str]:
        """The seats' labels, numbered where one agent holds several seats."""
        return seat_names(self.record["seats"])

    def html(self, step: int, title: str | None = None, style: bool = True) -> str:
        """The table at ``step``, every hand face up, as HTML (with its stylesheet unless
        ``style`` is False)."""
        step = self.check_step(step)
        st = self._states[step]
        ended = step > 0 and bool(self.game.deal_ended(st)[0])
        view = render_html.table_view(st, 0, self.names(), viewer=None, deal_ended=ended)
        if style:
            return render_html.page_fragment(view, title=title)
        cap = f"<div class='rrl-caption'>{html.escape(title)}</div>" if title else ""
        return cap + render_html.table_html(view)

    def _repr_html_(self) -> str:
        """In a notebook: the first deal as dealt, then each deal's end (its showdown, above
        the next deal as dealt), one under each line of its result."""
        parts = [f"<div class='rrl rrl-replay'><style>{render_html.TABLE_CSS}</style><p><b>{html.escape(self.game.title)}</b>: "
                 f"{html.escape(' · '.join(self.names()))}; {self.steps} actions, "
                 f"{len(self.record['deals'])} deals</p><details open><summary>deal 1, dealt</summary>"
                 f"{self.html(0, None, False)}</details>"]
        start = 0
        for d, end in enumerate(self.deal_ends):
            deal = self.record["deals"][d]
            who = self.names()[deal["winner"]] if deal.get("winner", -1) >= 0 else "nobody"
            parts.append(f"<details{' open' if d == 0 else ''}><summary>deal {d + 1} ended: {html.escape(deal['end'])}, "
                         f"{html.escape(who)} scores {deal['points']} (steps {start}..{end})</summary>"
                         f"{self.html(end, None, False)}</details>")
            start = end
        return "".join(parts) + "</div>"


def replay(rec: dict) -> Replay:
    """Play record ``rec`` again on its engine from its decks and dealers, keeping the state
    before every action; raises :class:`RecordMismatch` where a deal ends otherwise than
    recorded (its end, winner, points, scores) or the result differs, and
    :class:`RecordError` for an action the engine refuses."""
    rec = check_record(rec)
    game = registry.get(rec["game"])
    try:
        config = game.config_cls.from_dict(rec["rules"])
    except (TypeError, ValueError) as e:
        raise RecordError(f"rules: {e}") from None
    deals = rec["deals"]
    decks = np.stack([parse_deck(d["deck"]) for d in deals])[None]
    dealers = np.array([[int(d["dealer"]) for d in deals]], np.int8)
    try:
        state = game.engine.init(1, seed=0, config=config, decks=decks, dealers=dealers)
    except ValueError as e:
        raise RecordError(f"deals: {e}") from None
    states, actions, deal_of, deal_ends = [state.copy()], [], [], []
    act = np.zeros(1, np.int64)
    for d, deal in enumerate(deals):
        for i, a in enumerate(deal["actions"]):
            if state.game_over[0]:
                raise RecordMismatch(f"deal {d}: the game is over before action {i}")
            act[0] = int(a)
            try:
                game.engine.step(state, act, inplace=True)
            except game.engine.IllegalActionError as e:
                raise RecordError(f"deal {d}, action {i}: {e}") from None
            actions.append(int(a))
            deal_of.append(d)
            states.append(state.copy())
            ended = bool(game.deal_ended(state)[0])
            last = i == len(deal["actions"]) - 1
            if ended != last and "end" in deal:
                raise RecordMismatch(f"deal {d}: the engine ended the deal at action {i} of "
                                     f"{len(deal['actions'])}" if ended else
                                     f"deal {d}: the deal had not ended after its {len(deal['actions'])} actions")
        if "end" in deal:
            got = _deal_end(state, 0, game)
            want = {k: deal[k] for k in got}
            if got != want:
                raise RecordMismatch(f"deal {d} ended {got}, the record says {want}")
            deal_ends.append(len(actions))
    if "result" in rec:
        if not state.game_over[0]:
            raise RecordMismatch("the record has a result but the game is not over after its actions")
        got = _result(state, 0, game)
        if got != rec["result"]:
            raise RecordMismatch(f"the game ended {got}, the record says {rec['result']}")
    return Replay(rec, states, actions, deal_of, deal_ends)


def seat_names(seats: list[str]) -> list[str]:
    """``["expert", "simple-1", "simple-2"]``: each label, with its seat where it repeats."""
    return [s if seats.count(s) == 1 else f"{s}-{q}" for q, s in enumerate(seats)]


def action_text(game, action: int, names=None, seat: int | None = None) -> str:
    """An action in words (``"discard K♦"``), from the engine's name of it."""
    name = registry.get(game).engine.action_name(int(action))
    words = name.split()
    out = " ".join(card_str(parse_card(w), symbols=True) if _is_card(w) else w for w in words)
    return f"{names[seat]}: {out}" if names is not None and seat is not None else out


def _is_card(word: str) -> bool:
    try:
        parse_card(word)
    except ValueError:
        return False
    return len(word) == 2


__all__ = ["BatchRecorder", "FILE_NAME", "FORMAT", "GameRecorder", "RecordError", "RecordMismatch", "Replay",
           "action_text", "check_record", "seat_names", "deck_text", "parse_deck", "read_records", "replay",
           "scan_records", "write_records"]
