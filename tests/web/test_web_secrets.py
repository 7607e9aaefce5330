"""The web table keeps a game's secrets: whole games of Gin and of Rummy (2, 4 and 6 players)
played through the HTTP API, every route a player may call asked at every turn, and every
answer kept. Against the server's own game (its true seed, its record) no answer of a game in
progress holds a number that deals the game's first deal again, the seed itself, or a card
its player may not see; the seed is told once the game is over. A seed the player chose
deals the game the library deals from that seed, and the game says its deal was known."""

from __future__ import annotations

import re

import numpy as np
import pytest

from web_support import ORIGIN, TestClient  # noqa: E402  (tests/ is on sys.path)

from web_support import cards_in, hidden, hidden_after  # noqa: E402  (tests/ is on sys.path)

from rummyrl import games as registry  # noqa: E402
from rummyrl import records  # noqa: E402
from rummyrl.agents import load_agent  # noqa: E402
from rummyrl.web import create_app  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SEED_LIMIT = 2**63
DECIMAL = re.compile(r"[0-9]+")
HEX = re.compile(r"[0-9A-Fa-f]+")
#: numbers written inside longer text: decimal runs, and hex runs long enough to be an id or a seed
DIGIT_RUN = re.compile(r"[0-9]+")
HEX_RUN = re.compile(r"[0-9A-Fa-f]{6,}")


def make_client(**kwargs) -> TestClient:
    app = create_app(["expert", "simple", "random"], **kwargs)
    return TestClient(app, base_url=ORIGIN, headers={"Origin": ORIGIN})


def server_game(client, gid):
    return client.app.state.server.store.get(gid)


