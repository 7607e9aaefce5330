"""The web table refuses what a page elsewhere could make a browser send: state-changing
requests without a same-origin Origin (or Referer) and a JSON content type, requests naming a
host the server does not serve (DNS rebinding), bodies past the limit, numbers and ids that
only look like ASCII digits; and one client's burst of new games never pushes out another's."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from web_support import ORIGIN, TestClient  # noqa: E402  (tests/ is on sys.path)

from rummyrl import records  # noqa: E402
from rummyrl.tournament import run_tournament  # noqa: E402
from rummyrl.web import create_app  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

JSON = "application/json"
GOOD = {"Content-Type": JSON, "Origin": ORIGIN}
LIMIT = 16384


def make_app(**kwargs):
    kwargs.setdefault("rules", {"target": 30})
    return create_app(["expert", "simple", "random"], **kwargs)


def bare_client(app, client=None) -> TestClient:
    """A client that sends no Origin unless a request names one."""
    kw = {"client": client} if client else {}
    return TestClient(app, base_url=ORIGIN, **kw)


def page_client(app, client=None) -> TestClient:
    """A client as the contract builds it: the page's own origin on every request."""
    kw = {"client": client} if client else {}
    return TestClient(app, base_url=ORIGIN, headers={"Origin": ORIGIN}, **kw)


def send(c, method, path, body=None, headers=None):
    content = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    return c.request(method, path, content=content, headers=headers or {})


def error_of(r) -> str:
    a = r.json()
    assert isinstance(a.get("error"), str) and a["error"], r.text
    return a["error"]


@pytest.fixture()
def app():
    return make_app()


@pytest.fixture()
def live(app):
    """A client without a default Origin, a game on (the person to move) and its answer."""
    c = bare_client(app)
    r = send(c, "POST", "/api/games", {"game": "gin", "seed": 3}, GOOD)
    assert r.status_code == 201, r.text
    a = r.json()
    assert a["your_turn"] and a["moves"]
    return c, a


# --------------------------------------------------------------------------------------
# Cross-site requests
# --------------------------------------------------------------------------------------
ORIGIN_WORDS = ("origin",)
TYPE_WORDS = ("content-type", "content type", "application/json")
REFERER_WORDS = ("referer", "referrer")
REFUSED = [
    # (headers, words one of which the message must hold)
    ({"Content-Type": JSON, "Origin": "http://evil.example"}, ORIGIN_WORDS),
    ({"Content-Type": JSON, "Origin": "null"}, ORIGIN_WORDS),
    ({"Content-Type": JSON, "Origin": "http://127.0.0.1:8001"}, ORIGIN_WORDS),
    ({"Content-Type": JSON, "Origin": "http://localhost:8000"}, ORIGIN_WORDS),  # another name than the Host's
    ({"Content-Type": JSON, "Origin": "http://127.0.0.1:8000.evil.example"}, ORIGIN_WORDS),
    ({"Content-Type": "text/plain", "Origin": ORIGIN}, TYPE_WORDS),  # a form or a fetch without preflight
    ({"Content-Type": "text/plain;charset=UTF-8", "Origin": ORIGIN}, TYPE_WORDS),
    ({"Content-Type": "application/x-www-form-urlencoded", "Origin": ORIGIN}, TYPE_WORDS),
    ({"Content-Type": "multipart/form-data; boundary=x", "Origin": ORIGIN}, TYPE_WORDS),
    ({"Origin": ORIGIN}, TYPE_WORDS),  # no Content-Type at all
    ({"Content-Type": JSON}, REFERER_WORDS),  # neither Origin nor Referer
    ({"Content-Type": JSON, "Referer": "http://evil.example/"}, REFERER_WORDS),
    ({"Content-Type": JSON, "Referer": ORIGIN}, REFERER_WORDS),  # not the origin + "/"
    ({"Content-Type": JSON, "Referer": ORIGIN + ".evil.example/"}, REFERER_WORDS),
    ({"Content-Type": JSON, "Origin": "http://evil.example", "Referer": ORIGIN + "/"}, ORIGIN_WORDS),
]
ACCEPTED = [
    {"Content-Type": JSON, "Origin": ORIGIN},
    {"Content-Type": "application/json; charset=utf-8", "Origin": ORIGIN},
    {"Content-Type": JSON, "Origin": "https://127.0.0.1:8000"},
    {"Content-Type": JSON, "Referer": ORIGIN + "/"},  # no Origin: a same-origin Referer
    {"Content-Type": JSON, "Referer": ORIGIN + "/?game=gin"},
]


