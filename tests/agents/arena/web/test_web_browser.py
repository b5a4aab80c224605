"""`v1919 serve` in a real browser (Debian's headless Chromium over the DevTools protocol): a game
started from the first page and played to its end by clicks against a bot (on the board where the
move has a place there, else in the list), the last move shown, a reload and a server restart
resuming it; the analysis shown and two games played at once in two browsers; the watch pages.
Screenshots are kept in the test's temporary folder (artefacts of the run, not committed). Skipped
when chromium is not installed."""
import base64
import json


from helpers.browser import Browser
from helpers.web_server import free_port, web_server


def page_step(b) -> int:
    return int(b.js("document.getElementById('status').dataset.step || -1"))


def human_turn_or_end(b):
    b.wait("document.querySelector('#legal button') || document.querySelector('#scores table')")


def play_one_move(b) -> str:
    """One human move by a real click: on the board when a legal move has a place there (then the
    first of the moves offered for it), else on the first button of the list. Says which."""
    k = page_step(b)
    if b.js("!!document.querySelector('#board .target')"):
        b.click_at("document.querySelector('#board .target')")
        b.wait(f"+document.getElementById('status').dataset.step > {k} || "
               "!document.getElementById('choice').hidden")
        if b.js(f"+document.getElementById('status').dataset.step === {k}"):
            b.click_at("document.querySelector('#choice button')")
        how = "board"
    else:
        b.click_at("document.querySelector('#legal button')")
        how = "list"
    b.wait(f"+document.getElementById('status').dataset.step > {k}")
    human_turn_or_end(b)
    return how


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
        clicks = {"board": 0, "list": 0}
        marked = 0                  # states whose last move has a place on the board, marked there
        while not b.js("!!document.querySelector('#scores table')"):
            clicks[play_one_move(b)] += 1
            marked += b.js("document.querySelectorAll('#board .lastmove').length > 0")
        assert clicks["board"] > 10 and clicks["list"] > 5, clicks
        assert marked > 5, marked
        # the cards' texts: on hover (an SVG title) and, for a card that is no move, shown on a tap
        assert b.js("document.querySelectorAll('#board rect.issue > title').length") >= 1
        b.js("[...document.querySelectorAll('#board title')].map(t => t.parentElement)"
             ".find(e => !e.classList.contains('target')).dispatchEvent(new MouseEvent('click'))")
        shown = b.js("document.getElementById('cardtext').hidden ? '' : document.getElementById('cardtext').textContent")
        assert shown and ("stars" in shown or "Crisis" in shown or "VP" in shown), shown
        # the whole move list; a move opens the position it was played from, read-only, and back
        n = b.js("document.querySelectorAll('#log li').length")
        assert n == page_step(b) and b.js("document.querySelector('#log li').dataset.step") == "0"
        now = b.js("document.getElementById('board').innerHTML")
        b.js("document.querySelectorAll('#log li')[3].click()")
        b.wait("!document.getElementById('viewing').hidden")
        assert b.js("document.getElementById('viewing').textContent").startswith("before move 4 (read-only)")
        assert b.js("document.getElementById('board').innerHTML") != now
        assert b.js("document.querySelector('#log li.shown').dataset.step") == "3"
        b.js("document.getElementById('back').click()")
        b.wait("document.getElementById('viewing').hidden")
        assert b.js("document.getElementById('board').innerHTML").replace(' class="lastmove"', "") \
            .replace(" lastmove", "") == now.replace(' class="lastmove"', "").replace(" lastmove", "")
        assert b.js("document.getElementById('status').textContent") == "the game is over"
        last = b.js("document.querySelector('#log li.last').textContent")
        shown = b.js("document.querySelector('#lastmove p').textContent")
        assert last and shown.startswith("last move (step ") and shown.endswith("): " + last)
        assert b.js("document.querySelector('#log li.last').value") == int(shown.split("step ")[1].split(")")[0])
        assert b.js("document.querySelectorAll('#scores tr').length") == 3
        assert b.js("fetch(document.getElementById('record').href).then(r => r.text())").startswith('{"format"')
        assert b.js("document.getElementById('undo').hidden")      # the record is public: the moves are final
        png = b.call("Page.captureScreenshot", format="png")["data"]
        (tmp_path / "finished_game.png").write_bytes(base64.b64decode(png))