# --------------------------------------------------------------------------------------
# What an answer holds
# --------------------------------------------------------------------------------------
def scalars(obj):
    """Every key and every leaf value of a JSON answer."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from scalars(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from scalars(v)
    else:
        yield obj


def strings(obj) -> list[str]:
    return [s for s in scalars(obj) if isinstance(s, str)]


def candidate_seeds(obj) -> set[int]:
    """Every integer an answer holds, as a number or as text (decimal or hex, whole or a run
    of digits inside longer text): each could be a seed that deals the game again."""
    out: set[int] = set()
    for s in scalars(obj):
        if isinstance(s, bool) or s is None:
            continue
        if isinstance(s, int):
            out.add(s)
        elif isinstance(s, float):
            if s == s and abs(s) != float("inf") and s.is_integer():
                out.add(int(s))
        elif isinstance(s, str):
            t = s.strip()
            if DECIMAL.fullmatch(t):
                out.add(int(t))
            if HEX.fullmatch(t):
                out.add(int(t, 16))
            if t.lower().startswith("0x") and HEX.fullmatch(t[2:] or "-"):
                out.add(int(t[2:], 16))
            out |= {int(m) for m in DIGIT_RUN.findall(s) if len(m) <= 40}
            out |= {int(m, 16) for m in HEX_RUN.findall(s) if len(m) <= 32}
    return {n for n in out if 0 <= n < 2**64}  # the seeds the deal functions take


def kept(r, kind: str, step: int, over: bool) -> dict:
    """One answer as the test keeps it: its JSON, its headers, where the game was."""
    return {"kind": kind, "status": r.status_code, "json": r.json() if r.content else None,
            "headers": dict(r.headers), "step": step, "over": over}


def play_and_ask_everything(client, game: str, players: int, seat: int):
    """A whole game, the expert's moves in the person's seat; at every turn each route the
    player can call is asked. Returns the game id and every answer kept."""
    body = {"game": game, "players": players, "seat": seat, "opponent": 0}  # no seed: the server draws it
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    a = r.json()
    gid = a["id"]
    answers = [kept(r, "create", a["step"], a["over"])]
    me = load_agent("expert", game=game)
    g = registry.get(game)
    n = 0
    while not a["over"]:
        step = a["step"]
        r = client.get(f"/api/games/{gid}")
        assert r.status_code == 200, r.text
        answers.append(kept(r, "game", step, False))
        assert r.json()["step"] == step and r.json()["your_turn"]
        r = client.get(f"/api/games/{gid}/hint")
        assert r.status_code == 200, r.text
        answers.append(kept(r, "hint", step, False))
        r = client.get(f"/api/games/{gid}/record")
        assert r.status_code == 409, r.text  # every card of every deal: not while the game is on
        answers.append(kept(r, "record", step, False))
        r = client.get("/api/config")
        assert r.status_code == 200, r.text
        answers.append(kept(r, "config", step, False))
        r = client.get("/api/records")
        assert r.status_code == 200, r.text
        answers.append(kept(r, "records", step, False))
        st = server_game(client, gid).session.state
        action = int(me.act(g.engine.observe(st, player=seat), st.mask)[0])
        move = next(m for m in a["moves"] if m["action"] == action)
        body = {"command": move["command"], "step": step} if n % 2 else {"action": action, "step": step}
        r = client.post(f"/api/games/{gid}/move", json=body)
        assert r.status_code == 200, r.text
        a = r.json()
        answers.append(kept(r, "move", a["step"], a["over"]))
        n += 1
        assert n < 2000
    for path, kind in ((f"/api/games/{gid}", "game"), (f"/api/games/{gid}/record", "record")):
        r = client.get(path)
        assert r.status_code == 200, r.text
        answers.append(kept(r, kind, a["step"], True))
    return gid, answers


def first_deck(game, seed: int, config) -> np.ndarray:
    return registry.get(game).engine.init(1, seed=seed, config=config).deck[0].copy()


# --------------------------------------------------------------------------------------
# Whole games
# --------------------------------------------------------------------------------------
# small targets keep the games short (a few deals); the seeds, and so the games' lengths, are the server's
@pytest.mark.slow
@pytest.mark.parametrize("game, players, seat, target", [("gin", 2, 1, 30), ("rummy", 2, 0, 15), ("rummy", 4, 3, 15),
                                                         ("rummy", 6, 2, 15)])
def test_no_answer_of_a_game_in_progress_gives_its_deal_away(game, players, seat, target):
    client = make_client(rules={"target": target})
    gid, answers = play_and_ask_everything(client, game, players, seat)
    gm = server_game(client, gid)
    rec = gm.recorder.record
    rp = records.replay(rec)
    config = gm.session.state.config
    true_seed = int(gm.seed)
    assert 0 <= true_seed < SEED_LIMIT
    # the ground truth: the server's seed deals, through the library, the game's first deal
    true_deck = records.parse_deck(rec["deals"][0]["deck"])
    assert np.array_equal(first_deck(game, true_seed, config), true_deck)
    assert np.array_equal(rp.state(0).deck[0], true_deck)
    assert rp.steps == answers[-1]["step"]

    on = [x for x in answers if not x["over"]]
    assert len(on) >= 6
    # (a) no number the player saw while the game was on deals its first deal again
    seen: set[int] = set()
    for x in on:
        seen |= candidate_seeds(x["json"]) | candidate_seeds(x["headers"])
    assert seen, "the answers hold no number at all?"
    # each number and its near neighbours (a seed sent as seed + 1 is the seed too)
    tried = {n + d for n in seen for d in (-2, -1, 0, 1, 2) if 0 <= n + d < 2**64}
    dealt_again = sorted(n for n in tried if np.array_equal(first_deck(game, n, config), true_deck))
    assert not dealt_again, f"numbers sent while the game was on deal its first deal: {dealt_again}"
    seed_texts = (str(true_seed), f"{true_seed:x}", f"{true_seed:X}", f"{true_seed:016x}")
    for x in on:
        for part in (x["json"], x["headers"]):
            assert true_seed not in [v for v in scalars(part) if isinstance(v, int) and not isinstance(v, bool)], \
                f"{x['kind']} answer at step {x['step']} holds the seed"
            bad = [s for s in strings(part) if any(t in s for t in seed_texts)]
            assert not bad, f"{x['kind']} answer at step {x['step']} writes the seed: {bad[0][:200]}"

    # (b) no card hidden from the player at that moment
    for x in answers:
        a, step = x["json"], x["step"]
        if x["kind"] in ("create", "game", "move"):
            rest = {k: v for k, v in a.items() if k not in ("events", "last_deal_end")}
            leak = cards_in(rest) & hidden(rp.state(step), seat)
            assert not leak, f"{x['kind']} answer at step {step} shows hidden cards {sorted(leak)}"
            for ev in a["events"] + ([a["last_deal_end"]] if a["last_deal_end"] else []):
                leak = cards_in(ev) & hidden_after(rp, ev["step"], seat)
                assert not leak, f"event at step {ev['step']} shows hidden cards {sorted(leak)}: {ev}"
        elif not x["over"]:
            leak = (cards_in(a) | cards_in(x["headers"])) & hidden(rp.state(step), seat)
            assert not leak, f"{x['kind']} answer at step {step} shows hidden cards {sorted(leak)}: {a}"

    # (c) the deal is not known to the player; the seed is told once the game is over, and only then
    game_answers = [x for x in answers if x["kind"] in ("create", "game", "move")]
    for x in game_answers:
        assert x["json"].get("deal_known") is False, (x["kind"], x["step"], sorted(x["json"]))
    for x in on:
        if x["kind"] in ("create", "game", "move", "hint"):
            assert "seed" not in [k for k in scalars_keys(x["json"])], \
                f"{x['kind']} answer at step {x['step']} has a 'seed' field"
    final = [x for x in game_answers if x["over"]]
    assert final and all(x["json"].get("seed") == str(true_seed) for x in final), \
        [x["json"].get("seed") for x in final]
    record = answers[-1]["json"]["record"]
    assert record["deals"][0]["deck"] == rec["deals"][0]["deck"]
    assert not record.get("deal_known_to_player")


def scalars_keys(obj):
    """Every key of every object in a JSON answer."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from scalars_keys(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from scalars_keys(v)