def routes(gid, step, action):
    return [("POST", "/api/games", {"game": "gin", "seed": 5}),
            ("POST", f"/api/games/{gid}/move", {"action": action, "step": step}),
            ("DELETE", f"/api/games/{gid}", None)]


@pytest.mark.parametrize("headers, word", REFUSED, ids=[f"{i}" for i in range(len(REFUSED))])
def test_cross_site_requests_are_refused_and_change_nothing(app, live, headers, word):
    c, a = live
    gid = a["id"]
    store = app.state.server.store
    before = send(c, "GET", f"/api/games/{gid}").json()
    n = len(store)
    for method, path, body in routes(gid, a["step"], a["moves"][0]["action"]):
        r = send(c, method, path, body, headers)
        assert r.status_code == 403, (method, path, headers, r.status_code, r.text)
        msg = error_of(r)
        assert any(w in msg.lower() for w in word), (headers, msg)
        assert len(store) == n, (method, path, headers)
        assert send(c, "GET", f"/api/games/{gid}").json() == before, (method, path, headers)


@pytest.mark.parametrize("headers", ACCEPTED, ids=[f"{i}" for i in range(len(ACCEPTED))])
def test_same_origin_requests_are_served(app, live, headers):
    c, a = live
    gid = a["id"]
    store = app.state.server.store
    r = send(c, "POST", "/api/games", {"game": "gin", "seed": 5}, headers)
    assert r.status_code == 201, (headers, r.text)
    assert len(store) == 2
    r = send(c, "POST", f"/api/games/{gid}/move", {"action": a["moves"][0]["action"], "step": a["step"]}, headers)
    assert r.status_code == 200, (headers, r.text)
    assert r.json()["step"] > a["step"]
    r = send(c, "DELETE", f"/api/games/{gid}", None, headers)
    assert r.status_code == 200, (headers, r.text)
    assert send(c, "GET", f"/api/games/{gid}").status_code == 404
    assert len(store) == 1


def test_the_page_client_of_the_contract_plays(app):
    """A client built as the contract says (the page's Origin on every request) plays, and
    reads without an Origin."""
    c = page_client(app)
    a = c.post("/api/games", json={"game": "rummy", "players": 3, "seed": 1}).json()
    assert a["your_turn"], a
    r = c.post(f"/api/games/{a['id']}/move", json={"action": a["moves"][0]["action"], "step": a["step"]})
    assert r.status_code == 200, r.text
    bare = bare_client(app)
    for path in ("/", "/api/config", "/api/records", f"/api/games/{a['id']}", "/static/app.js"):
        assert bare.get(path).status_code == 200, path


def test_the_page_asks_browsers_for_the_referrer_policy_that_keeps_posts_working(app):
    r = bare_client(app).get("/")
    assert r.headers["referrer-policy"] == "same-origin"


# --------------------------------------------------------------------------------------
# Hosts
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("host, ok", [
    ("attacker.example", False), ("testserver", False), ("localhost.attacker.example", False),
    ("127.0.0.1.nip.io", False), ("192.168.1.5:8000", False), ("", False),
    ("127.0.0.1:8000", True), ("127.0.0.2:8000", True), ("localhost:8000", True), ("[::1]:8000", True),
    ("127.0.0.1", True), ("localhost", True),
])
def test_a_loopback_server_serves_loopback_names_only(app, host, ok):
    r = bare_client(app).get("/api/config", headers={"Host": host})
    if ok:
        assert r.status_code == 200, (host, r.text)
    else:
        assert r.status_code == 400, (host, r.status_code, r.text)
        error_of(r)


