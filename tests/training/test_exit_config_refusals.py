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
    assert len(lines) == 1 and lines[0].startswith("error: variant: ") and "bogus" in lines[0], r.stderr
    assert "Traceback" not in r.stderr and not (tmp_path / "o").exists()
