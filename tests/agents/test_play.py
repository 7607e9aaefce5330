"""agents/play.py: the terminal game against an agent.

The real command is driven through a pseudo-terminal (pexpect) for a whole Gin Rummy hand
and a whole Rummy round: it reads the prompts, asks ``?`` for the legal moves and plays
them by command or by number, and checks refusals and the hand-end summary. Scripted
deals, played in-process, check exact scores and the reasons given for refused moves.
"""

from __future__ import annotations

import io
import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from rummyrl.agents import play
from rummyrl.cards import parse_card, parse_cards

ROOT = Path(__file__).resolve().parents[2]
PROMPT = r"\((upcard [^)]*|draw|discard|play)\)[^\n]*\? moves > "
MOVE_LINE = re.compile(r"^\s*(\d+)\s{2}(\S+(?: \S+)*?)\s{2,}(.+?)\s*$")


# --------------------------------------------------------------------------------------
# Through a pseudo-terminal
# --------------------------------------------------------------------------------------
def spawn(*args):
    pexpect = pytest.importorskip("pexpect")
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "PYTHONUNBUFFERED": "1"}
    child = pexpect.spawn(sys.executable, ["-m", "rummyrl.agents.play", *args], cwd=str(ROOT), env=env,
                          encoding="utf-8", timeout=120, dimensions=(200, 200))
    return child, pexpect


def prompt_kind(child) -> str:
    return child.match.group(1).split()[0]


def legal_moves(child) -> list[tuple[int, str, str]]:
    """Send ``?`` and read the numbered list up to the next prompt."""
    child.sendline("?")
    child.expect(PROMPT)
    moves = []
    for line in child.before.splitlines():
        m = MOVE_LINE.match(line)
        if m:
            moves.append((int(m.group(1)), m.group(2), m.group(3)))
    assert moves, f"no legal moves listed:\n{child.before}"
    assert [n for n, _, _ in moves] == list(range(1, len(moves) + 1))
    return moves


