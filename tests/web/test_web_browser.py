"""The web app in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``, which .ci/run installs) plays a Gin Rummy hand by clicks to its end
and replays a recorded Rummy game, saving screenshots on the way (into
``$RUMMYRL_SCREENSHOTS`` when set, else the test's temporary folder). It also checks what
the page says when things go wrong: a setup the server refuses, a seed that is too long,
a broken record, an explanation that took too long, and a server stopped or restarted
under a game in play. Skipped where there is no browser."""

from __future__ import annotations

import os
import re
import shutil
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
uvicorn = pytest.importorskip("uvicorn", reason="the web extra is not installed")
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (the dev extra)")

from selenium.common.exceptions import StaleElementReferenceException, WebDriverException  # noqa: E402
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.select import Select  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from rummyrl import records  # noqa: E402
from rummyrl.tournament import run_tournament  # noqa: E402
from rummyrl.web import create_app  # noqa: E402

BROWSER = next((p for p in (shutil.which("chromium"), "/usr/bin/chromium", shutil.which("chromium-browser"))
                if p and os.path.exists(p)), None)
DRIVER = next((p for p in (shutil.which("chromedriver"), "/usr/bin/chromedriver") if p and os.path.exists(p)), None)
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not (BROWSER and DRIVER), reason="no chromium and chromedriver here "
                                 "(apt-get install chromium chromium-driver)"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning")]

LOST = "The server was lost (stopped or restarted): this game is gone."


