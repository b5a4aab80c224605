"""The configs' JSON Schemas (configs/schema/, training/schemas.py) and the shipped configs (issue 32):
the committed schema files are what the pydantic models generate now (they cannot drift), every
shipped config under configs/ is read by its loader without an error, and passes its kind's JSON
Schema (what an editor checks as it is typed)."""
from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest
import yaml

from training import schemas

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "configs"
SHIPPED = sorted(p for p in CONFIGS.rglob("*.yaml") if schemas.SCHEMA_DIR not in p.parents)

def _loader(path: Path):
    kind = schemas.kind_of(path)
    return None if kind is None else schemas.loader(kind)


def _id(p: Path) -> str:
    return str(p.relative_to(CONFIGS))


@pytest.mark.parametrize("kind", sorted(schemas.KINDS))
def test_the_committed_schema_is_what_the_model_generates(kind):
    path = schemas.path_of(kind)
    assert path.is_file(), f"{path} is missing: run python -m training.schemas"
    assert path.read_text(encoding="utf-8") == schemas.text(kind), \
        f"{path.relative_to(ROOT)} is stale: run python -m training.schemas"


def test_the_schema_folder_holds_one_file_per_kind():
    assert sorted(p.name for p in schemas.SCHEMA_DIR.iterdir()) == sorted(f"{k}.schema.json" for k in schemas.KINDS)


def test_the_kinds_of_the_shipped_folders():
    assert schemas.kind_of(CONFIGS / "train" / "smoke.yaml") == "train"
    assert schemas.kind_of(CONFIGS / "train" / "rllib_smoke.yaml") == "rllib"
    assert schemas.kind_of(CONFIGS / "tournament" / "quick.yaml") == "tournament"
    assert schemas.kind_of(CONFIGS / "ladder" / "ladder_4p.yaml") == "tournament"
    assert schemas.kind_of(CONFIGS / "experiments" / "goals_4p.yaml") == "tournament"
    for kind, one_experiment in (("selfplay", "teacher/teacher_4p.yaml"), ("fit", "fit/fit_4p_r1.yaml"),
                                 ("rounds", "rounds/rounds_4p_s1.yaml")):
        assert schemas.kind_of(CONFIGS / "expert_iteration" / f"{kind}_4p.yaml") == kind
        assert schemas.kind_of(CONFIGS / "experiments" / "expert_iteration" / one_experiment) == kind
    assert schemas.kind_of(ROOT / "README.md") is None


def test_one_config_a_user_starts_from_per_kind_of_expert_iteration_run():
    assert sorted(p.name for p in (CONFIGS / "expert_iteration").iterdir()) == [
        "fit_4p.yaml", "rounds_4p.yaml", "selfplay_4p.yaml"]


def test_there_are_shipped_configs_of_every_kind():
    kinds = {schemas.kind_of(p) for p in SHIPPED}
    assert set(schemas.KINDS) <= kinds and None not in kinds and len(SHIPPED) >= 60


@pytest.mark.parametrize("path", SHIPPED, ids=_id)
def test_every_shipped_config_is_read_by_its_loader(path):
    load = _loader(path)
    assert load is not None, f"{_id(path)}: no loader knows this folder (add it to training/schemas.py KINDS)"
    assert load(path) is not None


@pytest.mark.parametrize("path", SHIPPED, ids=_id)
def test_every_shipped_config_passes_its_json_schema(path):
    import jsonschema
    schema = json.loads(schemas.path_of(schemas.kind_of(path)).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    errors = [f"{list(e.absolute_path)}: {e.message}"
              for e in jsonschema.Draft202012Validator(schema).iter_errors(yaml.safe_load(path.read_text()))]
    assert not errors, errors


@pytest.mark.parametrize("kind, bad", [
    ("train", {"name": "x", "ppo": {"batch_sise": 64}}), ("train", {"name": "x", "evaluation": {"deterministic": "yes"}}),
    ("rllib", {"name": "x", "num_players": 1}), ("tournament", {"num_players": 4, "games": 0, "agents": ["random"]}),
    ("selfplay", {"games": 0}), ("selfplay", {"seats": {"teacher": "all"}}), ("fit", {"arch": {"trunk": [0]}}),
    ("fit", {"target": "bogus"}), ("rounds", {"evaluation": {"games": -4}}), ("rounds", {"window": "2"})])
def test_the_json_schema_and_the_loader_both_refuse_a_bad_config(kind, bad, tmp_path):
    import jsonschema
    from v1919_env.config_schema import ConfigError

    schema = json.loads(schemas.path_of(kind).read_text(encoding="utf-8"))
    assert not jsonschema.Draft202012Validator(schema).is_valid(bad)
    f = tmp_path / "bad.yaml"
    f.write_text(yaml.safe_dump(bad))
    with pytest.raises(ConfigError, match=rf"^{f}: "):
        schemas.loader(kind)(f)


def test_the_generator_writes_and_checks(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(schemas, "SCHEMA_DIR", tmp_path / "schema")
    assert schemas.main(["--check"]) == 1                  # nothing there yet: every file stale
    assert "stale: " in capsys.readouterr().err
    assert schemas.main([]) == 0
    assert sorted(p.name for p in (tmp_path / "schema").iterdir()) == sorted(f"{k}.schema.json" for k in schemas.KINDS)
    assert schemas.main(["--check"]) == 0
    (tmp_path / "schema" / "train.schema.json").write_text("{}\n")
    assert schemas.main(["--check"]) == 1 and schemas.stale() == [tmp_path / "schema" / "train.schema.json"]
