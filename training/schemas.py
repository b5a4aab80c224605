"""The JSON Schema of each config kind, generated from its pydantic model (v1919_env/config_schema.py)
into configs/schema/, so an editor checks a YAML config as it is typed (docs/training.md says how).

    python -m training.schemas            # (re)write configs/schema/*.schema.json
    python -m training.schemas --check    # exit 1, naming the files, when they differ from the models

A test (tests/test_config_schemas.py) keeps the committed files equal to what the models generate,
and every shipped config valid under its loader. The schema checks the shape (keys, types, ranges,
choices); the loader also checks what needs the code (agents that build, a variant of the card set,
rules across fields), so a file the editor accepts can still be refused with the field named.
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_DIR = ROOT / "configs" / "schema"
DIALECT = "https://json-schema.org/draft/2020-12/schema"

# kind: (the model, the loader, a title, the shipped configs of the kind (globs under configs/))
KINDS = {
    "train": ("training.config:TrainConfig", "training.config:load_config",
              "v1919 training config (v1919 train)", ["train/*.yaml", "experiments/train/*.yaml"]),
    "rllib": ("training.rllib.config:RLlibConfig", "training.rllib.config:load_config",
              "v1919 RLlib training config (v1919 train-rllib)", ["train/rllib_*.yaml"]),
    "tournament": ("agents.arena.tournament.config:TournamentFile", "agents.arena.tournament.config:load_config",
                   "v1919 tournament or ladder config (v1919 tournament, v1919 ladder)",
                   ["tournament/*.yaml", "ladder/*.yaml", "experiments/*.yaml"]),
    "selfplay": ("training.selfplay:SelfPlayConfig", "training.selfplay:load_config",
                 "v1919 self-play data config (python -m training.selfplay)",
                 ["expert_iteration/selfplay_*.yaml", "experiments/expert_iteration/teacher/*.yaml"]),
    "fit": ("training.fit:FitConfig", "training.fit:load_config", "v1919 fit config (python -m training.fit)",
            ["expert_iteration/fit_*.yaml", "experiments/expert_iteration/fit/*.yaml"]),
    "distill": ("training.distill:DistillConfig", "training.distill:load_config",
                "v1919 distillation config (python -m training.distill)", ["experiments/distill/*.yaml"]),
    "rounds": ("training.exit_rounds:RoundsConfig", "training.exit_rounds:load_config",
               "v1919 expert-iteration rounds config (python -m training.exit_rounds)",
               ["expert_iteration/rounds_*.yaml", "experiments/expert_iteration/rounds/*.yaml"]),
}


def _object(ref: str):
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


def loader(kind: str):
    """The function that reads and checks a config file of `kind`."""
    return _object(KINDS[kind][1])


def kind_of(path) -> str | None:
    """The kind of a shipped config file under configs/ (the most specific glob that matches: an
    rllib_*.yaml in configs/train/ is an RLlib config), or None."""
    path = Path(path).resolve()
    if not path.is_relative_to(ROOT / "configs"):
        return None
    rel = path.relative_to(ROOT / "configs")
    hits = [(len(g), k) for k, (_, _, _, globs) in KINDS.items() for g in globs if rel.match(g)]
    return max(hits)[1] if hits else None


def schema(kind: str) -> dict:
    """The JSON Schema of a config kind, as written to configs/schema/<kind>.schema.json."""
    model_ref, _, title, _ = KINDS[kind]
    body = _object(model_ref).model_json_schema(by_alias=True, mode="validation")
    return {"$schema": DIALECT, "title": title, **{k: v for k, v in body.items() if k != "title"}}


def text(kind: str) -> str:
    return json.dumps(schema(kind), indent=2, ensure_ascii=False) + "\n"


def path_of(kind: str) -> Path:
    return SCHEMA_DIR / f"{kind}.schema.json"


def stale() -> list[Path]:
    """The schema files that differ from what the models generate now (or are missing)."""
    return [path_of(k) for k in KINDS if not path_of(k).is_file() or path_of(k).read_text(encoding="utf-8") != text(k)]


def _show(p: Path) -> str:
    return str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else str(p)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.schemas", description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file is stale")
    args = ap.parse_args(argv)
    bad = stale()
    if args.check:
        for p in bad:
            print(f"stale: {_show(p)} (run python -m training.schemas)", file=sys.stderr)
        return 1 if bad else 0
    SCHEMA_DIR.mkdir(parents=True, exist_ok=True)
    for k in KINDS:
        path_of(k).write_text(text(k), encoding="utf-8")
        print(f"{'wrote' if path_of(k) in bad else 'unchanged'}: {_show(path_of(k))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
