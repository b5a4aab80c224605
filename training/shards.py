"""The replay buffer of expert iteration: compressed shards of searched decisions on disk.

A data directory holds `shard_<index>.npz` files (np.savez_compressed), each the records of a fixed
run of whole games (training.selfplay writes them), and `meta.json` (the config that made them). A
shard is written to a temporary name and renamed, so a file under its final name is complete, and
a resumed run skips it. Shards whose index is a multiple of the config's `holdout_every` hold the
held-out games: whole games never fitted, on which every figure is measured.

Arrays of a shard (R searched decisions, G games):

    obs      [R, OBS_SIZE] float16  the decider's observation (the full current version)
    mask     [R, NUM_ACTIONS] bool  its legal actions
    visits   [R, NUM_ACTIONS] uint16  root visit counts of the search
    prior    [R, NUM_ACTIONS] float16  the root priors the search used (rule-bot share included)
    q        [R, NUM_ACTIONS] float16  the root children's mean values for the decider (0 unvisited)
    root_value [R] float32  the root's own evaluation for the decider (its first simulation: the value
                         head, or its mix with a rollout), the v of the completed-Q target; shards
                         written before it was recorded read as NaN (OPTIONAL_KEYS)
    action   [R] int16   the action played;   seat [R] int8;   game [R] int64 (global game index)
    left     [R] int32   the seat's decisions (forced ones too) from this one to its last: the value
                         target is gamma ** left x outcome
    outcome  [R] float32 the seat's final reward under the network's training reward
    outcomes [R, MAX_PLAYERS] float32 every seat's final reward, in the observation's order (the
                         decider, then clockwise; 0 past the player count): the targets of a value
                         head per seat; not in shards written before it was recorded
    win      [R] float32 the seat's share of the win (1 / number of winners, or 0)
    nation   [R] int8    the seat's nation (index in the game's score table order, vocab)
    state    [R, STATE_SIZE] int32  the position searched (the real game: deck orders included), so
                         that any observation version (the compact one too) can be computed again;
                         not in shards written before it was recorded
    game_ids [G] int64; game_seeds [G] int64; game_kinds [G, seats] <U8 (who played each seat)
"""
from __future__ import annotations

import json
import os
import re
import zipfile
from pathlib import Path

import numpy as np

SHARD_RE = re.compile(r"^shard_(\d{6})\.npz$")
RECORD_KEYS = ("obs", "mask", "visits", "prior", "q", "action", "seat", "game", "left", "outcome", "win", "nation")
OPTIONAL_KEYS = {"root_value": np.nan}
"""Arrays added to the shards later, with the value older shards read as."""


def shard_path(root: str | Path, index: int) -> Path:
    return Path(root) / f"shard_{index:06d}.npz"


def write_shard(root: str | Path, index: int, arrays: dict) -> Path:
    """Write one shard atomically (a temporary file renamed into place)."""
    p = shard_path(root, index)
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        np.savez_compressed(f, **arrays)
    os.replace(tmp, p)
    return p


def shard_indices(root: str | Path) -> list[int]:
    """Indices of the complete shards in `root` (sorted)."""
    root = Path(root)
    if not root.is_dir():
        return []
    return sorted(int(m.group(1)) for m in (SHARD_RE.match(p.name) for p in root.iterdir()) if m)


def is_holdout(index: int, holdout_every: int) -> bool:
    return holdout_every > 0 and index % holdout_every == 0


class MissingArray(ValueError):
    """A shard written before an array it is asked for was recorded."""


def read_shard(root: str | Path, index: int, keys=RECORD_KEYS) -> dict:
    """The arrays `keys` of one shard; an OPTIONAL_KEYS array an older shard lacks is filled with its
    default (one per record); MissingArray for another array it lacks."""
    with np.load(shard_path(root, index)) as z:
        missing = [k for k in keys if k not in z.files and k not in OPTIONAL_KEYS]
        if missing:
            raise MissingArray(f"{shard_path(root, index)} has no {', '.join(missing)}: it was written before "
                               f"{'that was' if len(missing) == 1 else 'those were'} recorded; play the data again")
        out = {k: z[k] for k in keys if k in z.files or k not in OPTIONAL_KEYS}
        n = len(z["action"]) if len(out) < len(keys) else 0
    for k in keys:
        if k not in out:
            out[k] = np.full(n, OPTIONAL_KEYS[k], np.float32)
    return out


