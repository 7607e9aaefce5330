"""The web app's API through Starlette's test client: a whole game of each kind in which no
answer holds a card its player may not see, bad requests answered with a 4xx that says what
was wrong and changes nothing, games kept apart, and recorded games replayed and explained."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading

import pytest

from web_support import cards_in, hidden, hidden_after, play_whole_game, stock, web_client  # noqa: E402

from rummyrl import records
from rummyrl.tournament import run_tournament
from rummyrl.web import create_app
from rummyrl.web.server import main as web_main

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

@pytest.fixture()
def client():
    return web_client(create_app(["expert", "simple", "random"], rules={"target": 40}))


@pytest.mark.slow
@pytest.mark.parametrize("game, players, seat", [("gin", None, 0), ("gin", None, 1), ("rummy", 3, 1),
                                                 ("rummy", 5, 4)])
def test_a_whole_game_shows_no_card_its_player_may_not_see(client, game, players, seat):
    gid, answers = play_whole_game(client, game, players, seed=7, seat=seat)
    r = client.get(f"/api/games/{gid}/record")
    assert r.status_code == 200
    rec = r.json()["record"]
    rp = records.replay(rec)  # the game as played, replayed exactly
    assert rp.steps == answers[-1]["step"]
    assert rec["result"]["winner"] >= 0
    assert [s["score"] for s in answers[-1]["view"]["seats"]] == rp.state(rp.steps).scores[0].tolist()
    deal_ends = 0
    for a in answers:
        rest = {k: v for k, v in a.items() if k not in ("events", "last_deal_end")}
        leak = cards_in(rest) & hidden(rp.state(a["step"]), seat)
        assert not leak, f"step {a['step']}: the answer shows hidden cards {sorted(leak)}"
        for ev in a["events"] + ([a["last_deal_end"]] if a["last_deal_end"] else []):
            leak = cards_in(ev) & hidden_after(rp, ev["step"], seat)
            assert not leak, f"event at step {ev['step']} shows hidden cards {sorted(leak)}: {ev}"
        deal_ends += sum(ev["kind"] == "deal_end" for ev in a["events"])
        # the person's own hand is shown in full, the others' as counts
        view = a["view"]
        mine = rp.state(a["step"]).hands[0, seat]
        assert sum(len(m) for m in view["seats"][seat]["melds"]) + len(view["seats"][seat]["loose"]) == mine.sum()
        assert all("melds" not in s for q, s in enumerate(view["seats"]) if q != seat)
    assert deal_ends == len(rp.deal_ends) >= 1
    final = answers[-1]
    assert final["over"] and not final["moves"] and final["events"][-1]["kind"] == "game_over"
    assert sum(1 for a in answers for ev in a["events"] if ev["kind"] == "move" and ev["seat"] == seat) == \
        sum(1 for i in range(rp.steps) if int(rp.state(i).current[0]) == seat)


def test_refusals_name_the_rule_and_change_nothing(client):
    r = client.post("/api/games", json={"game": "gin", "seed": 3})
    a = r.json()
    gid = a["id"]
    assert a["view"]["phase"] == "OFFER" and a["your_turn"]
    before = client.get(f"/api/games/{gid}").json()
    held = [c for m in a["view"]["seats"][0]["melds"] for c in m] + a["view"]["seats"][0]["loose"]
    bad = [
        ({"command": f"x {held[0]}", "step": 0}, 409, "first take the upcard"),  # a discard before drawing (G-2)
        ({"command": "d", "step": 0}, 409, "(G-2)"),
        ({"command": "x Zz", "step": 0}, 409, "refused"),
        ({"command": "?", "step": 0}, 400, "is not a move"),
        ({"command": "q"}, 400, "quits the terminal game"),
        ({"action": 5, "step": 0}, 409, "is not legal in phase OFFER; legal: [1 (take_discard), 2 (pass)]"),
        ({"action": -1}, 409, "out of range"),
        ({"action": 10**6}, 409, "out of range"),
        ({"action": "1"}, 422, "field 'action' must be an integer"),
        ({"action": True}, 422, "field 'action' must be an integer"),
        ({"command": "p", "step": 5}, 409, "stale move: it was sent for step 5, but the game is at step 0"),
        ({"command": "p", "action": 2}, 400, "send one of 'command'"),
        ({}, 400, "send one of 'command'"),
        ({"command": "p", "colour": "red"}, 400, "unknown field(s) ['colour']; allowed: ['action', 'command', 'step']"),
    ]
    for body, status, message in bad:
        r = client.post(f"/api/games/{gid}/move", json=body)
        assert r.status_code == status, (body, r.text)
        assert message in r.json()["error"], (body, r.json())
    for raw, status, message in ((b"{not json", 400, "the body is not JSON"), (b"[1, 2]", 400, "must be a JSON object"),
                                 (b"\xff\xfe", 400, "the body is not JSON"),
                                 (b'{"command": "' + b"x" * 20000 + b'"}', 413, "at most 16384")):
        r = client.post(f"/api/games/{gid}/move", content=raw, headers={"Content-Type": "application/json"})
        assert r.status_code == status and message in r.json()["error"], r.text
    assert client.get(f"/api/games/{gid}").json() == before  # nothing changed
    r = client.post(f"/api/games/{gid}/move", json={"command": "p", "step": 0})
    assert r.status_code == 200 and r.json()["step"] > 0


def test_bad_new_games_and_stale_ids(client):
    for body, message in (({"game": "poker"}, "unknown game 'poker'; choose one of ['gin', 'rummy']"),
                          ({"opponent": 3}, "0..2, got 3"), ({"opponent": "expert"}, "field 'opponent' must be an integer"),
                          ({"game": "gin", "players": 3}, "Gin Rummy is played by 2 players, not 3"),
                          ({"game": "rummy", "players": 7}, "Rummy is played by 2..6 players, not 7"),
                          ({"game": "rummy", "players": 3, "seat": 3}, "seat must be 0..2 for 3 players"),
                          ({"seed": -1}, "seed must be an integer 0..2**63 - 1"),
                          ({"checkpoint": "/etc/passwd"}, "unknown field(s) ['checkpoint']")):
        r = client.post("/api/games", json=body)
        assert 400 <= r.status_code < 500 and message in r.json()["error"], (body, r.text)
    assert len(client.app.state.server.store) == 0
    for path in ("/api/games/0123456789abcdef", "/api/games/../../etc", "/api/games/x/hint"):
        r = client.get(path)
        assert r.status_code == 404 and "error" in r.json(), path
    assert "no game '0123456789abcdef' here" in client.get("/api/games/0123456789abcdef").json()["error"]
    assert client.delete("/api/games/0123456789abcdef").status_code == 404
    assert client.get("/api/nothing").status_code == 404
    assert client.put("/api/games").status_code == 405
    gid = client.post("/api/games", json={"game": "gin", "seed": 1}).json()["id"]
    assert client.get(f"/api/games/{gid}/record").status_code == 409  # every card of every deal: not while it is on
    assert client.delete(f"/api/games/{gid}").status_code == 200
    r = client.post(f"/api/games/{gid}/move", json={"command": "p"})
    assert r.status_code == 404 and "start a new one" in r.json()["error"]


def test_a_finished_game_refuses_moves_and_hints(client):
    gid, answers = play_whole_game(client, "gin", None, seed=2)
    for r in (client.post(f"/api/games/{gid}/move", json={"command": "d"}), client.get(f"/api/games/{gid}/hint")):
        assert r.status_code == 409 and ("game is over" in r.json()["error"] or "not your turn" in r.json()["error"])
    rid = client.get(f"/api/games/{gid}/record").json()["replay_id"]
    frame = client.get(f"/api/records/{rid}?step={answers[-1]['step']}").json()
    assert frame["view"]["over"] and frame["next"] is None


@pytest.mark.slow
def test_games_stay_apart(client):
    """The same seed played alone, and beside other games from several threads at once,
    gives the same game."""
    def run(seed, out, key):
        out[key] = [a["html"] for a in play_whole_game(client, "gin", None, seed=seed)[1]]

    alone = {}
    run(21, alone, "a")
    together: dict = {}
    threads = [threading.Thread(target=run, args=(s, together, k)) for k, s in (("a", 21), ("b", 22), ("c", 21))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert together["a"] == alone["a"] == together["c"]
    assert together["b"] != together["a"]


def test_hints_are_the_agents_reasons_in_your_seat(client):
    a = client.post("/api/games", json={"game": "rummy", "players": 3, "seed": 4, "opponent": 0}).json()
    gid = a["id"]
    a = client.post(f"/api/games/{gid}/move", json={"command": "d", "step": a["step"]}).json()
    h = client.get(f"/api/games/{gid}/hint").json()
    assert h["kind"] == "preference" and h["agent"] == "expert"
    legal = {m["action"]: m["text"] for m in a["moves"]}
    assert h["rows"] and all(legal[r["action"]] == r["text"] for r in h["rows"])
    assert [r["chosen"] for r in h["rows"]][0] is True
    assert client.get(f"/api/games/{gid}").json()["step"] == a["step"]  # a hint plays nothing


@pytest.fixture(scope="module")
def record_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("records")
    t = run_tournament(["expert", "simple"], game="rummy", players=3, games=3, seed=1, show_progress=False,
                       record=True, record_reasons=True)
    records.write_records(d / "rummy.jsonl", t.pairings[0].records)
    t = run_tournament(["expert", "random"], game="gin", games=2, seed=1, show_progress=False, record=True)
    recs = t.pairings[0].records
    recs[1]["seat_specs"] = ["runs/x/best.pt" if s == "random" else s for s in recs[1]["seat_specs"]]
    records.write_records(d / "gin.jsonl", recs)
    return d


def test_replays_step_jump_and_explain(record_dir):
    client = web_client(create_app(["expert"], records=[record_dir]))
    listing = client.get("/api/records").json()
    assert listing["total"] == 5
    gin_ids = [r["id"] for r in listing["records"] if r["game"] == "gin"]
    rummy = next(r for r in listing["records"] if r["game"] == "rummy")
    assert rummy["reasons"] and rummy["seats"][0].startswith(("expert", "simple"))
    f0 = client.get(f"/api/records/{rummy['id']}?step=0").json()
    rp = records.replay(records.read_records(record_dir / "rummy.jsonl")[0])
    assert f0["steps"] == rp.steps and f0["deal_ends"] == rp.deal_ends
    assert len(cards_in(f0["view"]["seats"])) == 3 * 7  # every hand face up
    assert cards_in(f0["view"]["stock"]) == stock(rp.state(0))
    end = f0["deal_ends"][0]
    fe = client.get(f"/api/records/{rummy['id']}?step={end}").json()
    assert fe["view"]["ended"]["end"] == rp.record["deals"][0]["end"] and fe["deal"] == 1
    assert fe["previous"]["step"] == end - 1
    why = f0["why"]
    assert why["recorded"] and why["rows"] and why["kind"] in ("preference", "rule")
    # the gin records have no reasons: computed on demand where the agent may be loaded
    g = client.get(f"/api/records/{gin_ids[0]}?step=0").json()
    assert g["why"] is None and g["can_explain"]
    w = client.get(f"/api/records/{gin_ids[0]}/why?step=0").json()
    assert w["recorded"] is False and w["rows"] and w["agent"] in ("expert", "random")
    # a checkpoint path named by a record is not loaded unless the command line gave it
    steps = client.get(f"/api/records/{gin_ids[1]}?step=0").json()["steps"]
    blocked = None
    for step in range(steps):
        r = client.get(f"/api/records/{gin_ids[1]}/why?step={step}")
        if r.status_code == 409:
            blocked = r.json()["error"]
            break
        assert r.status_code == 200
    assert blocked and "start rummyrl-web with --opponent runs/x/best.pt" in blocked
    for url, status in ((f"/api/records/{rummy['id']}?step={f0['steps'] + 1}", 422), ("/api/records/99", 404),
                        ("/api/records/abc", 404), (f"/api/records/{rummy['id']}?step=x", 422),
                        (f"/api/records/{rummy['id']}/why", 422), (f"/api/records/{rummy['id']}/why?step={f0['steps']}", 409),
                        ("/api/records?limit=0", 422)):
        r = client.get(url)
        assert r.status_code == status and r.json()["error"], (url, r.text)


def test_pages_headers_and_hosts(client):
    r = client.get("/")
    assert r.status_code == 200 and "<script src=\"/static/app.js\"" in r.text
    assert "default-src 'self'" in r.headers["content-security-policy"]
    assert client.get("/static/app.js").status_code == 200 and client.get("/table.css").text.startswith(".rrl-table")
    r = client.get("/api/config", headers={"Host": "attacker.example"})
    assert r.status_code == 400  # a page elsewhere cannot reach a loopback server through DNS rebinding
    cfg = client.get("/api/config").json()
    assert [o["spec"] for o in cfg["opponents"]] == ["expert", "simple", "random"]


def test_the_command_line_refuses_bad_arguments(capsys, tmp_path):
    assert web_main(["--option", "colour=red"]) == 2
    assert "unknown rule option(s) ['colour']" in capsys.readouterr().err
    assert web_main(["--records", str(tmp_path / "none")]) == 2
    assert "no record file or folder" in capsys.readouterr().err
    assert web_main(["--opponent", "nobody"]) == 2
    assert "no opponent can play any game" in capsys.readouterr().err
    assert web_main(["--target", "-5"]) == 2
    with pytest.raises(SystemExit) as stop:  # argparse's own one-line error, after the usage line
        web_main(["--port", "99999"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "--port: must be a port number 0..65535" in err and "Traceback" not in err
    # a bad record is listed as broken and the server goes on; a port in use is one line, and
    # no URL is printed before it (the socket is bound before anything is announced)
    (tmp_path / "bad.jsonl").write_text(json.dumps({"format": "x"}) + "\n")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        assert web_main(["--records", str(tmp_path / "bad.jsonl"), "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert "1 record(s) are broken" in err and f"cannot listen on 127.0.0.1:{port}" in err, err
    assert "http://" not in err and "Traceback" not in err


def test_without_the_web_extra_the_command_says_how_to_get_it():
    """rummyrl-web with uvicorn not importable: one line naming the extra, exit 2, no traceback."""
    code = ("import sys; sys.modules['uvicorn'] = None; import rummyrl.web as w; sys.exit(w.main([]))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "uvicorn missing" in r.stderr and 'pip install -e ".[web]"' in r.stderr
    assert "Traceback" not in r.stderr
