"""Bad records on the web table: a records file of real records and of records each broken in
one field (and lines that are no record at all). The table starts, lists every broken line
with its line number and a reason naming the field, replays the good ones, refuses the broken
ones with 422, and never answers 500. A spec written in a record (a checkpoint path, a search
with a huge budget) is never built to explain a move; a spec given on the command line is."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

from web_support import ORIGIN, TestClient  # noqa: E402  (tests/ is on sys.path)

from rummyrl import records  # noqa: E402
from rummyrl.tournament import run_tournament  # noqa: E402
from rummyrl.web import create_app  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")



def client_of(app) -> TestClient:
    return TestClient(app, base_url=ORIGIN, headers={"Origin": ORIGIN})


@pytest.fixture(scope="module")
def good():
    """Real records: two of Gin, two of Rummy for 3 players (small targets keep them short)."""
    gin = run_tournament(["expert", "simple"], game="gin", games=2, seed=1, show_progress=False, record=True,
                         options={"target": 30}).pairings[0].records[:2]
    rummy = run_tournament(["expert", "simple"], game="rummy", players=3, games=2, seed=1, show_progress=False,
                           record=True, options={"target": 30}).pairings[0].records[:2]
    for rec in gin + rummy:
        records.replay(rec)  # they are good
    return {"gin": gin, "rummy": rummy}


def illegal_first_action(rec) -> list:
    """The record's actions with the first one replaced by an action id in range that the
    rules do not allow there."""
    st = records.replay(rec).state(0)
    bad = int(np.flatnonzero(~st.mask[0])[0])
    return [bad] + rec["deals"][0]["actions"][1:]


def _set(path, value):
    """A change: the field at ``path`` (keys and indexes) set to ``value`` (a function of
    the record, or a value); ``DELETE`` removes it."""
    def change(rec):
        obj = rec
        for k in path[:-1]:
            obj = obj[k]
        v = value(rec) if callable(value) else value
        if v is DELETE:
            del obj[path[-1]]
        else:
            obj[path[-1]] = v
    return change


DELETE = object()


def deck_of(rec, d=0) -> str:
    return rec["deals"][d]["deck"]


# (name, which good record, the change, words one of which the reason must hold)
BROKEN = [
    ("format", "gin", _set(["format"], "rummyrl-game/99"), ("format",)),
    ("game unknown", "gin", _set(["game"], "poker"), ("game",)),
    ("rules unknown key", "gin", _set(["rules", "colour"], "red"), ("rule", "colour")),
    ("rules bad value", "gin", _set(["rules", "target"], -5), ("rule", "target")),
    ("rules bad value (rummy)", "rummy", _set(["rules", "num_players"], 9), ("rule", "num_players", "players")),
    ("players mismatch", "gin", _set(["players"], 3), ("players",)),
    ("seats too few", "rummy", _set(["seats"], lambda r: r["seats"][:2]), ("seats",)),
    ("seats not strings", "gin", _set(["seats"], [1, 2]), ("seats",)),
    ("deck too short", "gin", _set(["deals", 0, "deck"], lambda r: deck_of(r)[:-2]), ("deck",)),
    ("deck repeats a card", "gin", _set(["deals", 0, "deck"], lambda r: deck_of(r)[:2] * 2 + deck_of(r)[4:]),
     ("deck",)),
    ("deck bad card", "rummy", _set(["deals", 0, "deck"], lambda r: "Zz" + deck_of(r)[2:]), ("deck", "card")),
    ("deck not text", "gin", _set(["deals", 0, "deck"], list(range(52))), ("deck",)),
    ("deal without dealer", "gin", _set(["deals", 0, "dealer"], DELETE), ("dealer",)),
    ("dealer out of range", "rummy", _set(["deals", 0, "dealer"], 3), ("dealer",)),
    ("dealer negative", "gin", _set(["deals", 0, "dealer"], -1), ("dealer",)),
    ("action 'x'", "gin", _set(["deals", 0, "actions", 0], "x"), ("action",)),
    ("action null", "gin", _set(["deals", 0, "actions", 0], None), ("action",)),
    ("action out of range", "rummy", _set(["deals", 0, "actions", 0], 10**6), ("action",)),
    ("action true", "gin", _set(["deals", 0, "actions", 0], True), ("action",)),
    ("no deals", "gin", _set(["deals"], []), ("deal",)),
    ("result.winner out of range", "gin", _set(["result", "winner"], 7), ("winner", "result")),
    ("result.totals wrong length", "rummy", _set(["result", "totals"], [1, 2]), ("totals", "result")),
    ("result not an object", "gin", _set(["result"], "won"), ("result",)),
    ("seat_specs wrong length", "gin", _set(["seat_specs"], ["expert"]), ("seat_specs", "seat spec")),
    ("seat_specs not strings", "rummy", _set(["seat_specs"], [1, 2, 3]), ("seat_specs", "seat spec")),
]
#: a record that is well formed but replays wrongly: listed as broken once it has been opened
ILLEGAL = ("illegal action", "gin", _set(["deals", 0, "actions"], illegal_first_action), ("action", "replay"))
#: lines that are no record at all: (name, raw bytes, words)
NOT_RECORDS = [
    ("not JSON", b'{"format": "rummyrl-game/1", ', ("json",)),
    ("not UTF-8", b'{"format": "rummyrl-game/1", "game": "gin\xff\xfe"}', ("utf-8", "utf8")),
    ("a JSON array", b"[1, 2, 3]", ("object",)),
    ("a JSON string", b'"rummyrl-game/1"', ("object",)),
    ("nested too deeply", b"[" * 100_000 + b"]" * 100_000, ("json", "nest", "deep", "object")),
]


@pytest.fixture(scope="module")
def library(good, tmp_path_factory):
    """The records file: good records and broken ones mixed, with a blank line; returns the
    path and, per line number, (name, the record or None, words, good?)."""
    lines: list[bytes] = []
    rows: dict[int, tuple] = {}

    def add(name, rec, raw, words, ok):
        lines.append(raw)
        rows[len(lines)] = (name, rec, words, ok)

    def add_record(name, rec, words=None, ok=True):
        add(name, rec, json.dumps(rec).encode(), words, ok)

    add_record("gin 0", good["gin"][0])
    lines.append(b"")  # a blank line: skipped, but counted in the line numbers
    for k, (name, which, change, words) in enumerate(BROKEN):
        rec = copy.deepcopy(good[which][k % 2])
        change(rec)
        add_record(name, rec, words, ok=False)
        if k == len(BROKEN) // 2:
            add_record("rummy 0", good["rummy"][0])
            for name2, raw, words2 in NOT_RECORDS:
                add(name2, None, raw, words2, False)
    name, which, change, words = ILLEGAL
    rec = copy.deepcopy(good[which][0])
    change(rec)
    add_record(name, rec, words, ok=None)
    add_record("gin 1", good["gin"][1])
    add_record("rummy 1", good["rummy"][1])
    path = tmp_path_factory.mktemp("records") / "mixed.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path, rows


def has_word(text, words) -> bool:
    return isinstance(text, str) and any(w.lower() in text.lower() for w in words)


def listing_of(c) -> list[dict]:
    r = c.get("/api/records?limit=1000")
    assert r.status_code == 200, r.text
    a = r.json()
    assert a["total"] == len(a["records"])
    return a["records"]


def test_the_table_starts_and_lists_every_broken_line_with_its_reason(library):
    path, rows = library
    c = client_of(create_app(["expert"], records=[path]))
    listed = listing_of(c)
    assert len(listed) == len(rows), "every non-blank line is listed, good or broken"
    by_line = {e["line"]: e for e in listed}
    assert sorted(by_line) == sorted(rows), "each entry carries the line number it was read from"
    assert [e["id"] for e in listed] == list(range(len(listed)))
    for line, (name, rec, words, ok) in rows.items():
        e = by_line[line]
        assert path.name in e["source"], (name, e)
        if ok:
            assert e["broken"] is None, (name, e)
            assert e["game"] == rec["game"] and e["players"] == rec["players"], (name, e)
            assert e["deals"] == len(rec["deals"]) and e["actions"] == sum(len(d["actions"]) for d in rec["deals"])
        elif ok is False:
            assert isinstance(e["broken"], str) and e["broken"], (name, e)
            assert has_word(e["broken"], words), f"{name}: the reason {e['broken']!r} names none of {words}"
        else:  # well formed, replays wrongly: broken once opened (if not already when loaded)
            assert e["broken"] is None or has_word(e["broken"], words), (name, e)
    # the page's line of the table counts the good records and the broken ones apart
    cfg = c.get("/api/config").json()
    broken = sum(e["broken"] is not None for e in listed)
    assert 0 < broken < len(listed) and (cfg["records"], cfg["broken_records"]) == (len(listed) - broken, broken)


def test_good_records_replay_and_broken_ones_are_refused(library):
    path, rows = library
    c = client_of(create_app(["expert"], records=[path]))
    ids = {e["line"]: e["id"] for e in listing_of(c)}
    for line, (name, rec, words, ok) in rows.items():
        rid = ids[line]
        r = c.get(f"/api/records/{rid}?step=0")
        if ok:
            assert r.status_code == 200, (name, r.text[:300])
            f0 = r.json()
            steps = f0["steps"]
            assert steps == sum(len(d["actions"]) for d in rec["deals"])
            last = c.get(f"/api/records/{rid}?step={steps}")
            assert last.status_code == 200, (name, last.text[:300])
            assert last.json()["view"]["over"] and last.json()["next"] is None
            assert c.get(f"/api/records/{rid}?step={steps + 1}").status_code == 422
        else:
            assert r.status_code == 422, (name, r.status_code, r.text[:300])
            err = r.json()["error"]
            assert has_word(err, words), f"{name}: {err!r} names none of {words}"
            for path_ in (f"/api/records/{rid}", f"/api/records/{rid}?step=3", f"/api/records/{rid}/why?step=0"):
                r = c.get(path_)
                assert r.status_code == 422 and r.json()["error"], (name, path_, r.status_code, r.text[:200])
    # once opened, the record that replays wrongly is listed as broken too
    by_line = {e["line"]: e for e in listing_of(c)}
    for line, (name, rec, words, ok) in rows.items():
        if ok is None:
            assert has_word(by_line[line]["broken"], words), by_line[line]


def test_the_listing_never_fails(library):
    path, rows = library
    c = client_of(create_app(["expert"], records=[path]))
    n = len(rows)
    seen = []
    for limit in (1, 2, 7, 1000):
        for offset in range(0, n + 2, limit):
            r = c.get(f"/api/records?offset={offset}&limit={limit}")
            assert r.status_code == 200, (offset, limit, r.text[:300])
            a = r.json()
            assert a["total"] == n and a["offset"] == offset
            assert len(a["records"]) == max(0, min(limit, n - offset))
            if limit == 7:
                seen += [e["id"] for e in a["records"]]
    assert seen == list(range(n))
    for bad in ("?offset=-1", "?limit=0", "?limit=1001", "?offset=x", f"?offset={10**12}"):
        r = c.get("/api/records" + bad)
        assert r.status_code == 422 and r.json()["error"], (bad, r.text[:200])
    r = c.get(f"/api/records?offset={n + 50}")
    assert r.status_code in (200, 422) and (r.status_code == 422 or r.json()["records"] == []), r.text[:200]


def test_scan_records_yields_every_line(library, tmp_path):
    path, rows = library
    assert hasattr(records, "scan_records"), "rummyrl.records.scan_records (the contract) is missing"
    got = list(records.scan_records(path))
    assert [g[1] for g in got] == sorted(rows)
    for f, line, rec, error in got:
        assert Path(f).name == path.name
        name, want, words, ok = rows[line]
        if ok or ok is None:  # well formed (the illegal action is found by replaying)
            assert error is None and rec == want, (name, error)
        else:
            assert rec is None and has_word(error, words), (name, error)
    # a folder: its *.jsonl files in order, each line numbered in its own file
    (tmp_path / "b.jsonl").write_bytes(path.read_bytes())
    (tmp_path / "a.jsonl").write_bytes(b"\n\n" + b'{"format": 1}\n')
    (tmp_path / "notes.txt").write_text("not records")
    got = [(Path(f).name, line, error is None) for f, line, _, error in records.scan_records(tmp_path)]
    assert got[0] == ("a.jsonl", 3, False)
    assert got[1:] == [("b.jsonl", line, ok is not False) for line, (_, _, _, ok) in sorted(rows.items())]
    # read_records stops at the first bad line, naming its file and line
    first_bad = min(line for line, row in rows.items() if row[3] is False)
    with pytest.raises(records.RecordError, match=rf"{path.name}:{first_bad}:"):
        records.read_records(path)


def test_a_file_of_broken_records_only_still_starts(tmp_path, good):
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b"\xff\xfe\n[1]\n{}\n")
    c = client_of(create_app(["expert"], records=[path]))
    listed = listing_of(c)
    assert [e["line"] for e in listed] == [1, 2, 3] and all(e["broken"] for e in listed)
    assert c.get("/api/records/0?step=0").status_code == 422


# --------------------------------------------------------------------------------------
# Specs written in records are not built
# --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def spec_records(good, tmp_path_factory):
    """The same Gin record three times: seat 0's spec a search with a huge budget, a
    checkpoint path, and (no seat_specs) a label that is such a search."""
    base = good["gin"][0]
    recs = []
    for specs, seats in ((["search:worlds=100000", "expert"], None), (["runs/x/best.pt", "expert"], None),
                         (None, ["search:worlds=100000", "expert"])):
        rec = copy.deepcopy(base)
        rec["seats"] = seats or ["searcher", "expert"]
        if specs is None:
            rec.pop("seat_specs", None)
            rec.pop("specs", None)
            rec.pop("a", None)
            rec.pop("b", None)
        else:
            rec["seat_specs"] = specs
        recs.append(rec)
    path = tmp_path_factory.mktemp("specs") / "specs.jsonl"
    records.write_records(path, recs)
    return path, recs


def test_why_never_builds_an_agent_a_record_names(spec_records):
    path, recs = spec_records
    c = client_of(create_app(["expert"], records=[path], why_timeout=5.0))
    listed = listing_of(c)
    assert [e["broken"] for e in listed] == [None] * len(recs)
    rp = records.replay(recs[0])
    seat_of = [int(rp.state(i).current[0]) for i in range(rp.steps)]
    step0 = seat_of.index(0)
    step1 = seat_of.index(1)
    for rid, rec in enumerate(recs):
        frame = c.get(f"/api/records/{rid}?step={step0}")
        assert frame.status_code == 200, frame.text[:300]
        r = c.get(f"/api/records/{rid}/why?step={step0}")
        assert r.status_code == 409, (rid, r.status_code, r.text[:300])
        err = r.json()["error"]
        if "seat_specs" not in rec:
            continue  # a record that names no spec: the label is not one; the contract says no more
        assert "--opponent" in err and rec["seat_specs"][0] in err, err
        # the seat the command line's spec plays is explained
        r = c.get(f"/api/records/{rid}/why?step={step1}")
        assert r.status_code == 200, (rid, r.status_code, r.text[:300])
        w = r.json()
        assert w["recorded"] is False and w["rows"] and w["agent"] == "expert", w


def test_a_record_naming_a_command_line_spec_is_explained(good, tmp_path):
    """A spec with options, given on the command line exactly, may explain a record's seat."""
    rec = copy.deepcopy(good["gin"][0])
    rec["seat_specs"] = ["simple", "expert"]
    path = tmp_path / "ok.jsonl"
    records.write_records(path, [rec])
    c = client_of(create_app(["expert", "simple"], records=[path], why_timeout=5.0))
    rp = records.replay(rec)
    for seat in (0, 1):
        step = next(i for i in range(rp.steps) if int(rp.state(i).current[0]) == seat)
        r = c.get(f"/api/records/0/why?step={step}")
        assert r.status_code == 200, (seat, r.text[:300])
        assert r.json()["rows"]
