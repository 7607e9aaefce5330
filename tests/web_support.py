"""What the web app's tests share: the skip where the web extra is missing, Starlette's test
client, the origin of the table's own page, which every state-changing request carries, the
cards an answer names and those a seat may not see, and a whole game played through the API."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("httpx", reason="the web extra is not installed (pip install -e '.[web]')")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note that its test client will move to httpx2
    from starlette.testclient import TestClient

from rummyrl import games  # noqa: E402
from rummyrl.agents import load_agent  # noqa: E402
from rummyrl.cards import RANK_CHARS, SUIT_CHARS, SUIT_SYMBOLS  # noqa: E402

#: where the test client says it is: a loopback address the server answers (not
#: "testserver"), and so the origin of the table's own page
ORIGIN = "http://127.0.0.1:8000"


def web_client(app, **kwargs) -> TestClient:
    """A client of ``app`` as the table's own page is: same origin, JSON bodies."""
    return TestClient(app, base_url=ORIGIN, headers={"Origin": ORIGIN, "Content-Type": "application/json"}, **kwargs)


#: a card as any answer may write it: "Kd", "K♦", "10♦", "T♦"
CARD = re.compile(r"(?<![A-Za-z0-9])(10|[2-9TJQKA])([shdc♠♥♦♣])(?![A-Za-z0-9])")


def card_id(rank: str, suit: str) -> int:
    r = 9 if rank == "10" else RANK_CHARS.index(rank)
    s = SUIT_CHARS.index(suit) if suit in SUIT_CHARS else SUIT_SYMBOLS.index(suit)
    return s * 13 + r


def cards_in(obj) -> set[int]:
    """Every card named anywhere in a JSON answer (text, HTML, lists of cards)."""
    found = set()
    if isinstance(obj, str):
        found |= {card_id(r, s) for r, s in CARD.findall(obj)}
    elif isinstance(obj, dict):
        for v in obj.values():
            found |= cards_in(v)
    elif isinstance(obj, list):
        for v in obj:
            found |= cards_in(v)
    return found


def stock(state) -> set[int]:
    if hasattr(state, "stock_pos"):
        return set(state.stock[0, int(state.stock_pos[0]):int(state.stock_len[0])].tolist())
    return set(state.deck[0, int(state.stock_top[0]):].tolist())


def hidden(state, me: int) -> set[int]:
    """The cards seat ``me`` may not see: the others' cards not known to be held, the stock."""
    out = stock(state)
    for q in range(state.hands.shape[1]):
        if q != me:
            out |= set(np.flatnonzero(state.hands[0, q] & ~state.known[0, q]).tolist())
    return out


def hidden_after(rp, step: int, me: int) -> set[int]:
    """What ``me`` may not see right after the action at ``step``: at the end of a deal only
    the stock that was left (the showdown shows every hand)."""
    before, after = rp.state(step), rp.state(step + 1)
    if rp.game.deal_ended(after)[0]:
        return stock(before) - set(np.flatnonzero(after.last_hands[0].any(0)).tolist())
    return hidden(after, me)


def server_game(client, gid):
    return client.app.state.server.store.get(gid)


def play_whole_game(client, game: str, players: int | None, seed: int, seat: int = 0):
    """Play as the expert would in the person's seat, through the API; every answer kept."""
    body = {"game": game, "seed": seed, "seat": seat, "opponent": 0}
    if players:
        body["players"] = players
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    answers = [r.json()]
    gid = answers[0]["id"]
    me = load_agent("expert", game=game)
    g = games.get(game)
    n = 0
    while not answers[-1]["over"]:
        a = answers[-1]
        assert a["your_turn"] and a["moves"]
        st = server_game(client, gid).session.state
        action = int(me.act(g.engine.observe(st, player=seat), st.mask)[0])
        move = next(m for m in a["moves"] if m["action"] == action)
        body = {"command": move["command"], "step": a["step"]} if n % 2 else {"action": action, "step": a["step"]}
        r = client.post(f"/api/games/{gid}/move", json=body)
        assert r.status_code == 200, r.text
        answers.append(r.json())
        n += 1
        assert n < 3000
    return gid, answers


__all__ = ["ORIGIN", "TestClient", "cards_in", "hidden", "hidden_after", "play_whole_game", "server_game",
           "stock", "web_client"]
