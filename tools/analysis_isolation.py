"""Does a running analysis hold up other games? The move latency of one game during another's search.

`v1919 serve` with `--analysis ismcts:iterations=N`: game A asks for an analysis, and while it runs
game B (a human seat of this script against a random bot) plays M moves; prints how long the
analysis took and the latency of B's moves (mean and max). The analysis runs in a process of its
own (agents/arena/web/analysis.py: AnalysisWorker); `--wait S` lets the server's warm-up finish first.

    PYTHONPATH=. python tools/analysis_isolation.py --iterations 20000 --moves 15 --wait 30
"""
from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from helpers.web_server import web_server  # noqa: E402


def new_game(base: str) -> str:
    req = urllib.request.Request(base + "/api/games", method="POST", headers={"Content-Type": "application/json"},
                                 data=json.dumps({"num_players": 2, "seats": ["human", "random"]}).encode())
    return json.loads(urllib.request.urlopen(req, timeout=30).read())["game"]


async def measure(base: str, moves: int) -> tuple[float, list[float]]:
    a, b = new_game(base), new_game(base)
    ws_url = base.replace("http://", "ws://")
    async with connect(f"{ws_url}/ws/{a}", max_size=None) as wa, connect(f"{ws_url}/ws/{b}", max_size=None) as wb:
        ma, mb = json.loads(await wa.recv()), json.loads(await wb.recv())
        while not mb["human_to_move"]:
            mb = json.loads(await wb.recv())
        t_an = time.perf_counter()
        await wa.send(json.dumps({"type": "analyze", "step": ma["step"]}))
        took = []
        for _ in range(moves):
            t0 = time.perf_counter()
            await wb.send(json.dumps({"type": "act", "step": mb["step"], "seat": mb["to_move"],
                                      "action": mb["legal"][0]["action"]}))
            while True:
                mb = json.loads(await wb.recv())
                if mb["type"] == "state" and (mb["human_to_move"] or mb["over"]):
                    break
            took.append(time.perf_counter() - t0)
            if mb["over"]:
                break
        while json.loads(await wa.recv())["type"] != "analysis":
            pass
        return time.perf_counter() - t_an, took


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iterations", type=int, default=20000, help="the analysis search's ismcts iterations")
    ap.add_argument("--moves", type=int, default=15, help="game B's moves during the analysis")
    ap.add_argument("--wait", type=float, default=30.0, help="seconds for the server's warm-up first")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, \
            web_server(Path(tmp) / "x.sqlite3", "--bot-delay", "0", "--agent", "random",
                       "--analysis", f"ismcts:iterations={args.iterations}") as base:
        time.sleep(args.wait)
        seconds, took = asyncio.run(measure(base, args.moves))
    print(f"the analysis took {seconds:.1f} s; the other game's {len(took)} moves meanwhile: "
          f"mean {1000 * sum(took) / len(took):.0f} ms, max {1000 * max(took):.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
