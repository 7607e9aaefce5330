"""An HTTP fuzz of the web table: random methods, paths built from the real routes with random
segments, random query strings, headers (allowed and foreign hosts, origins, content types)
and bodies (random JSON, deep nesting, huge numbers, random bytes), against an app with one
live game and one loaded record. No answer is a 5xx; every refusal is the API's JSON error;
a refused request changes neither the live game nor the number of games; the app still
answers afterwards."""

from __future__ import annotations

import json
import urllib.parse

import pytest

from web_support import ORIGIN, TestClient  # noqa: E402  (tests/ is on sys.path)

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from rummyrl import records  # noqa: E402
from rummyrl.tournament import run_tournament  # noqa: E402
from rummyrl.web import create_app  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

GID = "{gid}"  # replaced by the live game's id when the request is sent


class Table:
    """The app under fuzz, its live game and its record."""

    def __init__(self, record_file):
        self.app = create_app(["expert", "simple", "random"], records=[record_file], rules={"target": 30})
        self.client = TestClient(self.app, base_url=ORIGIN, follow_redirects=False)
        self.page = TestClient(self.app, base_url=ORIGIN, headers={"Origin": ORIGIN})
        assert self.page.get("/api/records").json()["total"] == 1
        self.gid = None
        self.new_game()

    def new_game(self):
        r = self.page.post("/api/games", json={"game": "gin", "seed": 3})
        assert r.status_code == 201, r.text
        self.gid = r.json()["id"]

    @property
    def games(self) -> int:
        return len(self.app.state.server.store)

    def live(self):
        r = self.page.get(f"/api/games/{self.gid}")
        return r.status_code, r.json()


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    t = run_tournament(["expert", "simple"], game="gin", games=1, seed=1, show_progress=False, record=True,
                       options={"target": 30})
    path = tmp_path_factory.mktemp("records") / "games.jsonl"
    records.write_records(path, t.pairings[0].records[:1])
    return Table(path)


# --------------------------------------------------------------------------------------
# Requests
# --------------------------------------------------------------------------------------
METHODS = ["GET", "GET", "POST", "POST", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]
#: the routes (the writable ones listed more than once, so that more requests reach them)
TEMPLATES = ["/api/games", "/api/games/{}/move", "/api/games/{}/move", "/api/records/{}", "/", "/table.css",
             "/api/config", "/api/games", "/api/games/{}", "/api/games/{}/move",
             "/api/games/{}/hint", "/api/games/{}/record", "/api/records", "/api/records/{}",
             "/api/records/{}/why", "/static/{}", "/api/{}", "/{}", "/api/games/{}/{}", "/api/records/{}/{}"]
SEGMENTS = [GID, GID, GID, "0", "1", "00", "3", "-1", "..", "%2e%2e", "%2E%2E%2F..", "٣", "%C2%B2", "²", "%D9%A3",
            "0123456789abcdef", "0123456789ABCDEF", "app.js", "index.html", "x" * 300, "9" * 40, "", " ", "%00",
            "%0A", "0%0A", "move", "why", "hint", "record", "%25", "%FF%FE", "🂡"]
segment = st.one_of(st.sampled_from(SEGMENTS), st.text(max_size=24).map(lambda s: urllib.parse.quote(s, safe="")))


@st.composite
def paths(draw):
    t = draw(st.sampled_from(TEMPLATES))
    return t.format(*(draw(segment) for _ in range(t.count("{}"))))


QUERY_KEYS = ["step", "offset", "limit", "step", "x", ""]
QUERY_VALUES = ["0", "1", "5", "-1", "٣", "²", "1e3", "0x1", " 1", "99999999999", "", "1.0", "%C2%B2", "0%0A"]
query = st.lists(st.tuples(st.one_of(st.sampled_from(QUERY_KEYS), st.text(max_size=8)),
                           st.one_of(st.sampled_from(QUERY_VALUES), st.text(max_size=12))), max_size=3)

