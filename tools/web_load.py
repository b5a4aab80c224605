"""A bounded load test of `v1919 serve`: G games at once over WebSockets, the latency of each move.

A bounded load test of `v1919 serve` on the loopback interface (issue 34): G games at once, each a
human seat (this script, choosing the first legal action) against a random bot, each playing M
human moves over its own WebSocket; the latency of a move is the time from sending it to the first
state that answers it (the server has checked it, stored it in SQLite and drawn the board). Prints
p50, p99 and the maximum, and the bytes of the state messages (the first of a tab, and the mean of
the others: the board's picture is sent whole once, then as patches); stops by itself.

    .venv/bin/python tools/web_load.py --games 50 --moves 20
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

import numpy as np
from websockets.asyncio.client import connect

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from helpers.web_server import web_server  # noqa: E402


def new_game(base: str) -> str:
    req = urllib.request.Request(base + "/api/games", method="POST", headers={"Content-Type": "application/json"},
                                 data=json.dumps({"num_players": 2, "seats": ["human", "random"]}).encode())
    return json.loads(urllib.request.urlopen(req, timeout=30).read())["game"]


async def play(base: str, gid: str, moves: int, timeout: float, sizes: list) -> list[float]:
    """M human moves in game gid; the seconds each took to be answered (the state messages' sizes
    in bytes appended to `sizes`)."""
    took = []

    async def receive():
        text = await asyncio.wait_for(ws.recv(), timeout)
        sizes.append(len(text.encode()))
        return json.loads(text)

    async with connect(base.replace("http://", "ws://") + f"/ws/{gid}", max_size=None) as ws:
        m = await receive()
        while len(took) < moves:
            while not (m["human_to_move"] or m["over"]):
                m = await receive()
            if m["over"]:
                break
            sent = m["step"]
            t0 = time.perf_counter()
            await ws.send(json.dumps({"type": "act", "step": sent, "seat": m["to_move"],
                                      "action": m["legal"][0]["action"]}))
            while True:
                m = await receive()
                if m["type"] == "error":
                    raise RuntimeError(m["error"])
                if m["step"] > sent:            # the state after the move
                    break
            took.append(time.perf_counter() - t0)
    return took


async def load(base: str, games: int, moves: int, timeout: float) -> tuple[list[float], list[list[int]]]:
    ids = [new_game(base) for _ in range(games)]
    sizes = [[] for _ in ids]
    results = await asyncio.gather(*(play(base, g, moves, timeout, s) for g, s in zip(ids, sizes)))
    return [t for r in results for t in r], sizes


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--moves", type=int, default=20, help="human moves per game")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds a state may take before the run fails")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, \
            web_server(Path(tmp) / "load.sqlite3", "--bot-delay", "0", "--agent", "random") as base:
        t0 = time.perf_counter()
        took, sizes = asyncio.run(load(base, args.games, args.moves, args.timeout))
        took = np.array(took) * 1000
        wall = time.perf_counter() - t0
    first, rest = [s[0] for s in sizes], [b for s in sizes for b in s[1:]]
    print(f"{args.games} games at once, {len(took)} human moves in {wall:.1f} s: latency per move "
          f"p50 {np.percentile(took, 50):.1f} ms, p99 {np.percentile(took, 99):.1f} ms, max {took.max():.1f} ms; "
          f"state messages: the first {np.mean(first) / 1000:.1f} KB, then {np.mean(rest) / 1000:.1f} KB on average "
          f"({len(rest)} messages, {sum(first) + sum(rest):,} bytes in all)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
