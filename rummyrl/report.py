"""A tournament's report: the terminal table, ``results.json`` and the ``results.png`` chart."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from rummyrl.stats import Z95
from rummyrl.tournament import Tournament


def format_table(t: Tournament) -> str:
    lines = [f"{t.game} — {t.unit}s, {'duplicate deals' if t.settings['duplicate'] else 'random deals'}",
             "",
             "| A | B | games | A wins | win rate A [95% CI] | draws | pts/hand A | pts/hand B | pts/game A | pts/game B |",
             "| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in t.pairings:
        lo, hi = r.interval
        lines.append(
            f"| {r.a} | {r.b} | {r.games} | {r.wins_a} | {r.win_rate:.1%} [{lo:.1%}, {hi:.1%}] | {r.draws} | "
            f"{r.points_hand[r.a]:.2f} | {r.points_hand[r.b]:.2f} | {r.points_game[r.a]:.1f} | {r.points_game[r.b]:.1f} |"
        )
    lines += ["", "| agent | hands won by | " + " | ".join(_end_columns(t)) + " |",
              "| --- | --- | " + " | ".join("---:" for _ in _end_columns(t)) + " |"]
    for r in t.pairings:
        for side in (r.a, r.b):
            counts = r.hand_ends[side]
            lines.append(f"| {side} | vs {r.b if side == r.a else r.a} | "
                         + " | ".join(str(counts.get(c, 0)) for c in _end_columns(t)) + " |")
    lines += ["", "| agent | rating (Elo scale) | ± s.e. |", "| --- | ---: | ---: |"]
    for s, v in sorted(t.ratings.items(), key=lambda kv: -kv[1]["elo"]):
        lines.append(f"| {s} | {v['elo']:+.0f} | {v['se']:.0f} |")
    return "\n".join(lines)


def _end_columns(t: Tournament) -> list[str]:
    cols = []
    for r in t.pairings:
        for counts in r.hand_ends.values():
            cols += [c for c in counts if c not in cols]
    return cols


def save_chart(t: Tournament, path: Path) -> None:
    """The tournament's chart: win rates by pairing and ratings with their intervals."""
    from matplotlib.figure import Figure  # here: matplotlib takes a second to import, and only a chart needs it

    k = len(t.agents)
    rate = np.full((k, k), np.nan)
    for r in t.pairings:
        i, j = t.agents.index(r.a), t.agents.index(r.b)
        rate[i, j] = r.win_rate
        rate[j, i] = r.wins_b / r.games / (t.settings["players"] - 1) if r.games else np.nan
    fig = Figure(figsize=(11, 4.5))
    ax1, ax2 = fig.subplots(1, 2)
    im = ax1.imshow(rate, vmin=0, vmax=1, cmap="RdYlGn")
    ax1.set_xticks(range(k), t.agents, rotation=30, ha="right")
    ax1.set_yticks(range(k), t.agents)
    for i in range(k):
        for j in range(k):
            if not np.isnan(rate[i, j]):
                ax1.text(j, i, f"{rate[i, j]:.0%}", ha="center", va="center", fontsize=9)
    ax1.set_title("win rate of row agent vs column agent" + ("" if t.settings["players"] == 2 else "\n(per seat)"))
    fig.colorbar(im, ax=ax1, fraction=0.046)
    order = sorted(t.agents, key=lambda s: t.ratings[s]["elo"])
    ax2.barh(range(k), [t.ratings[s]["elo"] for s in order], xerr=[Z95 * t.ratings[s]["se"] for s in order],
             color="tab:blue", capsize=4)
    ax2.set_yticks(range(k), order)
    ax2.set_xlabel("Bradley-Terry rating (Elo scale), 95% interval")
    ax2.axvline(0, color="grey", lw=0.8)
    fig.suptitle(f"{t.game}: {t.settings['games_per_pairing']} {t.unit}s per pairing")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def write_outputs(t: Tournament, out: Path, about: dict | None = None) -> tuple[Path, Path]:
    """``results.json`` (with ``about``, if given, beside the results) and ``results.png``; the
    JSON is written whole or not at all, also when the process is killed while writing."""
    out.mkdir(parents=True, exist_ok=True)
    jpath, ppath = out / "results.json", out / "results.png"
    tmp = jpath.with_name(jpath.name + ".tmp")
    tmp.write_text(json.dumps({**t.to_dict(), **(about or {})}, indent=2))
    tmp.replace(jpath)
    save_chart(t, ppath)
    return jpath, ppath