def test_the_origin_must_match_the_host_that_was_asked(app):
    c = bare_client(app)
    r = send(c, "POST", "/api/games", {"game": "gin"},
             {"Host": "localhost:8000", "Origin": "http://localhost:8000", "Content-Type": JSON})
    assert r.status_code == 201, r.text
    r = send(c, "POST", "/api/games", {"game": "gin"},
             {"Host": "localhost:8000", "Origin": ORIGIN, "Content-Type": JSON})
    assert r.status_code == 403, r.text
    r = send(c, "POST", "/api/games", {"game": "gin"},
             {"Host": "[::1]:8000", "Referer": "http://[::1]:8000/", "Content-Type": JSON})
    assert r.status_code == 201, r.text
    assert len(app.state.server.store) == 2


@pytest.mark.parametrize("host, ok", [("192.168.1.5:8000", True), ("10.1.2.3", True), ("[2001:db8::1]:8000", True),
                                      ("127.0.0.1:8000", True), ("localhost:8000", True),
                                      ("attacker.example", False), ("attacker.example:8000", False),
                                      ("testserver", False)])
def test_a_server_on_every_address_serves_ip_literals_but_no_other_names(host, ok):
    c = bare_client(make_app(host="0.0.0.0"))
    r = c.get("/api/config", headers={"Host": host})
    assert r.status_code == (200 if ok else 400), (host, r.text)


def test_a_server_on_one_address_serves_that_address():
    c = bare_client(make_app(host="192.168.1.5"))
    assert c.get("/api/config", headers={"Host": "192.168.1.5:8000"}).status_code == 200
    assert c.get("/api/config", headers={"Host": "127.0.0.1:8000"}).status_code == 200
    assert c.get("/api/config", headers={"Host": "192.168.1.6:8000"}).status_code == 400
    assert c.get("/api/config", headers={"Host": "attacker.example"}).status_code == 400


def test_allowed_hosts_are_served():
    app = make_app(allowed_hosts=("table.lan",))
    c = bare_client(app)
    for host in ("table.lan", "table.lan:8000"):
        assert c.get("/api/config", headers={"Host": host}).status_code == 200, host
    for host in ("other.lan", "table.lan.evil.example", "xtable.lan"):
        assert c.get("/api/config", headers={"Host": host}).status_code == 400, host
    r = send(c, "POST", "/api/games", {"game": "gin"},
             {"Host": "table.lan:8000", "Origin": "http://table.lan:8000", "Content-Type": JSON})
    assert r.status_code == 201, r.text
    r = send(c, "POST", "/api/games", {"game": "gin"},
             {"Host": "table.lan:8000", "Origin": "http://evil.lan:8000", "Content-Type": JSON})
    assert r.status_code == 403, r.text


# --------------------------------------------------------------------------------------
# Bodies
# --------------------------------------------------------------------------------------
def run_asgi(app, method, path, headers, chunks):
    """Call the app directly: ``chunks`` the body's pieces (each a receive()); returns the
    status, the answer's JSON and how many times the app asked for the body."""
    calls = 0
    out = {"status": None, "body": b""}

    async def receive():
        nonlocal calls
        calls += 1
        if calls <= len(chunks):
            return {"type": "http.request", "body": chunks[calls - 1], "more_body": calls < len(chunks)}
        return {"type": "http.disconnect"}

    async def send_(message):
        if message["type"] == "http.response.start":
            out["status"] = message["status"]
        elif message["type"] == "http.response.body":
            out["body"] += message.get("body", b"")

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
             "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
             "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 8000)}
    asyncio.run(app(scope, receive, send_))
    return out["status"], (json.loads(out["body"]) if out["body"] else None), calls


def test_a_body_announced_too_long_is_refused_before_it_is_read(app, live):
    c, a = live
    n = len(app.state.server.store)
    t = time.monotonic()
    r = send(c, "POST", "/api/games", b'{"game": "gin"}', {**GOOD, "Content-Length": "200000000"})
    assert r.status_code == 413, r.text
    assert str(LIMIT) in error_of(r)
    assert time.monotonic() - t < 2
    status, answer, calls = run_asgi(app, "POST", "/api/games",
                                     {"Host": "127.0.0.1:8000", **GOOD, "Content-Length": "200000000"},
                                     [b'{"game": "gin"}'])
    assert status == 413 and str(LIMIT) in answer["error"]
    assert calls == 0, f"the app read the body ({calls} receive calls) before refusing it"
    assert len(app.state.server.store) == n


