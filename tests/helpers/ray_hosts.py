"""A Ray GameHost that cannot start (agents/arena/tournament/ray_pool.py): as on a node where the project is
not installed. Ray workers import it by name, so tests/ must be on their PYTHONPATH."""
from __future__ import annotations


class BrokenHost:
    def __init__(self, cwd: str):
        raise ModuleNotFoundError("No module named 'agents' (a node without the project)")