def start_game(b, base, players: int, seats: list[str]) -> str:
    b.call("Page.navigate", url=base + "/")
    b.wait("document.readyState === 'complete' && document.getElementById('start')")
    b.js(f"""(() => {{ const p = document.getElementById('players'); p.value = '{players}';
             p.dispatchEvent(new Event('change'));
             const s = document.querySelectorAll('.seat'); {json.dumps(seats)}.forEach((v, i) => s[i].value = v);
             document.getElementById('start').click(); }})()""")
    b.wait("location.pathname.startsWith('/game/') && document.querySelector('#board svg')")
    human_turn_or_end(b)
    return b.js("location.href")


def test_the_analysis_two_games_at_once_and_the_watch_pages(browser, tmp_path):
    from agents.base import make_agent
    from agents.arena.play import run_game, seat_spec

    rec = run_game([make_agent("random"), make_agent("random")], [seat_spec("random")] * 2, num_players=2, seed=5)
    (tmp_path / "games.jsonl").write_text(json.dumps(rec) + "\n")
    second = Browser(tmp_path / "profile2")
    try:
        with web_server(tmp_path / "games.sqlite3", "--bot-delay", "0", "--agent", "random",
                        "--analysis", "ismcts:iterations=80", "--records", str(tmp_path / "games.jsonl")) as base:
            a = start_game(browser, base, 4, ["human", "random", "random", "random"])
            b = start_game(second, base, 2, ["random", "human"])
            assert a != b
            for _ in range(4):                      # the two games, move by move, at once
                play_one_move(browser)
                play_one_move(second)
            assert browser.js("location.href") == a and second.js("location.href") == b
            # the analysis of the position in the first game
            k = page_step(browser)
            browser.click_at("document.getElementById('analyze')")
            browser.wait("document.querySelector('#analysis-table') && "
                         "document.querySelector('#winprob svg, #winprob p')", timeout=60)
            rows = browser.js("document.querySelectorAll('#analysis-table tr[data-action]').length")
            assert rows == browser.js("document.querySelectorAll('#legal button').length") > 1
            shares = browser.js("[...document.querySelectorAll('#analysis-table tr[data-action] td:nth-child(2)')]"
                                ".map(td => parseFloat(td.textContent))")
            assert abs(sum(shares) - 100) < 1 and shares == sorted(shares, reverse=True)
            if browser.js("!!document.querySelector('#winprob-plot')"):       # the train extra is there
                assert browser.js("document.querySelectorAll('#winprob-plot polyline').length") == 4
                points = browser.js("document.querySelector('#winprob-plot polyline').getAttribute('points')")
                assert len(points.split()) == k + 1
            browser.js("window.scrollTo(0, 0)")
            png = browser.call("Page.captureScreenshot", format="png")["data"]
            (tmp_path / "analysis.png").write_bytes(base64.b64decode(png))
            # the watch pages: the records file, its game, the replay viewer
            second.call("Page.navigate", url=base + "/watch/0")
            second.wait("document.querySelectorAll('#games tr.game').length === 1")
            second.click_at("document.querySelector('#games tr.game a')")
            second.wait("location.pathname === '/watch/0/0' && document.readyState === 'complete' && "
                        "!!document.querySelector('svg')")
            assert "replay" in second.js("document.title")
            # its controls stay in view in a short window, with the way back to the list first (issue 42)
            second.call("Emulation.setDeviceMetricsOverride", width=1280, height=500, deviceScaleFactor=1,
                        mobile=False)
            bottom = second.js("document.getElementById('controls').getBoundingClientRect().bottom")
            assert bottom <= 500 + 1, bottom
            assert second.js("document.getElementById('back').getAttribute('href')") == "/watch/0"
            second.js("document.getElementById('back').click()")
            second.wait("location.pathname === '/watch/0'")
    finally:
        second.close()