def test_a_streamed_body_is_counted_while_it_is_read(app, live):
    c, a = live
    gid = a["id"]
    n = len(app.state.server.store)
    before = send(c, "GET", f"/api/games/{gid}").json()

    def chunks():
        yield b'{"game": "gin", "pad": "'
        for _ in range(100):
            yield b"x" * 1024
        yield b'"}'

    r = c.post("/api/games", content=chunks(), headers=GOOD)
    assert "content-length" not in {k.lower() for k in r.request.headers}
    assert r.status_code == 413, r.text
    assert str(LIMIT) in error_of(r)
    # straight to the app: a chunked body of 100 KiB in 1 KiB pieces, refused once past the limit
    pieces = [b'{"command": "' + b"x" * 1010] + [b"x" * 1024] * 100 + [b'"}']
    status, answer, calls = run_asgi(app, "POST", f"/api/games/{gid}/move",
                                     {"Host": "127.0.0.1:8000", **GOOD, "Transfer-Encoding": "chunked"}, pieces)
    assert status == 413 and str(LIMIT) in answer["error"], (status, answer)
    assert calls <= LIMIT // 1024 + 3, f"the app read {calls} pieces of 1 KiB before refusing"
    assert len(app.state.server.store) == n
    assert send(c, "GET", f"/api/games/{gid}").json() == before


@pytest.mark.parametrize("raw, status", [
    ("[" * 5000 + "]" * 5000, 400),
    ('{"game": ' + "[" * 5000 + "]" * 5000 + "}", 400),
    ('{"game": "gin", "seed": ' + "[" * 100 + "]" * 100 + "}", 400),
    ('{"game": "gin", "seed": ' + "{\"a\": " * 40 + "1" + "}" * 40 + "}", 400),
    ('{"game": "gin", "seed": NaN}', 400),
    ('{"game": "gin", "seed": Infinity}', 400),
    ('{"game": "gin", "seed": -Infinity}', 400),
    ('{"game": "gin", "seed": 1' + "0" * 20 + "}", 400),  # 21 digits
    ('{"game": "gin", "seed": 5.0}', 422),
    ('{"game": "gin", "seed": 5e3}', 422),
    ('{"game": "gin", "players": 2.0}', 422),
])
def test_bodies_the_parser_must_not_trust(app, raw, status):
    c = bare_client(app)
    r = send(c, "POST", "/api/games", raw.encode(), GOOD)
    assert r.status_code == status, (raw[:60], r.status_code, r.text[:300])
    a = r.json()
    assert isinstance(a["error"], str) and a.get("status") == status, a
    assert len(app.state.server.store) == 0


@pytest.mark.parametrize("digits", [25, 4301, 5000])
def test_a_huge_number_is_refused_with_a_message_of_ours(app, digits):
    c = bare_client(app)
    for raw in ('{"game": "gin", "seed": ' + "7" * digits + "}", '{"game": "gin", "seed": "' + "7" * digits + '"}'):
        r = send(c, "POST", "/api/games", raw.encode(), GOOD)
        assert 400 <= r.status_code < 500, (digits, r.text[:300])
        msg = error_of(r)
        assert "int_max_str_digits" not in msg and "4300" not in msg and "Exceeds the limit" not in msg, msg
        assert len(msg) < 1000, msg[:200]  # not the number written back in full
    assert len(app.state.server.store) == 0


@pytest.mark.parametrize("command", ["²", "٣", "³", "x ٣", "١", "𝟑", "Ⅲ"])
def test_a_move_command_of_non_ascii_digits_is_refused(app, live, command):
    c, a = live
    gid = a["id"]
    before = send(c, "GET", f"/api/games/{gid}").json()
    for body in ({"command": command, "step": a["step"]}, {"command": command}):
        r = send(c, "POST", f"/api/games/{gid}/move", body, GOOD)
        assert 400 <= r.status_code < 500, (command, r.status_code, r.text)
        error_of(r)
    assert send(c, "GET", f"/api/games/{gid}").json() == before


@pytest.fixture(scope="module")
def records_file(tmp_path_factory):
    t = run_tournament(["expert", "simple"], game="gin", games=4, seed=1, show_progress=False, record=True,
                       options={"target": 30})
    recs = t.pairings[0].records
    assert len(recs) >= 4
    path = tmp_path_factory.mktemp("records") / "games.jsonl"
    records.write_records(path, recs)
    return path


