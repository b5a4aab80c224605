"""The web app's watch pages: records files (a tournament's, a ladder's, `v1919 play --record`'s)
browsed game by game and move by move, and followed as they grow while a tournament or the ladder
runs (a game appears when it is finished and written), and the games still being played, move by
move, from the `live.json` a tournament writes beside its records while worker processes play
(agents/arena/tournament/runner.py LiveFile).

`v1919 serve --records FILE` (repeatable; a tournament's output directory means its games.jsonl)
names the files; the browser only picks among them by number. A record holds the seed, hence the
decks: the replay of a finished game shows everything, as `v1919 replay --html` does.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from v1919_env.records import RecordError, parse_lines

LIVE_FILE = "live.json"          # (agents/arena/tournament/runner.py writes it)


def records_path(path) -> Path:
    """The records file that `path` names (a directory: its games.jsonl); ValueError if there is none."""
    p = Path(os.path.expanduser(str(path)))
    if p.is_dir():
        p = p / "games.jsonl"
    if not p.is_file():
        raise ValueError(f"--records {path}: no records file there (a .jsonl of game records, or a tournament's "
                         f"output directory holding games.jsonl)")
    return p


def summary(rec: dict, position: int) -> dict:
    """What the list of a file's games shows of one record."""
    res = rec["result"]
    labels = [s["label"] for s in rec["seats"]]
    forfeit = res.get("forfeit")
    scores = res.get("scores") or []
    players = [f"{lab} ({str(sc.get('nation', '?')).upper()}, {sc.get('total', '?')})" for lab, sc in zip(labels, scores)]
    return {"position": position, "game": rec["game"], "num_players": rec["num_players"], "seats": labels,
            "players": players or labels,
            "winners": [labels[p] for p in res["winners"]], "decisions": res["decisions"],
            "forfeit": None if forfeit is None else f"{forfeit['label']}: {forfeit['reason']}"}


class Watched:
    """The records files the server offers, each re-read when it has grown (only whole lines: a
    record being written is read once it is complete)."""

    def __init__(self, paths):
        self.paths = [records_path(p) for p in paths]
        self._cache: dict[int, tuple[tuple[int, int], list[dict]]] = {}

    def games(self, k: int) -> list[dict]:
        """The records of file k, as far as they are written (RecordError for a file that is not one)."""
        path = self.paths[k]
        st = path.stat()
        key = (st.st_size, st.st_mtime_ns)
        cached = self._cache.get(k)
        if cached is not None and cached[0] == key:
            return cached[1]
        text = path.read_text(encoding="utf-8")
        text = text[:text.rfind("\n") + 1]          # a last line without its newline is still being written
        records, _ = parse_lines(text, str(path))
        self._cache[k] = (key, records)
        return records

    def results(self, k: int) -> Path | None:
        """The report beside file k (a tournament's or a ladder's results.md / ladder.md), if any."""
        for name in ("results.md", "ladder.md"):
            p = self.paths[k].parent / name
            if p.is_file():
                return p
        return None

    def live(self, k: int) -> list[dict]:
        """The games of file k's tournament still being played (its live.json; none when there is no
        such file or it cannot be read): each {"game", "seed", "num_players", "variant", "negotiation",
        "card_set", "seats", "actions"}, a plain record of the game so far."""
        try:
            data = json.loads((self.paths[k].parent / LIVE_FILE).read_text(encoding="utf-8"))
            games = data["games"]
        except (OSError, ValueError, KeyError, TypeError):
            return []
        return [g for g in games if isinstance(g, dict) and isinstance(g.get("actions"), list)]

    def live_game(self, k: int, game: int) -> dict | None:
        return next((g for g in self.live(k) if g.get("game") == game), None)

    def listing(self, k: int) -> dict:
        """{"file", "games": [summary, ...], "live": [{"game", "seats", "decisions"}, ...], "error",
        "results"} of file k ("live": the games in progress; "results": whether a report lies beside it)."""
        has = self.results(k) is not None
        live = [{"game": g["game"], "seats": g.get("seats", []), "decisions": len(g["actions"])} for g in self.live(k)]
        try:
            games = self.games(k)
        except (RecordError, OSError) as e:
            return {"file": str(self.paths[k]), "games": [], "live": live, "error": str(e), "results": has}
        return {"file": str(self.paths[k]), "games": [summary(r, i) for i, r in enumerate(games)], "live": live,
                "error": None, "results": has}
