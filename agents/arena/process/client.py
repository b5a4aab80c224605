"""The reference client of the bot protocol (docs/protocol.md): any agent of this package as a bot
process.

    python -m agents.arena.process.client rulebot
    python -m agents.arena.process.client "ismcts:iterations=200"
    python -m agents.arena.process.client --module mybots mybot     # an agent your module registers
    # in a tournament config:  {cmd: "python -m agents.arena.process.client ismcts:iterations=200", label: ismcts-proc}

It answers the arena's hello with the agent's name (the hello's `options` are laid over the spec's),
resets the agent with the seed of each new_game, and for each decide message rebuilds what an
in-process agent gets: the observation, the mask from the legal ids, the seat's information set as
a `Game` (from the message's position, for agents whose needs_game is true) and the time left
(Agent.set_clock); it replies with the agent's action. It exits at quit, at an error message or at
the end of its input. Anything it cannot do is written to stderr, and it exits with 1.
"""
from __future__ import annotations

import argparse
import json
import os
import sys


def serve(spec: str, stdin=None, stdout=None, modules=()) -> int:
    """Speak the protocol as the agent `spec` until quit; returns the exit status."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import numpy as np

    from v1919_env import __version__
    from v1919_env.actions import NUM_ACTIONS
    from v1919_env.game import Game

    from ...base import make_agent, parse_agent_spec
    from ..clock import TimeLeft
    from ..play import not_an_action_id
    from . import protocol as P

    import importlib

    for m in modules:                        # modules that register agents of your own
        importlib.import_module(m)
    stdin = stdin or sys.stdin.buffer
    stdout = stdout or sys.stdout.buffer
    name, opts = parse_agent_spec(spec)
    agent = None

    def send(msg: dict) -> None:
        stdout.write(P.encode(msg))
        stdout.flush()

    for line in stdin:
        msg = P.parse(line, sender="arena")
        kind = msg["type"]
        if kind == "hello":
            if msg.get("version") != P.VERSION:
                print(f"client: the arena speaks protocol version {msg.get('version')!r}, this client {P.VERSION}",
                      file=sys.stderr)
                return 1
            agent = make_agent(name, **{**opts, **(msg.get("options") or {})})
            if "torch" in sys.modules:
                sys.modules["torch"].set_num_threads(1)
            send({"type": "hello", "protocol": P.PROTOCOL, "version": P.VERSION, "name": spec,
                  "bot_version": __version__, "options": {**opts, **(msg.get("options") or {})},
                  **({} if agent.needs_game else {"omit": ["position", "names"]})})
        elif kind == "new_game":
            agent.reset(msg.get("seed"))
            send({"type": "ready"})
        elif kind == "decide":
            legal = msg["legal"]
            mask = np.zeros(NUM_ACTIONS, np.int8)
            mask[legal] = 1
            obs = np.asarray(msg.get("observation", ()), np.float32)
            game = Game.from_dict(msg["position"]) if agent.needs_game else None
            t = msg.get("time")
            if t is not None:
                agent.set_clock(TimeLeft(**t))
            a = agent.act(obs, mask, game)
            why = not_an_action_id(a)
            if why:             # the arena's rule for an agent in process: the game is forfeited
                print(f"client: the agent {why}", file=sys.stderr)
                return 1
            send({"type": "action", "id": int(a)})
        elif kind == "game_over":
            pass
        elif kind == "quit":
            return 0
        elif kind == "error":
            print(f"client: the arena stopped: {msg.get('message')}", file=sys.stderr)
            return 1
        else:
            print(f"client: unknown message type {kind!r}: {json.dumps(msg)[:200]}", file=sys.stderr)
            return 1
    return 0


def check(seats: list[dict], modules=()) -> dict:
    """The arena's config check of the agents of `modules`, run here (a bot process) so that no code of
    theirs runs in the arena: {"module": [k, why] or None, "seats": [base.agent_problem of each seat]}."""
    import importlib

    from ...base import agent_problem

    for k, m in enumerate(modules):
        try:
            importlib.import_module(m)
        except (Exception, SystemExit) as e:      # ImportError, or the module's own code failing
            return {"module": [k, f"cannot import {m!r}: {type(e).__name__}: {e}"], "seats": []}
    return {"module": None, "seats": [agent_problem(s["name"], s.get("options") or {}) for s in seats]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m agents.arena.process.client", description=__doc__.split("\n\n")[0])
    ap.add_argument("agent", nargs="?", help="an agent spec, 'name' or 'name:key=value,...'")
    ap.add_argument("--check", metavar="JSON", help="instead of playing: check these seats ([{name, options}, ...]) "
                                                    "as a tournament config would, and print the result as JSON")
    ap.add_argument("--module", action="append", default=[], help="a module to import first (it registers "
                                                                  "agents of your own); repeatable")
    a = ap.parse_args(argv)
    if a.check is not None:
        print(json.dumps(check(json.loads(a.check), a.module)), flush=True)
        return 0
    if a.agent is None:
        ap.error("the agent spec is missing")
    try:
        return serve(a.agent, modules=a.module)
    except Exception as e:           # noqa: BLE001  (a bot says why it stops, on stderr, and exits 1)
        print(f"client: {type(e).__name__}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