@pytest.mark.slow
def test_gin_hand_through_a_terminal():
    child, pexpect = spawn("--game", "gin", "--opponent", "simple", "--seed", "7")
    child.expect(r"Seed 7")
    child.expect(r"Hand 1 · dealer: (you|simple)")
    second_dealer = "simple" if child.match.group(1) == "you" else "you"
    child.expect(PROMPT)
    assert "you: " in child.before and "deadwood" in child.before and "stock: 31 cards" in child.before

    # a bad card and an unknown command are refused with the reason; the prompt repeats
    child.sendline("x Zz")
    child.expect(r"refused: not a card: 'Zz'")
    child.expect(PROMPT)
    child.sendline("frobnicate")
    child.expect(r"refused: unknown command 'frobnicate'")
    child.expect(PROMPT)
    by_number = by_command = 0
    for _ in range(200):
        kind = prompt_kind(child)
        moves = legal_moves(child)
        commands = [c for _, c, _ in moves]
        if kind == "upcard":
            assert commands == ["t", "p"]
            child.sendline("p")
            child.expect(r"> you pass on the upcard")
            by_command += 1
        elif kind == "draw":
            assert "d" in commands and all(c in ("d", "t") for c in commands)
            # a discard before the draw is refused
            child.sendline("x " + "As")
            child.expect(r"refused: draw first")
            child.expect(PROMPT)
            n = commands.index("d") + 1
            child.sendline(str(n))
            child.expect(r"> you draw (\S+) from the stock")
            by_number += 1
        else:
            knocks = [(n, c) for n, c, _ in moves if c.startswith("k ")]
            if knocks:
                n, c = knocks[0]
                child.sendline(c)
                child.expect(r"> you (knock|go gin), discarding")
                by_command += 1
            else:
                # the discard that leaves the lowest deadwood, picked by its number
                dws = [(int(re.search(r"deadwood (\d+)", t).group(1)), n, c) for n, c, t in moves if c.startswith("x ")]
                assert len(dws) == len(moves) == 11, moves  # drew from the stock: any card may go
                _, n, c = min(dws)
                child.sendline(str(n))
                card = c.split()[1]
                child.expect(rf"> you discard {card[0]}")
                by_number += 1
        i = child.expect([PROMPT, r"Hand 1 over"])
        if i == 1:
            break
    else:
        pytest.fail("the hand did not end in 200 moves")
    assert by_number and by_command
    child.expect(r"score: you (\d+) \(\d+ hands? won\) · simple (\d+) \(\d+ hands? won\) · target 100")
    summary = child.before
    you_score, opp_score = int(child.match.group(1)), int(child.match.group(2))
    lines = summary.splitlines()
    verdict = lines[1] if len(lines) > 1 else ""
    assert re.search(r"^  you\s+.*deadwood \d+", summary, re.M), summary
    assert re.search(r"^  simple\s+.*deadwood \d+", summary, re.M), summary
    # both hands are shown whole: 10 cards each after the hand (the knocker after its discard)
    for name in ("you", "simple"):
        row = next(ln for ln in lines if ln.startswith(f"  {name} "))
        cards = re.findall(r"[A2-9TJQK][♠♥♦♣]", row)
        assert len(cards) == 10, row
    m = re.search(r"→ (you|simple) (?:undercuts? and )?scores? (\d+)", verdict)
    if m:
        pts = int(m.group(2))
        assert (you_score, opp_score) == ((pts, 0) if m.group(1) == "you" else (0, pts)), summary
    else:
        assert "nobody scores" in verdict and you_score == opp_score == 0, summary
    child.expect(rf"Hand 2 · dealer: {second_dealer}")  # the deal alternates (G-3)
    child.expect(PROMPT)
    child.sendline("q")
    child.expect("you quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


@pytest.mark.slow
def test_end_of_input_ends_the_game_cleanly():
    child, pexpect = spawn("--game", "gin", "--opponent", "random", "--seed", "1", "--ascii")
    child.expect(PROMPT)
    assert child.before.isascii() and re.search(r"you: .*[A2-9TJQK][shdc]\b.*deadwood \d+", child.before)
    child.sendeof()
    child.expect("end of input")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


@pytest.mark.slow
def test_rummy_round_through_a_terminal():
    child, pexpect = spawn("--game", "rummy", "--players", "2", "--opponent", "simple", "--seed", "5")
    child.expect(r"Round 1 · dealer: (you|simple)")
    second_dealer = "simple" if child.match.group(1) == "you" else "you"
    child.expect(PROMPT)
    assert "table: no melds yet" in child.before and "others: simple 7 cards" in child.before
    melds_seen = 0
    for _ in range(300):
        kind = prompt_kind(child)
        moves = legal_moves(child)
        commands = [c for _, c, _ in moves]
        if kind == "draw":
            child.sendline("d" if "d" in commands else "t")
            child.expect(r"you (draw|take) ")
        else:
            pick = next((c for c in commands if c[0] in "ml"), None)
            if pick is None:  # discard the highest card by number
                xs = [(n, c) for n, c, _ in moves if c.startswith("x ")]
                n, pick = max(xs, key=lambda nc: ("A23456789TJQK".index(nc[1][2]), nc[0]))
                child.sendline(str(n))
            else:
                child.sendline(pick)
            if pick.startswith("m "):
                melds_seen += 1
                child.expect(r"> you meld \[.*\] \(table meld #(\d+)\)")
            elif pick.startswith("l "):
                child.expect(r"> you lay off \S+ onto meld #" + pick.split()[2])
            else:
                child.expect(r"> you discard")
        i = child.expect([PROMPT, r"Round 1 over"])
        if i == 1:
            break
    else:
        pytest.fail("the round did not end in 300 moves")
    child.expect(r"score: you (\d+) · simple (\d+) · target 200")
    summary = child.before
    assert re.search(r"^  you\s+.*value \d+", summary, re.M) and re.search(r"^  simple\s+.*value \d+", summary, re.M)
    assert "table:" in summary
    child.expect(rf"Round 2 · dealer: {second_dealer}")  # the deal moves one seat clockwise
    child.expect(PROMPT)
    child.sendline("q")
    child.expect("you quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


# --------------------------------------------------------------------------------------
# In-process, on scripted deals
# --------------------------------------------------------------------------------------
def run_session(session, lines: list[str]) -> str:
    out = io.StringIO()
    assert play.play(session, io.StringIO("".join(line + "\n" for line in lines)), out) == 0
    return out.getvalue()


def gin_deck(non_dealer: str, dealer: str, upcard: str) -> np.ndarray:
    head = parse_cards(non_dealer) + parse_cards(dealer) + parse_cards(upcard)
    return np.array(head + [c for c in range(52) if c not in head], np.int64)


def test_gin_knock_scripted_refusals_and_exact_score():
    # you (seat 0, non-dealer):  A♠ 2♠ 3♠ | 4♥ 5♥ 6♥ | 7♦ 8♦ 9♦ | K♣      upcard 2♣
    # simple (dealer):           K♠ Q♥ J♦ T♠ 9♥ 8♣ 7♠ 6♣ 5♦ 4♠  (no meld)
    deck = gin_deck("As 2s 3s 4h 5h 6h 7d 8d 9d Kc", "Ks Qh Jd Ts 9h 8c 7s 6c 5d 4s", "2c")
    session = play.make_session("gin", "simple", seat=0, seed=0, options={"target": 50}, decks=deck, dealers=1)
    out = run_session(session, ["p 2c", "d", "x Kc", "t", "t", "x 2c", "k 9d", "k Zz", "k Qs", "k Kc"])
    assert "refused: 'p' takes nothing after it" in out
    assert "refused: the upcard 2♣ is on offer: take it (t) or pass (p) first (G-2)" in out
    assert "refused: first take the upcard 2♣ (t) or pass (p) (G-2)" in out
    assert "refused: you have drawn already: discard (x <card>) or knock (k <card>)" in out
    assert "refused: you took 2♣ from the discard pile this turn: you may not discard it in the same turn (C-4)" in out
    # without the 9♦, 7♦ 8♦ melds no more: 7 + 8 + 10 + 2 = 27 deadwood
    assert "refused: you cannot knock discarding 9♦: your deadwood would be 27, the knock limit is 10 (G-6)" in out
    assert "refused: not a card: 'Zz'" in out
    assert "refused: you do not hold Q♠" in out
    # G-9: 4♠ is laid off on A♠ 2♠ 3♠; G-11: 75 - 2 = 73
    assert "you knocked with 2; simple has 75 after laying off 4♠ → you score 73" in out
    assert re.search(r"^  you\s+\[A♠ 2♠ 3♠\] \[4♥ 5♥ 6♥\] \[7♦ 8♦ 9♦\] · 2♣   deadwood 2 \(knocker\)$", out, re.M)
    assert re.search(r"^  simple\s+· .*  \+ laid off 4♠   deadwood 75$", out, re.M)
    assert "score: you 73 (1 hand won) · simple 0 (0 hands won) · target 50" in out
    # G-16..G-18: shut out, so 73 doubled, + 100 game bonus + 25 for the hand won
    assert "you win 271 to 0 (margin 271, G-19)" in out
    assert "you: hand points 73, shutout doubling +73 (G-18), game bonus +100 (G-16), box bonus +25" in out


def test_gin_numbers_pick_from_the_listed_moves():
    deck = gin_deck("As 2s 3s 4h 5h 6h 7d 8d 9d Kc", "Ks Qh Jd Ts 9h 8c 7s 6c 5d 4s", "2c")
    session = play.make_session("gin", "simple", seat=0, seed=0, options={"target": 50}, decks=deck, dealers=1)
    out = run_session(session, ["?", "3", "1", "?"])
    listing = out.split("legal moves")[1]
    assert "1  t  take the upcard 2♣" in listing and "2  p  pass the upcard 2♣" in listing
    assert "refused: there is no move 3: choose 1..2 (? lists them)" in out
    assert "> you take 2♣" in out
    after = out.split("legal moves")[2]
    # 11 cards: 10 discards (not the 2♣ just taken, C-4) and the knock with K♣
    assert len(re.findall(r"^\s+\d+\s+x ", after, re.M)) == 10
    assert re.search(r"^\s+\d+\s+k Kc\s+knock with 2, discarding K♣$", after, re.M)
    assert "x 2c" not in after


def rummy_deck(P: int, dealer: int, hands: dict[int, str], upcard: str, stock: str = "") -> np.ndarray:
    order = []
    for i in range(P):
        order += parse_cards(hands[(dealer + 1 + i) % P])
    order += [parse_card(upcard)] + parse_cards(stock)
    return np.array(order + [c for c in range(52) if c not in order], np.int64)


def test_rummy_melds_layoffs_going_out_scripted():
    # you (seat 0) start; simple holds 39 points of cards that make no meld
    deck = rummy_deck(2, 1, {0: "Qc Qs Qh 5h 6h 7h 2d", 1: "As 2s 3c 4d 9s Tc Kd"}, "9c", stock="8h")
    session = play.make_session("rummy", "simple", seat=0, players=2, seed=0, options={"target": 30},
                                decks=deck, dealers=1)
    out = run_session(session, ["m Qc Qs Qh", "d", "l 8h 0", "m Qc Qs Jh", "m 5h 6h 2d", "m Qc Qs", "m Qc Qs Qh",
                                "l 8h 5", "l 8h 0", "m 5h 6h 7h", "l 2d 0", "?", "l 8h 1", "x 2d"])
    assert "refused: draw first: d (stock) or t (take the top discard) (R-3)" in out
    assert "> you draw 8♥ from the stock" in out
    assert "refused: there are no melds on the table yet" in out
    assert "refused: you do not hold J♥" in out
    assert "refused: 5♥ 6♥ 2♦ is not a meld" in out
    assert "refused: 'm' takes the cards of the meld, at least three" in out
    assert "> you meld [Q♠ Q♥ Q♣] (table meld #0)" in out
    assert "refused: there is no table meld #5: the table has #0..#0" in out
    assert "refused: 8♥ does not fit meld #0: it takes Q♦ (C-1, C-3)" in out
    assert "> you meld [5♥ 6♥ 7♥] (table meld #1)" in out
    assert re.search(r"^\s+\d+\s+l 8h 1\s+lay off 8♥ onto meld #1$", out, re.M)
    assert "> you lay off 8♥ onto meld #1" in out
    # out by discarding the last card; simple's 7 cards are worth 39
    assert "you go out and score 39 (the cards left in the other hands, R-8)" in out
    assert re.search(r"^  you\s+\(out\)   value 0$", out, re.M)
    assert re.search(r"^  #1 you: \[5♥ 6♥ 7♥\] \+ 8♥ by you$", out, re.M)
    assert "you win with 39 points after 1 round (1 won)" in out


def test_rummy_lay_off_needs_a_meld_of_your_own_and_taken_card_stays():
    deck = rummy_deck(2, 1, {0: "Qc Qs Qh 5h 6h 2d 3c", 1: "7s 7h 7d As 9s Tc Kd"}, "9c", stock="4c 7c")
    session = play.make_session("rummy", "simple", seat=0, players=2, seed=0, decks=deck, dealers=1)
    out = run_session(session, ["t", "x 9c", "x 3c"])
    assert "refused: you took 9♣ from the discard pile this turn: you may not discard it in the same turn " \
           "unless it is your last card (R-5)" in out
    assert "> you discard 3♣" in out


def test_bad_arguments_are_errors_that_name_them(capsys):
    assert play.main(["--game", "gin", "--players", "3"], io.StringIO(""), io.StringIO()) == 2
    assert "Gin Rummy is played by 2 players, not 3" in capsys.readouterr().err
    assert play.main(["--game", "gin", "--option", "knock_limt=5"], io.StringIO(""), io.StringIO()) == 2
    assert "unknown config key 'knock_limt'" in capsys.readouterr().err
    assert play.main(["--game", "rummy", "--seat", "4"], io.StringIO(""), io.StringIO()) == 2
    assert "--seat must be in 0..3 for 4 players, got 4" in capsys.readouterr().err
    assert play.main(["--opponent", "nobody"], io.StringIO(""), io.StringIO()) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err
