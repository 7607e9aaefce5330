"""rummyrl/batch.py: what the two engines share, and that they share it there rather than
in copies (no run of six identical lines in both gin.py and rummy.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rummyrl import batch, gin, rummy
from rummyrl.cards import NUM_CARDS

ROOT = Path(__file__).resolve().parents[2]
ENGINES = {"gin": gin, "rummy": rummy}


def _windows(path: Path, width: int) -> dict[tuple[str, ...], int]:
    """Every run of ``width`` non-blank lines, white space removed -> its first line number."""
    lines = [(i, "".join(text.split())) for i, text in enumerate(path.read_text().splitlines(), 1)]
    lines = [(i, t) for i, t in lines if t]
    return {tuple(t for _, t in lines[j:j + width]): lines[j][0] for j in range(len(lines) - width + 1)}


def test_the_engines_share_no_six_identical_lines():
    """What both engines need goes into rummyrl/batch.py, parameterised, not into twins."""
    g, r = _windows(ROOT / "rummyrl" / "gin.py", 6), _windows(ROOT / "rummyrl" / "rummy.py", 6)
    shared = sorted((g[w], r[w]) for w in set(g) & set(r))
    assert not shared, f"gin.py and rummy.py share six-line runs at (gin line, rummy line) {shared}"


@pytest.mark.parametrize("P", [2, 4, 6])
def test_deck_schedule_shapes(P):
    deck = np.arange(NUM_CARDS)
    sched, dealers = batch.deck_schedule(3, P, None, None)
    assert sched.shape == (3, 0, NUM_CARDS) and dealers.shape == (3, 0)
    sched, dealers = batch.deck_schedule(3, P, deck, P - 1)
    assert sched.shape == (3, 1, NUM_CARDS) and sched.dtype == np.int8 and (dealers == P - 1).all()
    two = np.stack([np.stack([deck, deck[::-1]])] * 3)
    sched, dealers = batch.deck_schedule(3, P, two, [[0], [1], [-1]])
    assert sched.shape == (3, 2, NUM_CARDS) and dealers.tolist() == [[0, -1], [1, -1], [-1, -1]]
    with pytest.raises(ValueError, match=rf"dealers must be seats 0..{P - 1}"):
        batch.deck_schedule(3, P, deck, P)
    with pytest.raises(ValueError, match=r"\(B, S, 52\) with B = 3"):
        batch.deck_schedule(3, P, np.stack([deck] * 2), None, "S")


def test_lane_rows_and_game_index():
    assert batch.lane_rows([2, 0], 3).tolist() == [2, 0]
    assert batch.lane_rows(np.array([], np.int64), 3).size == 0
    assert batch.lane_rows([], 3).dtype == np.int64
    for rows in (np.ones(3, bool), [3], [-1], [[0]], ["0"]):
        with pytest.raises(ValueError, match="rows must"):
            batch.lane_rows(rows, 3)
    assert batch.game_index(np.int64(2), 3) == 2
    for b in (3, -1, True, 1.0, "1"):
        with pytest.raises(ValueError, match=r"an int in 0..2"):
            batch.game_index(b, 3)


@pytest.mark.parametrize("name", ENGINES)
def test_reset_done_counts_the_game_up_in_the_rows_given(name):
    eng = ENGINES[name]
    s = eng.init(3, seed=4)
    again = eng.init(3, seed=4)
    assert eng.reset_done(s).size == 0  # nothing is over
    assert eng.reset_done(s, [1]).tolist() == [1]
    assert s.game_no.tolist() == [0, 1, 0]
    assert (s.deck[[0, 2]] == again.deck[[0, 2]]).all() and not (s.deck[1] == again.deck[1]).all()


@pytest.mark.parametrize("name", ENGINES)
def test_configs_from_dict_name_unknown_and_odd_keys(name):
    cls = gin.GinConfig if name == "gin" else rummy.RummyConfig
    assert cls.from_dict({"target": 7}) == cls(target=7)
    with pytest.raises(ValueError, match=rf"{cls.__name__}: unknown config key\(s\) \['nosuch', 3\]; known keys: "):
        cls.from_dict({"nosuch": 1, 3: 2, "target": 7})
    with pytest.raises(TypeError, match=rf"{cls.game_name} options must be a mapping"):
        cls.from_dict(["target"])


@pytest.mark.parametrize("name", ENGINES)
def test_init_refuses_a_config_of_the_other_game(name):
    eng, other = ENGINES[name], (rummy.RummyConfig() if name == "gin" else gin.GinConfig())
    with pytest.raises(ValueError, match="config must be a"):
        eng.init(2, config=other)
