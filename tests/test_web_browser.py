"""The web app in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``, which .ci/run installs) plays a Gin Rummy hand by clicks to its end
and replays a recorded Rummy game, saving screenshots on the way (into
``$RUMMYRL_SCREENSHOTS`` when set, else the test's temporary folder). Skipped where there is
no browser."""

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
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from rummyrl import records  # noqa: E402
from rummyrl.tournament import run_tournament  # noqa: E402
from rummyrl.web import create_app  # noqa: E402

BROWSER = next((p for p in (shutil.which("chromium"), "/usr/bin/chromium", shutil.which("chromium-browser"))
                if p and os.path.exists(p)), None)
DRIVER = next((p for p in (shutil.which("chromedriver"), "/usr/bin/chromedriver") if p and os.path.exists(p)), None)
pytestmark = [pytest.mark.skipif(not (BROWSER and DRIVER), reason="no chromium and chromedriver here "
                                 "(apt-get install chromium chromium-driver)"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning")]


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    out = Path(os.environ.get("RUMMYRL_SCREENSHOTS") or tmp_path_factory.mktemp("screenshots"))
    out.mkdir(parents=True, exist_ok=True)
    return out


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The app on 127.0.0.1 (a free port), with a recorded Rummy game to replay."""
    d = tmp_path_factory.mktemp("records")
    t = run_tournament(["expert", "simple"], game="rummy", players=3, games=3, seed=2, show_progress=False,
                       record=True, record_reasons=True)
    records.write_records(d / "games.jsonl", t.pairings[0].records)
    app = create_app(["expert", "simple"], records=[d])
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(200):
        if srv.started:
            break
        time.sleep(0.05)
    port = srv.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


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


def test_a_gin_hand_played_by_clicks_to_its_end(server, browser, shots):
    b = browser
    b.get(server + "/")
    wait(b, lambda d: d.find_elements(By.CSS_SELECTOR, "#game option"))
    b.find_element(By.ID, "seed").send_keys("5")
    b.find_element(By.ID, "deal").click()
    wait(b, lambda d: visible(d, "#table .rrl-table"))
    step_texts = []
    refused = False
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
    assert refused, "the hand gave no chance to click a card before drawing"
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


def test_a_recorded_rummy_game_replayed(server, browser, shots):
    b = browser
    b.get(server + "/")
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
