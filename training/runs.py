"""Where long runs keep their data: `V1919_RUNS`, outside the checkout, so that a run survives a fresh
clone of the project and resumes there.

`runs_dir()` is the folder the self-play, fit and round-loop commands default to (each in a
subfolder of its kind, named after its config): `$V1919_RUNS` when set, else `~/.cache/v1919_env/runs`
(under `$XDG_CACHE_HOME` when that is set). An explicit `--out` still goes where it says.
"""
from __future__ import annotations

import os
from pathlib import Path


def runs_dir() -> Path:
    """The runs folder (module docstring); not created here."""
    env = os.environ.get("V1919_RUNS")
    if env:
        return Path(env).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "v1919_env" / "runs"


def default_out(kind: str, name: str) -> Path:
    """The default output folder of a run of `kind` (selfplay, fit, exit_rounds) named `name`; says where."""
    out = runs_dir() / kind / name
    print(f"run folder: {out} (V1919_RUNS={runs_dir()}; --out to choose another)", flush=True)
    return out


def out_dir(given: str | Path | None, kind: str, name: str) -> Path:
    """The run folder of a command: `given` (its --out) or default_out(kind, name), created when
    missing; a path that is a file, or where no folder can be made, is refused (ValueError naming it)."""
    p = Path(given) if given is not None else default_out(kind, name)
    what = "--out" if given is not None else "the run folder"
    if p.exists() and not p.is_dir():
        raise ValueError(f"{what}: {p} is a file, not a folder")
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ValueError(f"{what}: {p}: cannot make a folder there ({e.strerror or e})") from None
    return p


def resolve_data(path: str | Path) -> Path:
    """A data folder named in a config: as given when it exists, else the same relative path under
    the runs folder (a leading `runs/` dropped: configs written before V1919_RUNS name `runs/selfplay/X`)."""
    p = Path(path)
    if p.exists() or p.is_absolute():
        return p
    rel = Path(*p.parts[1:]) if p.parts and p.parts[0] == "runs" else p
    alt = runs_dir() / rel
    return alt if alt.exists() else p