def observe_again(data: dict, obs_layout: str) -> np.ndarray:
    """The deciders' observations of loaded records in `obs_layout`, from their positions (`state`)
    and seats (float16, as `obs`)."""
    from v1919_env.core.observations import layout_of, observe_states
    from v1919_env.game import card_tables

    code, size = layout_of(obs_layout)
    out = np.empty((len(data["state"]), size), np.float32)
    observe_states(np.ascontiguousarray(data["state"]), card_tables(None)[1], data["seat"].astype(np.int64), out,
                   code)
    return out.astype(np.float16)


def load(root: str | Path, split: str = "train", holdout_every: int | None = None, max_records: int | None = None,
         keys=RECORD_KEYS, obs_layout: str | None = None) -> dict:
    """The records of the shards of one split ("train", "holdout" or "all") concatenated; the newest
    shards first when `max_records` cuts them (the freshest data of a growing buffer). With
    `obs_layout`, `obs` is observed again in that layout shard by shard (observe_again) from `state`,
    which is then dropped: the recorded full observations and the positions are never all in memory."""
    if split not in ("train", "holdout", "all"):
        raise ValueError(f"split: train, holdout or all, got {split!r}")
    if holdout_every is None:
        holdout_every = read_meta(root)["holdout_every"]
    idx = [i for i in shard_indices(root)
           if split == "all" or is_holdout(i, holdout_every) == (split == "holdout")]
    read_keys = keys if obs_layout is None else tuple(k for k in keys if k != "obs") + (
        () if "state" in keys else ("state",))
    parts, n = [], 0
    for i in reversed(idx):
        try:
            parts.append(read_shard(root, i, read_keys))
            if obs_layout is not None:
                parts[-1]["obs"] = observe_again(parts[-1], obs_layout)
                if "state" not in keys:
                    del parts[-1]["state"]
        except MissingArray:
            raise
        except (zipfile.BadZipFile, OSError, KeyError, ValueError) as e:
            raise ValueError(f"{shard_path(root, i)}: unreadable shard ({type(e).__name__}: {e}); delete it and "
                             f"resume the run to play it again") from None
        n += len(next(iter(parts[-1].values())))
        if max_records is not None and n >= max_records:
            break
    if not parts:
        raise ValueError(f"{root}: no {split} shards")
    parts.reverse()
    out = {k: concatenate_freeing(parts, k) for k in keys}
    if max_records is not None:
        out = {k: v[-max_records:] for k, v in out.items()}
    return out


def concatenate_freeing(parts: list[dict], key: str) -> np.ndarray:
    """np.concatenate of parts[i][key], each part's array dropped from its dict once copied (a buffer
    of millions of records is then never held twice)."""
    out = np.concatenate([p[key] for p in parts])
    for p in parts:
        del p[key]
    return out


def value_targets(data: dict, gamma: float, seats: bool = False) -> np.ndarray:
    """gamma ** left x outcome: the seat's discounted final reward, as PPO's return; with `seats`
    [R, MAX_PLAYERS]: every seat's (`outcomes`, the decider first), discounted by the decider's left."""
    d = np.power(gamma, data["left"].astype(np.float64))
    if seats:
        if "outcomes" not in data:
            raise ValueError("a value head per seat needs every seat's outcome (`outcomes`), which shards "
                             "written before it was recorded lack; play the data again")
        return (d[:, None] * data["outcomes"]).astype(np.float32)
    return (d * data["outcome"]).astype(np.float32)


def visit_targets(data: dict) -> np.ndarray:
    """The root visit distributions, float32 rows summing to 1."""
    v = data["visits"].astype(np.float32)
    return v / np.maximum(v.sum(1, keepdims=True), 1.0)


def write_atomic(path: str | Path, data: bytes | str) -> Path:
    """Write a file whole or not at all (a temporary file beside it, renamed into place): a run stopped
    mid-write leaves no half file for a resumed run to trust."""
    p = Path(path)
    tmp = p.with_name(f".{p.name}.{os.getpid()}.tmp")
    if isinstance(data, str):
        tmp.write_text(data)
    else:
        tmp.write_bytes(data)
    os.replace(tmp, p)
    return p


def write_meta(root: str | Path, meta: dict) -> None:
    Path(root).mkdir(parents=True, exist_ok=True)
    write_atomic(Path(root) / "meta.json", json.dumps(meta, indent=2, sort_keys=True))


def read_meta(root: str | Path) -> dict:
    p = Path(root) / "meta.json"
    if not p.is_file():
        raise ValueError(f"{root}: no meta.json (not a self-play data directory)")
    return json.loads(p.read_text())
