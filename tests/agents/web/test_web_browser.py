"""`v1919 serve` in a real browser (Debian's headless Chromium over the DevTools protocol): a game
started from the first page and played to its end by clicks against a bot, the last move shown,
a reload and a server restart resuming it. A screenshot of the finished game is kept in the test's
temporary folder (an artefact of the run, not committed). Skipped when chromium is not installed."""
import base64

import pytest

from helpers.browser import CHROMIUM, Browser
from helpers.web_server import free_port, web_server


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    b = Browser(tmp_path_factory.mktemp("chromium-profile"))
    yield b
    b.close()


def page_step(b) -> int:
    return int(b.js("document.getElementById('status').dataset.step || -1"))


def human_turn_or_end(b):
    b.wait("document.querySelector('#legal button') || document.querySelector('#scores table')")


def test_a_game_played_by_clicks_resumes_after_a_reload_and_a_restart(browser, tmp_path):
    b, db, port = browser, tmp_path / "games.sqlite3", free_port()
    with web_server(db, "--bot-delay", "0", "--agent", "random", port=port) as base:
        b.call("Page.navigate", url=base + "/")
        b.wait("document.readyState === 'complete' && document.getElementById('start')")
        b.js("""(() => { const p = document.getElementById('players'); p.value = '2';
                 p.dispatchEvent(new Event('change'));
                 const s = document.querySelectorAll('.seat'); s[0].value = 'human'; s[1].value = 'random';
                 document.getElementById('start').click(); })()""")
        b.wait("location.pathname.startsWith('/game/') && document.querySelector('#board svg')")
        url = b.js("location.href")
        human_turn_or_end(b)
        for _ in range(5):                                  # a few moves, then a reload
            k = page_step(b)
            b.js("document.querySelector('#legal button').click()")
            b.wait(f"+document.getElementById('status').dataset.step > {k}")
            human_turn_or_end(b)
        k = page_step(b)
        b.js("document.getElementById('undo').click()")             # undo the last human move
        b.wait(f"+document.getElementById('status').dataset.step < {k}")
        human_turn_or_end(b)
        before = page_step(b), b.js("document.getElementById('legal').textContent")
        b.open(url)
        human_turn_or_end(b)
        assert (page_step(b), b.js("document.getElementById('legal').textContent")) == before
    with web_server(db, "--bot-delay", "0", "--agent", "random", port=port):  # a new server, the same file
        b.open(url)
        human_turn_or_end(b)
        assert page_step(b) == before[0]
        clicks = 0
        while not b.js("!!document.querySelector('#scores table')"):
            k = page_step(b)
            b.js("document.querySelector('#legal button').click()")
            b.wait(f"+document.getElementById('status').dataset.step > {k}")
            human_turn_or_end(b)
            clicks += 1
        assert clicks > 20
        assert b.js("document.getElementById('status').textContent") == "the game is over"
        last = b.js("document.querySelector('#log li.last').textContent")
        shown = b.js("document.querySelector('#lastmove p').textContent")
        assert last and shown.startswith("last move (step ") and shown.endswith("): " + last)
        assert b.js("document.querySelector('#log li.last').value") == int(shown.split("step ")[1].split(")")[0])
        assert b.js("document.querySelectorAll('#scores tr').length") == 3
        assert b.js("fetch(document.getElementById('record').href).then(r => r.text())").startswith('{"format"')
        png = b.call("Page.captureScreenshot", format="png")["data"]
        (tmp_path / "finished_game.png").write_bytes(base64.b64decode(png))