ascii_text = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=40)
CONTENT_TYPES = [None, "application/json", "application/json; charset=utf-8", "APPLICATION/JSON", "text/plain",
                 "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                 "application/json-patch+json", "application/jsonp"]
ORIGINS = [None, ORIGIN, ORIGIN, "https://127.0.0.1:8000", "http://evil.example", "null", "http://localhost:8000",
           "http://127.0.0.1:8000.evil.example"]
REFERERS = [None, None, ORIGIN + "/", "http://evil.example/", ORIGIN, ORIGIN + ".evil.example/"]
HOSTS = [None, None, None, "127.0.0.1:8000", "localhost:8000", "[::1]:8000", "attacker.example", "testserver",
         "127.0.0.1:8000.attacker.example", "192.168.1.5", ""]


@st.composite
def headers(draw):
    if draw(st.integers(0, 9)) < 5:  # half the requests as the page sends them, to reach the routes' own checks
        h = {"Content-Type": draw(st.sampled_from(["application/json", "application/json; charset=utf-8"])),
             "Origin": ORIGIN, "Host": draw(st.sampled_from([None, "127.0.0.1:8000"]))}
        return {k: v for k, v in h.items() if v is not None}
    h = {"Content-Type": draw(st.one_of(st.sampled_from(CONTENT_TYPES), ascii_text)),
         "Origin": draw(st.one_of(st.sampled_from(ORIGINS), ascii_text)),
         "Referer": draw(st.sampled_from(REFERERS)),
         "Host": draw(st.sampled_from(HOSTS)) if draw(st.integers(0, 9)) else draw(ascii_text)}
    return {k: v for k, v in h.items() if v is not None}


FIELDS = ["game", "seed", "command", "action", "step", "players", "seat", "opponent"]
scalar = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(min_value=-10**40, max_value=10**40),
                   st.floats(), st.text(max_size=12),
                   st.sampled_from(["gin", "rummy", "p", "d", "t", "x Kd", "²", "٣", "12345", "1" * 30, ""]))
json_values = st.recursive(scalar, lambda inner: st.one_of(
    st.lists(inner, max_size=4),
    st.dictionaries(st.one_of(st.sampled_from(FIELDS), st.text(max_size=8)), inner, max_size=5)), max_leaves=16)


def dumps(value) -> bytes:
    return json.dumps(value).encode()  # NaN and Infinity as JavaScript writes them


@st.composite
def nested(draw):
    n = draw(st.integers(min_value=1, max_value=3000))
    inner = "[" * n + "]" * n if draw(st.booleans()) else '{"a":' * n + "1" + "}" * n
    return ('{"game": ' + inner + "}").encode() if draw(st.booleans()) else inner.encode()


bodies = st.one_of(
    st.none(),
    json_values.map(dumps),
    st.fixed_dictionaries({}, optional={k: scalar for k in FIELDS}).map(dumps),
    nested(),
    st.binary(max_size=600),
    st.text(max_size=200).map(lambda s: s.encode("utf-8", "surrogatepass")),
    st.integers(min_value=19, max_value=6000).map(lambda n: ('{"seed": ' + "9" * n + "}").encode()),
)


@st.composite
def requests(draw):
    path = draw(paths())
    q = draw(query)
    if q:
        path += "?" + "&".join(f"{urllib.parse.quote(k, safe='%')}={urllib.parse.quote(v, safe='%')}" for k, v in q)
    return draw(st.sampled_from(METHODS)), path, draw(headers()), draw(bodies)


# --------------------------------------------------------------------------------------
# The fuzz
# --------------------------------------------------------------------------------------
def check_answer(method, path, hdrs, r):
    where = (method, path, hdrs, r.status_code, r.text[:300])
    assert r.status_code < 500, where
    if 200 <= r.status_code < 300:
        return
    if r.status_code in (307, 308):  # the router's trailing-slash redirect: to the same host, that path unslashed
        loc = urllib.parse.urlsplit(r.headers["location"])
        asked = urllib.parse.urlsplit(str(r.request.url))
        assert loc.netloc == r.request.headers["host"] and loc.path.rstrip("/") == asked.path.rstrip("/"), where
        return
    assert 400 <= r.status_code < 500, where
    if method == "HEAD":
        return  # no body: the same route as GET answers with one
    assert r.headers.get("content-type", "").startswith("application/json"), where
    a = r.json()
    assert isinstance(a, dict) and isinstance(a.get("error"), str) and a["error"], where