def test_the_server_draws_63_bit_seeds_and_never_sends_them():
    """Seeds drawn by the server are wide (a 31-bit seed is searched through in seconds) and
    differ from game to game; none is in the opening answer."""
    c = make_client(rules={"target": 30})
    seeds = []
    for _ in range(6):
        r = c.post("/api/games", json={"game": "gin"})
        assert r.status_code == 201, r.text
        a = r.json()
        s = int(server_game(c, a["id"]).seed)
        assert str(s) not in r.text and "seed" not in a and a["deal_known"] is False
        seeds.append(s)
    assert len(set(seeds)) == len(seeds)
    assert all(0 <= s < SEED_LIMIT for s in seeds)
    assert max(seeds) >= 2**40, f"the server's seeds look narrow: {seeds}"


# --------------------------------------------------------------------------------------
# A seed the player chose
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("game, players", [("gin", 2), ("rummy", 4)])
def test_a_chosen_seed_deals_the_librarys_deal_and_is_known(game, players):
    c = make_client(rules={"target": 30})
    got = []
    for seed in ("12345", 12345):
        r = c.post("/api/games", json={"game": game, "players": players, "seed": seed})
        assert r.status_code == 201, (seed, r.text)
        a = r.json()
        assert a["deal_known"] is True, (seed, a.get("deal_known"))
        gm = server_game(c, a["id"])
        assert int(gm.seed) == 12345
        rec = gm.recorder.record
        assert rec.get("deal_known_to_player") is True, sorted(rec)
        want = first_deck(game, 12345, gm.session.state.config)
        assert np.array_equal(records.parse_deck(rec["deals"][0]["deck"]), want)
        got.append(a)
    text, number = got
    assert text["id"] != number["id"]
    # the same seed as a string and as a number: the same game
    assert text["html"] == number["html"] and text["moves"] == number["moves"] and text["step"] == number["step"]
    # and a different seed, another game
    other = c.post("/api/games", json={"game": game, "players": players, "seed": "12346"}).json()
    assert other["html"] != text["html"]


def test_a_chosen_seed_game_record_says_the_deal_was_known():
    c = make_client(rules={"target": 10})
    r = c.post("/api/games", json={"game": "gin", "seed": "7"})
    assert r.status_code == 201, r.text
    a = r.json()
    gid = a["id"]
    me = load_agent("expert", game="gin")
    g = registry.get("gin")
    n = 0
    while not a["over"]:
        st = server_game(c, gid).session.state
        action = int(me.act(g.engine.observe(st, player=0), st.mask)[0])
        r = c.post(f"/api/games/{gid}/move", json={"action": action, "step": a["step"]})
        assert r.status_code == 200, r.text
        a = r.json()
        assert a["deal_known"] is True
        n += 1
        assert n < 2000
    assert a["seed"] == "7"
    rec = c.get(f"/api/games/{gid}/record").json()["record"]
    assert rec["deal_known_to_player"] is True and rec["seed"] == 7


@pytest.mark.parametrize("seed", ["", "12a", "-1", " 12", "12 ", "+12", "1.5", "1e3", "0x10", "１２", "٣",
                                  "1" * 20, str(2**63), 2**63, -1, 1.0, True, [1], {"n": 1}])
def test_bad_seeds_are_refused_with_what_a_seed_is(seed):
    c = make_client(rules={"target": 30})
    r = c.post("/api/games", json={"game": "gin", "seed": seed})
    assert 400 <= r.status_code < 500, (seed, r.status_code, r.text)
    err = r.json()["error"]
    assert "seed" in err, (seed, err)
    assert len(c.app.state.server.store) == 0


@pytest.mark.parametrize("seed", ["0", "9223372036854775807", 0, 2**63 - 1, "0000000000000000042"])
def test_the_widest_seeds_are_taken(seed):
    c = make_client(rules={"target": 30})
    r = c.post("/api/games", json={"game": "gin", "seed": seed})
    assert r.status_code == 201, (seed, r.text)
    assert int(server_game(c, r.json()["id"]).seed) == int(seed)
