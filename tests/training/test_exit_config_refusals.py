"""The expert-iteration loader refuses a bad variant or name up front (issue 32): a one-line error
naming the field and a nonzero exit, before any game is played."""
from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from training.expert_iteration import ExItConfigError, load_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("raw, field", [
    ({"variant": "bogus"}, "variant"), ({"variant": 1.5}, "variant"), ({"variant": None}, "variant"),
    ({"name": []}, "name"), ({"name": 1.5}, "name"), ({"name": math.nan}, "name"), ({"name": ""}, "name"),
    ({"name": "a/b"}, "name"), ({"init": ["x"]}, "init")])
def test_bad_variant_or_name_is_refused_naming_the_field(raw, field):
    with pytest.raises(ExItConfigError, match=rf"^{field}: "):
        load_config(raw=raw)


def test_good_variants_and_names_pass():
    for v in ("standard", "longer", "short15"):
        assert load_config(raw={"variant": v, "name": "run_1.a-b"})["variant"] == v


def test_the_cli_exits_at_once_with_one_line(tmp_path):
    cfg = tmp_path / "bad.yaml"
    cfg.write_text("variant: bogus\ngames: 2\n")
    r = subprocess.run([sys.executable, "-m", "training.expert_iteration", str(cfg), "--out", str(tmp_path / "o")],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode != 0
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {cfg}: variant: ") and "bogus" in lines[0], r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "o").exists()


@pytest.mark.parametrize("raw, field", [
    ({"evaluation": {"rulebot": "yes"}}, "evaluation.rulebot"), ({"gamma": math.nan}, "gamma"),
    ({"reward": "bogus"}, "reward"), ({"reward": {"win_loss": 1, "rank": -0.5}}, "reward"), ({"search": 3}, "search"), ({"fit": {"epochs": True}}, "fit.epochs"),
    ({"seed": -1}, "seed"), ({"torch_threads": 0}, "torch_threads")])
def test_bad_values_are_refused_naming_the_field(raw, field):
    with pytest.raises(ExItConfigError, match=rf"^{field}: "):
        load_config(raw=raw)


def test_errors_from_a_file_name_the_file_and_the_field(tmp_path):
    cfg = tmp_path / "x.yaml"
    cfg.write_text("games: 4\nfit: {holdout: 2}\n")
    with pytest.raises(ExItConfigError, match=rf"^{cfg}: fit.holdout: must be at most 0.9, got 2$"):
        load_config(cfg)
    cfg.write_text("[1, 2]\n")
    with pytest.raises(ExItConfigError, match=rf"^{cfg}: expected a mapping"):
        load_config(cfg)
    with pytest.raises(ExItConfigError, match="cannot read"):
        load_config(tmp_path / "missing.yaml")


def test_the_search_options_merge_over_the_defaults():
    cfg = load_config(raw={"search": {"iterations": 8}, "name": "n"})
    assert cfg["search"] == {"iterations": 8, "batch_size": 16, "c_puct": 1.5, "fpu": 0.2} and cfg["name"] == "n"
    assert load_config(raw={})["name"] == "exit"