def _overlaps(b) -> list:
    """Pairs of visible text boxes of the side panel that overlap, and text running past the page's
    right edge (the board's column may scroll sideways: its SVG is left out)."""
    return b.js("""(() => {
      const W = document.documentElement.clientWidth, out = [];
      const els = [...document.querySelectorAll('#side p, #side button, #side h2, #side li, #side span, h1')]
        .filter(e => e.offsetParent !== null && e.textContent.trim());
      const clip = e => {            // the part of the box a scrolling list shows (the rest is scrolled away)
        let r = e.getBoundingClientRect(); r = {left: r.left, right: r.right, top: r.top, bottom: r.bottom};
        for (let p = e.parentElement; p; p = p.parentElement) {
          if (getComputedStyle(p).overflowY === 'visible') continue;
          const q = p.getBoundingClientRect();
          r = {left: Math.max(r.left, q.left), right: Math.min(r.right, q.right), top: Math.max(r.top, q.top),
               bottom: Math.min(r.bottom, q.bottom)};
        }
        return r; };
      const boxes = els.map(e => [e, clip(e)]).filter(([e, r]) => r.bottom - r.top > 1 && r.right - r.left > 1);
      for (const [e, r] of boxes) if (r.right > W + 1) out.push('past the edge: ' + e.textContent.slice(0, 40));
      for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
        const [a, r] = boxes[i], [c, s] = boxes[j];
        if (a.contains(c) || c.contains(a)) continue;
        const x = Math.min(r.right, s.right) - Math.max(r.left, s.left), y = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
        if (x > 1 && y > 1) out.push(a.textContent.slice(0, 30) + ' / ' + c.textContent.slice(0, 30));
      }
      return out; })()""")


def test_the_game_page_reads_at_phone_tablet_and_laptop_widths_and_plays_by_keyboard(browser, tmp_path):
    """At 360, 768 and 1280 px: no two texts of the side panel overlap and none runs past the edge;
    up to 1100 px the panels stack below the board, which keeps a readable scale; a board place is
    reached with Tab and played with Enter (issue 42)."""
    b, db = browser, tmp_path / "games.sqlite3"
    with web_server(db, "--bot-delay", "0", "--agent", "rulebot") as base:
        b.start_game(base)
        try:
            for width in (360, 768, 1280):
                b.call("Emulation.setDeviceMetricsOverride", width=width, height=900, deviceScaleFactor=1,
                       mobile=width < 800)
                b.wait("document.querySelector('#board svg')")
                assert _overlaps(b) == [], (width, _overlaps(b))
                stacked = b.js("getComputedStyle(document.getElementById('layout')).flexDirection") == "column"
                assert stacked == (width <= 1100), width
                scale = b.js("document.querySelector('#board svg').getBoundingClientRect().width / 1280")
                assert scale >= 0.7, (width, scale)         # the board's 12 px text stays above 8 px
            k = page_step(b)
            assert b.js("document.querySelector('#board .target').getAttribute('tabindex')") == "0"
            b.js("document.querySelector('#board .target').focus()")
            b.key("Enter", "Enter")
            b.wait(f"+document.getElementById('status').dataset.step > {k} || "
                   "!document.getElementById('choice').hidden")
        finally:
            from v1919_env.view.scene import WIDTH
            b.call("Emulation.setDeviceMetricsOverride", width=WIDTH, height=1100, deviceScaleFactor=1, mobile=False)


def test_two_browsers_play_two_seats_of_one_game_through_their_own_links(browser, tmp_path):
    """A 2-player game of two people: each browser opens its seat's link and sees the moves only when
    its seat is to move; six moves are played, each in the browser of the seat to move (issue 42)."""
    import urllib.request

    from helpers.browser import Browser

    other_dir = tmp_path / "chromium-2"
    other_dir.mkdir()
    a, b = browser, Browser(other_dir)
    try:
        with web_server(tmp_path / "games.sqlite3", "--bot-delay", "0") as base:
            req = urllib.request.Request(base + "/api/games", method="POST", headers={"Content-Type": "application/json"},
                                         data=json.dumps({"num_players": 2, "seats": ["human", "human"],
                                                          "links": True}).encode())
            links = json.loads(urllib.request.urlopen(req, timeout=10).read())["links"]
            for br, seat in ((a, "UK"), (b, "FRANCE")):
                br.call("Page.navigate", url=base + links[seat])
                br.wait("document.getElementById('status') && document.getElementById('status').dataset.step")
                assert f"(you play {seat})" in br.js("document.getElementById('status').textContent")
            for k in range(6):
                for br in (a, b):
                    br.wait(f"+document.getElementById('status').dataset.step === {k}")
                has = [br.js("!!document.querySelector('#legal button')") for br in (a, b)]
                assert sum(has) == 1, (k, has)              # only the seat to move sees its moves
                mover = (a, b)[has.index(True)]
                mover.js("document.querySelector('#legal button').click()")
            for br in (a, b):
                br.wait("+document.getElementById('status').dataset.step === 6")
    finally:
        b.close()