@pytest.mark.slow
def test_random_requests_never_break_the_table(table):
    seen: dict[int, int] = {}

    @settings(max_examples=300, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.function_scoped_fixture])
    @given(requests())
    def one(req):
        method, path, hdrs, body = req
        path = path.replace(GID, table.gid)
        status_before, before = table.live()
        assert status_before == 200
        games = table.games
        r = table.client.request(method, path, headers=hdrs, content=body)
        seen[r.status_code] = seen.get(r.status_code, 0) + 1
        check_answer(method, path, hdrs, r)
        status_after, after = table.live()
        if r.status_code >= 400:
            assert table.games == games, ("a refused request changed the number of games", method, path, hdrs, r.text)
            assert (status_after, after) == (status_before, before), \
                ("a refused request changed the live game", method, path, hdrs, r.text)
        if status_after != 200:  # a request that was served closed it: start another
            table.new_game()

    one()
    assert table.page.get("/api/config").status_code == 200
    assert table.page.get(f"/api/games/{table.gid}").status_code == 200
    assert table.page.get("/api/records/0?step=0").status_code == 200
    # the fuzz reached the routes and both sides of the checks
    assert sum(n for s, n in seen.items() if s < 300) >= 10, seen
    assert sum(n for s, n in seen.items() if s in (400, 403, 404, 405, 413, 422)) >= 100, seen
    assert {400, 403, 404, 405}.issubset(seen), seen


@pytest.mark.slow
@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE"])
def test_well_formed_writes_to_every_route(table, method):
    """Each route with a same-origin JSON write: served where the route takes the method,
    else 405 JSON, never 5xx."""
    for t in TEMPLATES:
        path = t.format(*([table.gid] * t.count("{}"))) if "{}" in t else t
        for body in (b"{}", b'{"command": "p"}', b'{"game": "gin"}', None):
            r = table.client.request(method, path, content=body,
                                     headers={"Content-Type": "application/json", "Origin": ORIGIN})
            check_answer(method, path, {}, r)
            if table.live()[0] != 200:
                table.new_game()


@pytest.mark.slow
def test_every_route_with_every_odd_segment_and_parameter(table):
    """The odd segments and query values, each in every place of every route (GET, and a
    same-origin JSON POST), swept rather than sampled."""
    snapshot = (table.live(), table.games)
    odd = sorted(set(SEGMENTS) - {GID}) + [GID]
    for t in sorted(set(TEMPLATES)):
        if "{}" not in t:
            continue
        n = t.count("{}")
        for seg in odd:
            for k in range(n):  # the odd segment in one place, the live game's id in the others
                path = t.format(*[seg if i == k else GID for i in range(n)]).replace(GID, table.gid)
                for method, body in (("GET", None), ("POST", b'{"command": "?", "step": 0}')):
                    r = table.client.request(method, path, content=body,
                                             headers={"Content-Type": "application/json", "Origin": ORIGIN})
                    check_answer(method, path, {}, r)
                    if r.status_code >= 400 and method == "POST":
                        assert (table.live(), table.games) == snapshot, (method, path, r.text[:200])
                    elif r.status_code < 400:
                        if table.live()[0] != 200:
                            table.new_game()
                        snapshot = (table.live(), table.games)
        assert (table.live(), table.games) == snapshot, t  # the GETs changed nothing either
    for base in ("/api/records/0", "/api/records/0/why", "/api/records", f"/api/games/{table.gid}"):
        for key in ("step", "offset", "limit"):
            for value in QUERY_VALUES:
                path = f"{base}?{key}={urllib.parse.quote(value, safe='%')}"
                r = table.client.get(path)
                check_answer("GET", path, {}, r)
                reads = key == "step" if base.startswith("/api/records/") else base == "/api/records" and key != "step"
                if reads and value not in ("0", "1", "5"):  # a parameter the route reads, not in ASCII digits
                    assert r.status_code == 422, (path, r.status_code, r.text[:200])
