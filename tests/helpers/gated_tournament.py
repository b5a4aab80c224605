"""A real tournament held in its first game (issue 42's watch tests): four games on one worker process, the
`test_gate` agent in seat 1 waiting at its first decision until the test opens the gate, so the game stays
in progress with the moves before it written to the tournament's live.json."""
from __future__ import annotations

import contextlib
import json
import threading
import time


@contextlib.contextmanager
def gated_tournament(tmp_path):
    """Yield (the tournament's folder, the gate folder: write `open` there to let the games go on, the
    thread playing it, the games of live.json once one of them has a move); the tournament is let go
    and joined on the way out."""
    from helpers import agent_fixtures  # noqa: F401  (registers test_gate)
    from agents.arena.tournament import config_from_dict, play_games

    gate = tmp_path / "gate"
    gate.mkdir()
    cfg = config_from_dict({"name": "live", "num_players": 4, "games": 4, "seed": 1, "workers": 1, "isolate": "none",
                            "modules": ["helpers.agent_fixtures"],
                            "agents": ["random", {"name": "test_gate", "options": {"gate": str(gate)}},
                                       {"name": "random", "label": "r2"}, {"name": "random", "label": "r3"}]})
    out = tmp_path / "t"
    run = threading.Thread(target=play_games, args=(cfg, out), kwargs={"progress": False})
    run.start()
    try:
        deadline, live = time.monotonic() + 120, []
        while not (live and live[0]["actions"]) and time.monotonic() < deadline:
            time.sleep(0.1)
            try:
                live = json.loads((out / "live.json").read_text())["games"]
            except (OSError, ValueError):
                live = []
        assert live and live[0]["actions"], "no game in progress was written to live.json"
        yield out, gate, run, live
    finally:
        (gate / "open").write_text("")
        run.join(timeout=120)