class Running:
    """An app served by uvicorn on 127.0.0.1 in a thread; ``stop()`` ends it (its port
    closed, as when the server is stopped)."""

    def __init__(self, app, port: int = 0):
        self.app = app
        config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                timeout_graceful_shutdown=2)
        self.srv = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.srv.run, daemon=True)
        self.thread.start()
        for _ in range(400):
            if self.srv.started or not self.thread.is_alive():
                break
            time.sleep(0.05)
        assert self.srv.started, "the server did not start"
        self.port = self.srv.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"

    def games(self) -> int:
        """How many games the server holds now."""
        return len(self.app.state.server.store)

    def stop(self) -> None:
        self.srv.should_exit = True
        self.thread.join(timeout=10)
        assert not self.thread.is_alive(), "the server did not stop"


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    out = Path(os.environ.get("RUMMYRL_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    out.mkdir(parents=True, exist_ok=True)
    return out


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    """A folder holding recorded Rummy games (with the agents' reasons)."""
    d = tmp_path_factory.mktemp("records")
    t = run_tournament(["expert", "simple"], game="rummy", players=3, games=3, seed=2, show_progress=False,
                       record=True, record_reasons=True)
    records.write_records(d / "games.jsonl", t.pairings[0].records)
    return d


@pytest.fixture(scope="module")
def server(recorded):
    """The app on 127.0.0.1 (a free port), with a recorded Rummy game to replay."""
    running = Running(create_app(["expert", "simple"], records=[recorded]))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def browser():
    opts = Options()
    opts.binary_location = BROWSER
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1400,1000", "--force-device-scale-factor=1"):
        opts.add_argument(arg)
    try:
        driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    except WebDriverException as e:  # a browser that cannot start here is no browser
        pytest.skip(f"chromium does not start: {e.msg}")
    driver.implicitly_wait(0)
    yield driver
    driver.quit()


def wait(driver, cond, timeout=30):
    return WebDriverWait(driver, timeout, poll_frequency=0.05,
                         ignored_exceptions=(StaleElementReferenceException,)).until(lambda d: cond(d))


def visible(driver, css):
    """The elements shown now; one the page replaced meanwhile (a new answer drawn) is not."""
    out = []
    for e in driver.find_elements(By.CSS_SELECTOR, css):
        try:
            if e.is_displayed():
                out.append(e)
        except StaleElementReferenceException:
            pass
    return out


def open_setup(b, url):
    b.get(url + "/")
    wait(b, lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"))


def fill_setup(b, game="gin", seat=None, seed=None):
    """The setup form filled in (the page already open), then Deal pressed."""
    Select(b.find_element(By.ID, "game")).select_by_value(game)
    for name, value in (("seat", seat), ("seed", seed)):
        field = b.find_element(By.ID, name)
        field.clear()
        if value is not None:
            field.send_keys(str(value))
    b.find_element(By.ID, "deal").click()


def your_turn(b):
    """Waits for the person's turn in the game shown, past the agents' opening moves."""
    wait(b, lambda d: visible(d, "#table .rrl-table") and d.find_element(By.ID, "status").text.startswith("your turn"))


def test_a_gin_hand_played_by_clicks_to_its_end(server, browser, shots):
    b = browser
    open_setup(b, server.url)
    b.find_element(By.ID, "seed").send_keys("5")
    b.find_element(By.ID, "deal").click()
    wait(b, lambda d: visible(d, "#table .rrl-table") or visible(d, "#setup-error"))
    assert not visible(b, "#setup-error"), b.find_element(By.ID, "setup-error").text
    assert visible(b, "#deal-known"), "a game on a seed the player chose is not marked 'deal known to the player'"
    step_texts = []
    refused = hinted = False
    for turn in range(200):
        if visible(b, "#showdown"):
            break
        status = b.find_element(By.ID, "status").text
        step_texts.append(status)
        legal = visible(b, ".rrl-mine .rrl-card.legal")
        knock = visible(b, "#moves button.knock")
        if not refused and not legal and visible(b, ".rrl-mine [data-card]"):
            # a card clicked before drawing: refused, with the rule, and nothing changes
            before = b.find_element(By.CSS_SELECTOR, ".rrl-mine").get_attribute("innerHTML")
            visible(b, ".rrl-mine [data-card]")[0].click()
            wait(b, lambda d: visible(d, "#refusal"))
            text = b.find_element(By.ID, "refusal").text
            assert text.startswith("refused:") and ("draw first" in text or "(G-2)" in text), text
            assert b.find_element(By.CSS_SELECTOR, ".rrl-mine").get_attribute("innerHTML") == before
            b.save_screenshot(str(shots / "gin_refused.png"))
            refused = True
            continue
        if legal:
            # "or:" only when move buttons follow the line
            line = b.find_element(By.CSS_SELECTOR, "#moves .hintline").text
            assert line.endswith("or:") == bool(visible(b, "#moves button")), line
        if legal and not hinted:
            # a hint, then a move: the hint was for the position before, so it goes
            b.find_element(By.ID, "hint").click()
            wait(b, lambda d: visible(d, "#play-why tr") or visible(d, "#play-why .why-error"))
            assert visible(b, "#play-why tr"), b.find_element(By.ID, "play-why").text
            b.save_screenshot(str(shots / "gin_hint.png"))
            hinted = True
        if knock:
            knock[0].click()
        elif legal:
            if turn == 6:
                b.save_screenshot(str(shots / "gin_play.png"))
            # the card whose discard leaves the least deadwood (its title says)
            dw = [int(re.search(r"deadwood (\d+)", c.get_attribute("title")).group(1)) for c in legal]
            legal[dw.index(min(dw))].click()
        elif visible(b, '[data-zone="stock"].clickable'):
            moves = [m.text for m in visible(b, "#moves button")]
            if any(m.startswith("pass") for m in moves):
                next(m for m in visible(b, "#moves button") if m.text.startswith("pass")).click()
            else:
                b.find_element(By.CSS_SELECTOR, '[data-zone="stock"]').click()
        else:
            buttons = visible(b, "#moves button")
            assert buttons, f"no move to click: {status}"
            buttons[0].click()
        wait(b, lambda d: d.find_element(By.ID, "status").text != status or visible(d, "#showdown")
             or visible(d, "#refusal"))
        assert not visible(b, "#refusal"), b.find_element(By.ID, "refusal").text
        assert b.find_element(By.ID, "play-why").text == "", "the why panel kept a hint past a move"
    assert refused, "the hand gave no chance to click a card before drawing"
    assert hinted, "the hand gave no turn to ask for a hint"
    assert visible(b, "#showdown"), "the hand did not end"
    lines = b.find_element(By.ID, "showdown-lines").text
    assert re.search(r"Hand 1 over", lines) and "score:" in lines
    assert len(visible(b, "#showdown .rrl-show")) == 2  # both hands shown down
    shown = visible(b, "#showdown [data-card]")
    assert len(shown) >= 20
    b.save_screenshot(str(shots / "gin_showdown.png"))
    b.find_element(By.ID, "continue").click()
    wait(b, lambda d: visible(d, "#table .rrl-table"))
    assert "hand 2" in b.find_element(By.CSS_SELECTOR, "#table .rrl-top").text
    assert len(b.find_elements(By.CSS_SELECTOR, "#log li")) >= 4
    # leaving closes the game on the server: the DELETE is a JSON request, which it accepts
    held = server.games()
    b.find_element(By.ID, "leave").click()
    wait(b, lambda d: visible(d, "#setup"))
    wait(b, lambda d: server.games() == held - 1, timeout=10)


def test_setup_errors_are_shown_in_the_setup_form(server, browser, shots):
    b = browser
    open_setup(b, server.url)
    assert "deal known to the player" in b.find_element(By.ID, "seed-note").text
    # a seat Gin does not have: the server's 422 is shown next to Deal, the form stays
    fill_setup(b, "gin", seat=5)
    wait(b, lambda d: visible(d, "#setup-error"))
    error = b.find_element(By.ID, "setup-error")
    assert error.get_attribute("role") == "alert"
    assert "seat" in error.text, error.text
    assert visible(b, "#setup") and not visible(b, "#play-area")
    b.save_screenshot(str(shots / "setup_error.png"))
    # a seed of 20 digits (2**64 - 1) cannot be a seed: refused, with a message in sight
    for seed in ("18446744073709551615", "12a", "-3", "１２"):
        fill_setup(b, "gin", seat=0, seed=seed)
        wait(b, lambda d: "seed" in d.find_element(By.ID, "setup-error").text)
        assert visible(b, "#setup-error") and not visible(b, "#play-area"), seed
    b.save_screenshot(str(shots / "setup_seed_refused.png"))
    # 19 digits (under 2**63) is a seed: the game starts, marked as a deal the player could know,
    # and the error of the try before is gone
    fill_setup(b, "gin", seat=0, seed="1234567890123456789")
    wait(b, lambda d: visible(d, "#table .rrl-table") or visible(d, "#setup-error"))
    assert not visible(b, "#setup-error"), b.find_element(By.ID, "setup-error").text
    badge = visible(b, "#deal-known")
    assert badge and badge[0].text == "deal known to the player"
    b.save_screenshot(str(shots / "gin_deal_known.png"))
    b.find_element(By.ID, "leave").click()
    wait(b, lambda d: visible(d, "#setup"))
    assert not visible(b, "#setup-error") and not visible(b, "#deal-known")
    # no seed: a deal nobody knows, and no badge
    fill_setup(b, "gin", seat=0)
    wait(b, lambda d: visible(d, "#table .rrl-table"))
    assert not visible(b, "#deal-known")
    b.find_element(By.ID, "leave").click()


def test_broken_records_listed_and_a_slow_explanation(recorded, tmp_path, browser, shots, monkeypatch):
    """Records that do not load are listed as broken (why, and where), not replayable; an
    explanation past its time limit says so in the why panel."""
    good = (recorded / "games.jsonl").read_bytes()
    n = good.count(b"\n")
    (tmp_path / "a.jsonl").write_bytes(good + b'{"format": "nonsense"}\n' + b'\xff\xfe not text\n')
    import rummyrl.web.play as play

    def slow_explain(*args, **kwargs):  # an agent slower than the server allows
        time.sleep(1.0)
        return explain(*args, **kwargs)

    explain = play.explain
    monkeypatch.setattr(play, "explain", slow_explain)
    running = Running(create_app(["simple"], records=[tmp_path], why_timeout=0.2))
    try:
        b = browser
        open_setup(b, running.url)
        b.find_element(By.ID, "tab-replay").click()
        wait(b, lambda d: visible(d, "#records tr.broken"))
        broken = visible(b, "#records tr.broken")
        assert len(broken) == 2 and len(visible(b, "#records tr.rec")) == n
        assert "broken: " in broken[0].text and "format" in broken[0].text and f"a.jsonl:{n + 1}" in broken[0].text
        assert "UTF-8" in broken[1].text and f"a.jsonl:{n + 2}" in broken[1].text
        broken[0].click()  # not a link: nothing opens
        time.sleep(0.3)
        assert not visible(b, "#replay-area")
        b.save_screenshot(str(shots / "records_broken.png"))
        visible(b, "#records tr.rec")[0].click()
        wait(b, lambda d: visible(d, "#r-table .rrl-table"))
        # a hint that takes longer than the server allows (0.2 s): 503, said in the why panel
        b.find_element(By.ID, "tab-play").click()
        fill_setup(b, "gin", seat=0)
        your_turn(b)
        b.find_element(By.ID, "hint").click()
        wait(b, lambda d: visible(d, "#play-why .why-error"))
        assert "took longer" in b.find_element(By.ID, "play-why").text
        b.save_screenshot(str(shots / "hint_timeout.png"))
    finally:
        running.stop()


def test_a_lost_server_leaves_a_dead_table_and_a_way_back(browser, shots):
    b = browser
    first = Running(create_app(["simple"]))
    second = None
    try:
        open_setup(b, first.url)
        fill_setup(b, "gin", seat=0)
        your_turn(b)
        # the server restarts under the game: the new one never heard of it (404)
        first.stop()
        second = Running(create_app(["simple"]), port=first.port)
        visible(b, "#moves button")[0].click()
        wait(b, lambda d: visible(d, "#lost"))
        assert b.find_element(By.ID, "lost").get_attribute("role") == "alert"
        assert LOST in b.find_element(By.ID, "lost").text
        assert b.find_element(By.ID, "restart").text == "Start again"
        # the table is dead: no move to click, no hint, nothing on the table lit
        assert all(not m.is_enabled() for m in b.find_elements(By.CSS_SELECTOR, "#moves button"))
        assert not b.find_element(By.ID, "hint").is_enabled()
        assert not visible(b, ".rrl-card.legal") and not visible(b, "[data-zone].clickable")
        assert not visible(b, "#refusal")
        assert "gone" in b.find_element(By.ID, "status").text
        b.save_screenshot(str(shots / "lost_restarted.png"))
        # start again: the setup form, from the new server's configuration
        b.find_element(By.ID, "restart").click()
        wait(b, lambda d: visible(d, "#setup") and not visible(d, "#lost"))
        assert b.find_element(By.ID, "deal").is_enabled()
        fill_setup(b, "gin", seat=0)
        your_turn(b)
        # the server stops: no answer at all
        second.stop()
        b.find_element(By.ID, "hint").click()
        wait(b, lambda d: visible(d, "#lost"))
        assert LOST in b.find_element(By.ID, "lost").text
        assert all(not m.is_enabled() for m in b.find_elements(By.CSS_SELECTOR, "#moves button"))
        b.save_screenshot(str(shots / "lost_stopped.png"))
        # with nobody there, starting again says so and keeps the banner
        b.find_element(By.ID, "restart").click()
        wait(b, lambda d: "still no server" in d.find_element(By.ID, "lost").text)
        assert visible(b, "#lost") and visible(b, "#play-area")
    finally:
        for running in (first, second):
            if running is not None and running.thread.is_alive():
                running.stop()


def test_a_recorded_rummy_game_replayed(server, browser, shots):
    b = browser
    b.get(server.url + "/")
    wait(b, lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"))
    b.find_element(By.ID, "tab-replay").click()
    wait(b, lambda d: visible(d, "#records tr.rec"))
    visible(b, "#records tr.rec")[0].click()
    wait(b, lambda d: visible(d, "#r-table .rrl-table"))
    assert b.find_element(By.ID, "r-step").text.startswith("step 0 /")
    # every hand face up, the stock and the pile
    assert len(visible(b, "#r-table .rrl-seat [data-card]")) == 21
    assert visible(b, '#r-table [data-zone="pile"] [data-card]')
    for k in range(1, 4):  # one step at a time: each click steps on from the frame shown
        b.find_element(By.ID, "r-fwd").click()
        wait(b, lambda d: d.find_element(By.ID, "r-step").text.startswith(f"step {k} /"))
    assert "last move:" in b.find_element(By.ID, "r-moves").text
    assert visible(b, "#r-why tr"), "no reasons shown for a recorded move"
    b.find_element(By.ID, "r-next-deal").click()
    wait(b, lambda d: visible(d, "#r-table .rrl-ended"))
    assert "round 2 of" in b.find_element(By.ID, "r-step").text
    verdict = b.find_element(By.CSS_SELECTOR, "#r-table .rrl-verdict").text
    assert verdict.startswith("Round ended")
    b.save_screenshot(str(shots / "rummy_replay.png"))
    b.find_element(By.ID, "r-back").click()
    wait(b, lambda d: not visible(d, "#r-table .rrl-ended"))
    assert "round 1 of" in b.find_element(By.ID, "r-step").text