@pytest.mark.parametrize("rid", ["%C2%B2", "%D9%A3", "٣", "²", "３", "+3", "-0", "3.0", "0x3", " 3", "%203",
                                 "3%00", "3%0A", "3%0D", "1" * 10, "%EF%BC%93"])
def test_record_ids_are_ascii_digits_only(records_file, rid):
    c = bare_client(make_app(records=[records_file]))
    assert c.get("/api/records/3?step=0").status_code == 200  # record 3 is there
    for path in (f"/api/records/{rid}", f"/api/records/{rid}?step=0", f"/api/records/{rid}/why?step=0"):
        r = c.get(path)
        assert r.status_code == 404, (path, r.status_code, r.text[:200])
        assert "view" not in r.json() and "rows" not in r.json()
        error_of(r)


@pytest.mark.parametrize("value", ["%C2%B2", "%D9%A3", "٣", "²", "３", "+1", "1.0", "-1", "1e1", "0x1", " 1",
                                   "1" * 10, "", "0%0A", "1%0A"])
def test_integer_query_parameters_are_ascii_digits_only(records_file, value):
    c = bare_client(make_app(records=[records_file]))
    for path in (f"/api/records/0?step={value}", f"/api/records/0/why?step={value}",
                 f"/api/records?offset={value}", f"/api/records?limit={value}"):
        r = c.get(path)
        assert r.status_code == 422, (path, r.status_code, r.text[:200])
        error_of(r)


# --------------------------------------------------------------------------------------
# The store's share per client
# --------------------------------------------------------------------------------------
def new_game(c) -> str:
    r = c.post("/api/games", json={"game": "gin"})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def alive(c, gid) -> bool:
    return c.get(f"/api/games/{gid}").status_code == 200


@pytest.mark.parametrize("per_client", [2, None])  # None: the default, max(1, 8 // 4) = 2
def test_a_burst_from_one_client_never_evicts_another_clients_game(per_client):
    kw = {"per_client": per_client} if per_client else {}
    app = make_app(max_games=8, **kw)
    a, b = page_client(app, ("10.0.0.1", 123)), page_client(app, ("10.0.0.2", 123))
    mine = new_game(b)
    burst = [new_game(a) for _ in range(20)]
    assert alive(b, mine), "another client's burst evicted this client's game"
    kept = [g for g in burst if alive(a, g)]
    assert kept == burst[-2:], f"a client keeps its 2 newest games, kept {len(kept)}"
    assert len(app.state.server.store) == 3


def test_a_full_store_evicts_from_the_client_holding_most():
    app = make_app(max_games=4, per_client=3)
    a, b, c, d = (page_client(app, (f"10.0.0.{i}", 123)) for i in range(1, 5))
    gb, gc = new_game(b), new_game(c)
    ga = [new_game(a) for _ in range(3)]  # the store holds 5 > 4: a's oldest goes
    assert alive(b, gb) and alive(c, gc)
    assert [alive(a, g) for g in ga] == [False, True, True]
    gd = new_game(d)  # full again: a holds most
    assert alive(b, gb) and alive(c, gc) and alive(d, gd)
    assert [alive(a, g) for g in ga] == [False, False, True]
    assert len(app.state.server.store) == 4


def test_a_game_closed_to_make_room_answers_410_saying_so():
    """A game the store dropped for a newer one answers 410 (gone, and why) on every route of
    a game, where an id never started answers 404; the client's page tells the two apart."""
    app = make_app(max_games=4, per_client=2)
    a = page_client(app, ("10.0.0.1", 123))
    first, *_ = [new_game(a) for _ in range(3)]
    for method, path in (("GET", ""), ("POST", "/move"), ("DELETE", "")):
        kw = {"json": {"action": 0, "step": 0}} if method == "POST" else {"json": {}} if method == "DELETE" else {}
        r = a.request(method, f"/api/games/{first}{path}", **kw)
        assert r.status_code == 410, (method, path, r.status_code, r.text)
        assert "closed to make room" in r.json()["error"] and "2 per player" in r.json()["error"]
    never = "0123456789abcdef"
    assert a.get(f"/api/games/{never}").status_code == 404
