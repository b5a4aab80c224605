"""The pictures of the README and the docs home: the web app in headless Chromium, and the board alone.

The web app: a 4-player game against three rule bots some moves in (docs/images/web_app.png), in
Debian's headless Chromium; the board as the environments draw it (docs/images/board.png,
`Game.to_svg` in the same browser).

    PYTHONPATH=.:tests python tools/screenshots.py [--moves 12] [--out docs/images]

Needs chromium on the PATH (the tests' browser helper, tests/helpers/browser.py).
"""
from __future__ import annotations

import argparse
import base64
import sys
import tempfile
from pathlib import Path

from helpers.browser import Browser
from helpers.web_server import web_server
from v1919_env.game import Game


def _png(b: Browser, width: int, height: int) -> bytes:
    b.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)
    return base64.b64decode(b.call("Page.captureScreenshot", format="png")["data"])


def web_app(b: Browser, db: Path, moves: int) -> bytes:
    """The game page after `moves` human moves (each the middle one of the list)."""
    with web_server(db, "--bot-delay", "0", "--agent", "rulebot") as base:
        b.start_game(base)
        for _ in range(moves):
            k = int(b.js("document.getElementById('status').dataset.step"))
            b.js("(() => { const l = document.querySelectorAll('#legal button'); l[l.length >> 1].click(); })()")
            b.wait(f"+document.getElementById('status').dataset.step > {k} && "
                   "(document.querySelector('#legal button') || document.querySelector('#scores table'))")
        return _png(b, 1400, 1000)


def board(b: Browser, seed: int, moves: int) -> bytes:
    """The board of a rule-bot game after `moves` decisions."""
    from agents import make_agent

    g = Game.new(4, seed=seed)
    bot = make_agent("rulebot", seed=seed)
    for _ in range(moves):
        g.step(bot.act(None, g.action_mask(), g))
    b.call("Page.navigate", url="data:text/html;base64," + base64.b64encode(
        f"<html><body style='margin:0'>{g.to_svg()}</body></html>".encode()).decode())
    b.wait("document.readyState === 'complete' && document.querySelector('svg')")
    w, h = (int(float(b.js(f"document.querySelector('svg').getBoundingClientRect().{k}"))) for k in ("width", "height"))
    return _png(b, w, h)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--moves", type=int, default=12, help="human moves before the web app's picture")
    ap.add_argument("--out", default="docs/images")
    args = ap.parse_args(argv)
    out = Path(args.out)
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "profile").mkdir()
        b = Browser(Path(tmp) / "profile")
        try:
            (out / "web_app.png").write_bytes(web_app(b, Path(tmp) / "games.sqlite3", args.moves))
            (out / "board.png").write_bytes(board(b, 3, 160))
        finally:
            b.close()
    print(f"wrote {out / 'web_app.png'} and {out / 'board.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