def test_a_tournament_in_progress_is_watched_move_by_move(browser, tmp_path):
    """Issue 42: the watch page lists the games a tournament is playing; following one opens it at its
    last move, and when it ends the page says so."""
    from helpers.gated_tournament import gated_tournament

    with gated_tournament(tmp_path) as (out, gate, _, live):
        with web_server(tmp_path / "games.sqlite3", "--records", str(out)) as base:
            browser.call("Page.navigate", url=base + "/watch/0")
            browser.wait("document.querySelectorAll('#live tr.live').length === 1", timeout=30)
            moves = int(browser.js("document.querySelector('#live tr.live td:nth-child(4)').textContent"))
            assert moves == len(live[0]["actions"]) >= 1
            browser.click_at("document.querySelector('#live tr.live a')")
            browser.wait("location.pathname.startsWith('/watch/0/live/') && !!document.querySelector('svg')")
            assert browser.js("document.getElementById('live').textContent").startswith("following game")
            assert int(browser.js("document.getElementById('status').dataset.step")) == moves
            (gate / "open").write_text("")
            browser.wait("document.getElementById('live') && "
                         "document.getElementById('live').textContent.includes('has ended')", timeout=60)


# A hot-seat game played in the page by random clicks in the list (a seeded generator) to its end or for
# LIMIT decisions, each click waited for until the next decision (or the end) is on screen; returns
# every decision's status line and buttons, and whether the final scores are shown.
BY_CLICKS = """(async () => {
  const out = [], st = document.getElementById('status');
  let seed = SEED;
  const pick = n => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  for (let i = 0; i < LIMIT; i++) {
    const bs = [...document.querySelectorAll('#legal button')];
    if (!bs.length) break;
    out.push([st.textContent, bs.map(b => b.textContent)]);
    const k = +st.dataset.step;
    bs[pick(bs.length)].click();
    const t0 = Date.now();
    while (!(+st.dataset.step > k && (document.querySelector('#legal button') || document.querySelector('#scores table')))) {
      if (Date.now() - t0 > 10000) throw new Error('no next decision after step ' + k);
      await new Promise(r => setTimeout(r, 2));
    }
  }
  return [out, !!document.querySelector('#scores table')];
})()"""


def test_every_decision_reads_in_the_games_words_and_the_keep_decision_names_both_issues(browser, tmp_path):
    """Issue 42, in the browser: hot-seat games of every player count played by random clicks in the list
    (a whole solitaire game, showing the player's nation and its VP against the target; 200 decisions
    of each other player count: whole games at ~40 ms a click cost two minutes; tests/test_decision_words.py
    checks the same words over whole games of every count without the page); at every decision the status line and every button are checked against the internal codes
    (tests/helpers/decision_codes.py), and every keep decision shows the two drawn issues by name on
    both buttons and in the sentence."""
    import re

    from helpers.decision_codes import check

    keeps = 0
    with web_server(tmp_path / "games.sqlite3", "--bot-delay", "0") as base:
        for players, limit in ((1, 5000), (2, 200), (3, 200), (4, 200)):      # a whole solitaire game, then
            start_game(browser, base, players, ["human"] * players)          # 200 decisions of each other count
            if players == 1:        # the solitaire player's own nation, its VP against the target on screen
                status = browser.js("document.getElementById('status').textContent")
                mover = re.search(r"to move: ([A-Z]+) ", status)
                vp = re.search(r"\(([A-Z]+): \d+ VP of the 20 to win\)", status)
                assert mover and vp and mover.group(1) == vp.group(1), status
            decisions, ended = browser.call("Runtime.evaluate", timeout=300.0, returnByValue=True, awaitPromise=True,
                                            expression=BY_CLICKS.replace("SEED", str(players)).replace("LIMIT", str(limit)))["result"]["value"]
            assert len(decisions) == limit or (ended and len(decisions) > 50), (players, len(decisions))
            for status, buttons in decisions:
                for text in [status, *buttons]:
                    check(text, f"{players} players")
                if any(b.startswith("keep ") and "(discard " in b for b in buttons):
                    assert len(buttons) == 2, buttons
                    kept = [b[len("keep "):b.index(" (discard ")] for b in buttons]
                    assert kept[0] != kept[1] and all(name in status for name in kept), (status, buttons)
                    keeps += 1
    assert keeps, "no keep decision in the games played"
