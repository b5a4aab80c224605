"""The arena's old import paths (before 0.2.0 it lived in `agents.<name>`): `import agents.play` or
`python -m agents.process.client` give the module of `agents.arena` (the same module object, not a
copy) with a DeprecationWarning naming the new path. Removed in 0.3.0 (docs/versioning.md)."""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
import warnings

MOVED = ("benchmark", "clock", "commands", "ladder", "nation_balance", "play", "precompile", "process",
         "solitaire_score", "tournament", "web", "win_probability")
"""Modules and packages of the arena that were `agents.<name>`."""


def new_name(old: str) -> str | None:
    """`agents.arena.<rest>` for an old path `agents.<moved>[.<rest>]`, else None."""
    parts = old.split(".")
    if len(parts) >= 2 and parts[0] == "agents" and parts[1] in MOVED:
        return "agents.arena." + ".".join(parts[1:])
    return None


class _Alias(importlib.abc.Loader):
    def __init__(self, new: str):
        self.new = new

    def create_module(self, spec):
        return types.ModuleType(spec.name)          # replaced by the real module in exec_module

    def exec_module(self, module) -> None:
        sys.modules[module.__name__] = importlib.import_module(self.new)

    def get_code(self, fullname):                   # `python -m OLD` (runpy) runs the new module's code
        # (runpy's frames hide a DeprecationWarning from the default filters: say it where it is seen)
        warnings.warn(f"python -m {fullname}: the module moved to {self.new}; the old path goes in 0.3.0",
                      FutureWarning, stacklevel=2)
        spec = importlib.util.find_spec(self.new)
        return spec.loader.get_code(self.new)

    def is_package(self, fullname) -> bool:
        spec = importlib.util.find_spec(self.new)
        return spec.submodule_search_locations is not None


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        new = new_name(fullname)
        if new is None:
            return None
        warnings.warn(f"{fullname} moved to {new} (the arena's own package); the old path goes in 0.3.0",
                      DeprecationWarning, stacklevel=2)
        return importlib.machinery.ModuleSpec(fullname, _Alias(new))


def install() -> None:
    """Put the finder first on sys.meta_path (once), before the path finder could load a second copy."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
