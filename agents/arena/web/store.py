"""The web app's games in SQLite (the standard library's sqlite3): each game is its settings (player
count, variant, seats, the secret seed) and the list of its actions; a game is rebuilt by replaying
them, so a reload, a reconnect or a server restart resumes it exactly."""
from __future__ import annotations

import json
import sqlite3
import time
from contextlib import closing

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id       TEXT PRIMARY KEY,
    created  REAL NOT NULL,
    settings TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS moves (
    game   TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    step   INTEGER NOT NULL CHECK (step >= 0),
    action INTEGER NOT NULL,
    PRIMARY KEY (game, step)
);
"""


class Store:
    """Games and their moves in one SQLite file. A connection per call (the server calls it from its
    event loop and from worker threads); every write is one transaction."""

    def __init__(self, path: str):
        self.path = str(path)
        with closing(self._connect()) as db, db:
            db.executescript(SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=10)
        db.execute("PRAGMA foreign_keys = ON")
        return db

    def add_game(self, gid: str, settings: dict) -> None:
        with closing(self._connect()) as db, db:
            db.execute("INSERT INTO games (id, created, settings) VALUES (?, ?, ?)",
                       (gid, time.time(), json.dumps(settings)))

    def add_move(self, gid: str, step: int, action: int) -> None:
        """Append the action of `step`; a second action for the same step is refused (IntegrityError)."""
        with closing(self._connect()) as db, db:
            db.execute("INSERT INTO moves (game, step, action) VALUES (?, ?, ?)", (gid, int(step), int(action)))

    def drop_moves(self, gid: str, step: int) -> None:
        """Forget the moves from `step` on (an undo)."""
        with closing(self._connect()) as db, db:
            db.execute("DELETE FROM moves WHERE game = ? AND step >= ?", (gid, int(step)))

    def load(self, gid: str) -> tuple[dict, list[int]] | None:
        """(settings, actions in step order) of a game; None when there is no such game."""
        with closing(self._connect()) as db:
            row = db.execute("SELECT settings FROM games WHERE id = ?", (gid,)).fetchone()
            if row is None:
                return None
            acts = [a for (a,) in db.execute("SELECT action FROM moves WHERE game = ? ORDER BY step", (gid,))]
        return json.loads(row[0]), acts

    def list_games(self, limit: int = 50) -> list[dict]:
        """The newest games: id, created, settings, moves played."""
        with closing(self._connect()) as db:
            rows = db.execute("SELECT g.id, g.created, g.settings, COUNT(m.step) FROM games g "
                              "LEFT JOIN moves m ON m.game = g.id GROUP BY g.id ORDER BY g.created DESC LIMIT ?",
                              (int(limit),)).fetchall()
        return [{"id": i, "created": c, "settings": json.loads(s), "moves": n} for i, c, s, n in rows]
