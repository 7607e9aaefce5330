"""Replay mode of the web app: the recorded games given on the command line, move by move.

A :class:`Library` holds the records read at start-up (``--records``) and the games played
here once they end. The browser names a record by its number only, never by a path. A
frame (:meth:`Library.frame`) is the table before one action, every hand face up with the
stock in draw order, the move made there in the terminal game's words, where the deals
start and end (to jump), and the reasons the record holds for that move.

A record is data, never instructions. Each is checked when the files are read
(:func:`rummyrl.records.scan_records`), and again by replaying it when it is first opened;
a bad one is listed as broken, with its file, line and reason, and the others work. Reasons
a record lacks are computed on demand (:meth:`Library.why_task`) only by an agent this
server was started with (``--opponent``) or a built-in agent with its default options: a
spec written in a record never makes the server load a file or size a search.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from rummyrl import games as registry
from rummyrl.agents import agent_names, load_agent
from rummyrl.agents.base import tell_rules
from rummyrl.cards import card_str
from rummyrl.envs.render_html import table_html, table_view
from rummyrl.reasons import explain
from rummyrl.records import RecordError, check_record, replay, scan_records, seat_names

from .errors import ApiError
from .why import reason_rows


def _session(game, state, names, seat: int):
    """The terminal game's session on ``state`` for seat ``seat`` (its words for moves)."""
    return registry.load(game.session)(state, None, names, seat)


@dataclass
class Entry:
    """One record of the library: where it came from, and the record or why it is broken."""

    source: str
    line: int | None
    record: dict | None
    broken: str | None = None


