"""Replay mode of the web app: the recorded games given on the command line, move by move.

A :class:`Library` holds the records read at start-up (``--records``) and the games played
here once they end. The browser names a record by its number only, never by a path. A
frame (:meth:`Library.frame`) is the table before one action, every hand face up with the
stock in draw order, the move made there in the terminal game's words, where the deals
start and end (to jump), and the reasons the record holds for that move. Reasons a record
lacks are computed on demand (:meth:`Library.why`) by the seat's agent, where that agent
is a built-in one or was given on the command line.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path

from rummyrl import games as registry
from rummyrl.agents import agent_names, load_agent
from rummyrl.agents.base import tell_rules
from rummyrl.cards import card_str
from rummyrl.envs.render_html import table_html, table_view
from rummyrl.reasons import explain
from rummyrl.records import RecordError, check_record, read_records, replay, seat_names

from .play import ApiError
from .why import reason_rows


def _session(game, state, names, seat: int):
    """The terminal game's session on ``state`` for seat ``seat`` (its words for moves)."""
    return registry.load(game.session)(state, None, names, seat)


class Library:
    """Records by number: those read from ``paths`` and those added while serving."""

    def __init__(self, paths=(), allowed_specs=(), cache: int = 16):
        self.entries: list[tuple[str, dict]] = []
        for path in paths:
            for rec in read_records(path):
                self.entries.append((Path(path).name, rec))
        self.allowed = set(allowed_specs)
        self._replays: OrderedDict[int, object] = OrderedDict()
        self._agents: dict = {}
        self._lock = threading.Lock()
        self._cache = cache

    def add(self, rec: dict, source: str) -> int:
        with self._lock:
            self.entries.append((source, check_record(rec)))
            return len(self.entries) - 1

    def summary(self, rid: int) -> dict:
        source, rec = self.entries[rid]
        game = registry.get(rec["game"])
        names = seat_names(rec["seats"])
        res = rec.get("result")
        if res is None:
            result = "unfinished"
        elif res["winner"] < 0:
            result = "no winner"
        else:
            result = f"{names[res['winner']]} wins {res['totals'][res['winner']]} (margin {res['margin']})"
        return {"id": rid, "source": source, "game": game.name, "title": game.title, "players": rec["players"],
                "seats": names, "deals": len(rec["deals"]), "actions": sum(len(d["actions"]) for d in rec["deals"]),
                "result": result, "reasons": any("reasons" in d for d in rec["deals"])}

    def listing(self, offset: int = 0, limit: int = 200) -> dict:
        ids = range(len(self.entries))[offset:offset + limit]
        return {"total": len(self.entries), "offset": offset, "records": [self.summary(i) for i in ids]}

    def get(self, rid: int):
        if not 0 <= rid < len(self.entries):
            raise ApiError(404, f"no record {rid}: the records are numbered 0..{len(self.entries) - 1}"
                           if self.entries else "no records are loaded: start rummyrl-web with --records PATH")
        with self._lock:
            rp = self._replays.get(rid)
            if rp is None:
                try:
                    rp = replay(self.entries[rid][1])
                except RecordError as e:
                    raise ApiError(422, f"record {rid} does not replay: {e}") from None
                self._replays[rid] = rp
                while len(self._replays) > self._cache:
                    self._replays.popitem(last=False)
            self._replays.move_to_end(rid)
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
        """The agent spec of the seat to act at ``step``, and why it cannot explain (or None)."""
        st = rp._states[step]
        q = int(st.current[0])
        specs = rp.record.get("seat_specs")
        if not specs:
            return None, "this record does not say which agent held each seat (seat_specs)"
        spec = specs[q]
        if spec is None:
            return None, f"seat {q} ({rp.names()[q]}) was played by a person"
        if spec in self.allowed or (spec.partition(":")[0] in agent_names() and "/" not in spec):
            return spec, None
        return spec, (f"the agent of seat {q} is {spec!r}, not a built-in agent: start rummyrl-web with "
                      f"--opponent {spec} to let it explain its moves")

    def why(self, rid: int, step: int) -> dict:
        """What the agent of the seat to act at ``step`` weighs there, computed now."""
        rp = self.get(rid)
        step = self.check_step(rp, step)
        if step == rp.steps:
            raise ApiError(409, "the game is over at this step: there is no decision to explain")
        spec, why_not = self._spec(rp, step)
        if why_not:
            raise ApiError(409, why_not)
        st = rp._states[step]
        config = st.config
        key = (rp.game.name, spec, config)
        with self._lock:
            agent = self._agents.get(key)
            if agent is None:
                try:
                    agent = load_agent(spec, game=rp.game.name, seed=0)
                except (ValueError, FileNotFoundError) as e:
                    raise ApiError(409, f"cannot load the agent {spec!r}: {e}") from None
                tell_rules((agent,), config)
                self._agents[key] = agent
            obs = rp.game.engine.observe(st)
            found = explain(agent, obs, st.mask)[0]
        return {"step": step, "recorded": False, "agent": spec, **reason_rows(found, self._texts(rp, step))}


__all__ = ["Library"]