class Library:
    """Records by number: those read from ``paths`` and those added while serving.
    ``allowed_specs`` are the agents that may explain a recorded move (besides the built-in
    agents with default options)."""

    def __init__(self, paths=(), allowed_specs=(), cache: int = 16):
        self.entries: list[Entry] = []
        for path in paths:
            for f, i, rec, error in scan_records(path):
                self.entries.append(Entry(Path(f).name, i, rec, error))
        self.allowed = set(allowed_specs)
        self._replays: OrderedDict[int, object] = OrderedDict()
        self._agents: dict = {}
        self._lock = threading.Lock()  # the entries, the replay cache and the agent cache; never held while computing
        self._cache = cache

    def add(self, rec: dict, source: str) -> int:
        rec = check_record(rec)
        with self._lock:
            self.entries.append(Entry(source, None, rec))
            return len(self.entries) - 1

    def summary(self, rid: int) -> dict:
        e = self.entries[rid]
        if e.broken is not None:
            return {"id": rid, "source": e.source, "line": e.line, "broken": e.broken}
        rec = e.record
        game = registry.get(rec["game"])
        names = seat_names(rec["seats"])
        res = rec.get("result")
        if res is None:
            result = "unfinished"
        elif res["winner"] < 0:
            result = "no winner"
        else:
            result = f"{names[res['winner']]} wins {res['totals'][res['winner']]} (margin {res['margin']})"
        return {"id": rid, "source": e.source, "line": e.line, "broken": None, "game": game.name,
                "title": game.title, "players": rec["players"], "seats": names, "deals": len(rec["deals"]),
                "actions": sum(len(d["actions"]) for d in rec["deals"]), "result": result,
                "reasons": any("reasons" in d for d in rec["deals"]),
                "deal_known_to_player": bool(rec.get("deal_known_to_player"))}

    def listing(self, offset: int = 0, limit: int = 200) -> dict:
        ids = range(len(self.entries))[offset:offset + limit]
        return {"total": len(self.entries), "broken": sum(e.broken is not None for e in self.entries),
                "offset": offset, "records": [self.summary(i) for i in ids]}

    def _refuse_broken(self, rid: int, e: Entry):
        where = f"{e.source}, line {e.line}" if e.line else e.source
        raise ApiError(422, f"record {rid} ({where}) is broken: {e.broken}")

    def get(self, rid: int):
        if not 0 <= rid < len(self.entries):
            raise ApiError(404, f"no record {rid}: the records are numbered 0..{len(self.entries) - 1}"
                           if self.entries else "no records are loaded: start rummyrl-web with --records PATH")
        e = self.entries[rid]
        if e.broken is not None:
            self._refuse_broken(rid, e)
        with self._lock:
            rp = self._replays.get(rid)
            if rp is not None:
                self._replays.move_to_end(rid)
                return rp
        try:  # outside the lock: a long record takes a while to replay
            rp = replay(e.record)
        except RecordError as err:
            e.broken = f"it does not replay: {err}"
            self._refuse_broken(rid, e)
        with self._lock:
            self._replays[rid] = rp
            while len(self._replays) > self._cache:
                self._replays.popitem(last=False)
        return rp

    def check_step(self, rp, step: int) -> int:
        if not 0 <= step <= rp.steps:
            raise ApiError(422, f"step must be 0..{rp.steps} for this record, got {step}")
        return step

    def describe(self, rp, i: int) -> dict:
        """The action at step ``i`` in words, with the card drawn from the stock."""
        game, names = rp.game, rp.names()
        before, after = rp._states[i], rp._states[i + 1]
        p = int(before.current[0])
        snap = _session(game, before, names, -1).snapshot()
        text = _session(game, after, names, -1).describe(p, rp.actions[i], snap)
        if rp.actions[i] == game.engine.DRAW_STOCK and not game.deal_ended(after)[0]:
            new = [card_str(int(c), symbols=True) for c in (after.hands[0, p] & ~before.hands[0, p]).nonzero()[0]]
            text += f" ({' '.join(new)})" if new else ""
        return {"seat": p, "name": names[p], "text": text, "step": i}

    def frame(self, rid: int, step: int) -> dict:
        rp = self.get(rid)
        step = self.check_step(rp, step)
        st = rp._states[step]
        names = rp.names()
        ended = step > 0 and bool(rp.game.deal_ended(st)[0])
        view = table_view(st, 0, names, viewer=None, deal_ended=ended)
        starts = [0] + rp.deal_ends[:-1] if rp.deal_ends else [0]
        out = {"id": rid, "game": rp.game.name, "title": rp.game.title, "step": step, "steps": rp.steps,
               "names": names, "deal": rp.deal_at(step), "deal_starts": starts, "deal_ends": rp.deal_ends,
               "view": view, "html": table_html(view), "summary": self.summary(rid),
               "previous": self.describe(rp, step - 1) if step > 0 else None,
               "next": self.describe(rp, step) if step < rp.steps else None, "why": None}
        found = rp.reasons(step)
        if found is not None:
            out["why"] = {"recorded": True, **reason_rows(found, self._texts(rp, step))}
        out["can_explain"] = step < rp.steps and self._spec(rp, step)[1] is None
        return out

    def _texts(self, rp, step: int) -> dict:
        st = rp._states[step]
        session = _session(rp.game, st, rp.names(), int(st.current[0]))
        return {m.action: m.text for m in session.legal_moves()}

    def _spec(self, rp, step: int) -> tuple[str | None, str | None]:
        """The agent spec of the seat to act at ``step``, and why it may not explain (or None)."""
        st = rp._states[step]
        q = int(st.current[0])
        specs = rp.record.get("seat_specs")
        if not specs:
            return None, "this record does not say which agent held each seat (seat_specs)"
        spec = specs[q]
        if spec is None:
            return None, f"seat {q} ({rp.names()[q]}) was played by a person"
        if spec in self.allowed or spec in agent_names():  # a built-in name alone: its default options
            return spec, None
        return spec, (f"the agent of seat {q} is {spec[:200]!r}, which this server was not started with; a record "
                      f"never makes the server load an agent: start rummyrl-web with --opponent {spec[:200]} to let "
                      f"it explain its moves")

    def why_task(self, rid: int, step: int):
        """The work of explaining the move at ``step``: checked now, computed by the function
        returned (what the seat's agent weighs there), which holds no lock of the library."""
        rp = self.get(rid)
        step = self.check_step(rp, step)
        if step == rp.steps:
            raise ApiError(409, "the game is over at this step: there is no decision to explain")
        spec, why_not = self._spec(rp, step)
        if why_not:
            raise ApiError(409, why_not)
        st = rp._states[step]
        key = (rp.game.name, spec, st.config)
        texts = self._texts(rp, step)
        with self._lock:
            slot = self._agents.setdefault(key, [None, threading.Lock()])

        def compute() -> dict:
            with slot[1]:  # one agent object is not used by two threads at once
                if slot[0] is None:
                    try:
                        agent = load_agent(spec, game=rp.game.name, seed=0)
                    except (ValueError, FileNotFoundError) as e:
                        raise ApiError(409, f"cannot load the agent {spec!r}: {e}") from None
                    tell_rules((agent,), st.config)
                    slot[0] = agent
                found = explain(slot[0], rp.game.engine.observe(st), st.mask)[0]
            return {"step": step, "recorded": False, "agent": spec, **reason_rows(found, texts)}

        return compute


__all__ = ["Library"]
