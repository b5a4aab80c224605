"""The self-play, fit, rounds and distill configs (training.selfplay, training.fit, training.exit_rounds,
training.distill) are
refused up front in the one format of every config kind (v1919_env.config_schema): one line naming
the file and the field, a nonzero exit, before any game is played or any folder made (issues 32, 43)."""
from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from training import distill, exit_rounds, fit, selfplay  # noqa: E402
from v1919_env.config_schema import ConfigError  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
LOADERS = {"selfplay": selfplay.load_config, "fit": fit.load_config, "rounds": exit_rounds.load_config,
           "distill": distill.load_config}
MODULES = {"selfplay": "training.selfplay", "fit": "training.fit", "rounds": "training.exit_rounds",
           "distill": "training.distill"}


@pytest.mark.parametrize("kind, raw, field", [
    ("selfplay", {"games": 0}, "games"), ("selfplay", {"variant": "bogus"}, "variant"),
    ("selfplay", {"reward": "bogus"}, "reward"), ("selfplay", {"reward": {"win_loss": "x"}}, "reward"),
    ("selfplay", {"name": "a/b"}, "name"), ("selfplay", {"name": ""}, "name"), ("selfplay", {"seed": -1}, "seed"),
    ("selfplay", {"seats": {"teacher": 0.5}}, "seats"), ("selfplay", {"search": {"iterations": 0}}, "search"),
    ("selfplay", {"network_temperature": math.nan}, "network_temperature"),
    ("fit", {"arch": {"trunk": [0]}}, r"arch.trunk\[0\]"), ("fit", {"arch": {"trunk": [-5]}}, r"arch.trunk\[0\]"),
    ("fit", {"arch": {"pi": [64, 0]}}, r"arch.pi\[1\]"), ("fit", {"device": "bogus"}, "device"),
    ("fit", {"device": "cuda:7"}, "device"), ("fit", {"seed": 10 ** 30}, "seed"), ("fit", {"epochs": True}, "epochs"),
    ("fit", {"target": "nope"}, "target"), ("fit", {"init": "/nonexistent.zip"}, "init"),
    ("rounds", {"rounds": 0}, "rounds"), ("rounds", {"evaluation": {"games": 3}}, "evaluation.games"),
    ("rounds", {"evaluation": {"rulebot": 1}}, "evaluation.rulebot"), ("rounds", {"window": "2"}, "window"),
    ("rounds", {"teacher": {"games": 4}}, "teacher"), ("rounds", {"fit": {"epochs": 0}}, "fit"),
    ("distill", {"seed": 10 ** 30}, "seed"), ("distill", {"buffer": 0}, "buffer"),
    ("distill", {"device": "bogus"}, "device"), ("distill", {"arch": {"pi": [64, 0]}}, r"arch.pi\[1\]"),
    ("distill", {"decisions": True}, "decisions"), ("distill", {"updates_per_step": -1}, "updates_per_step"),
])
def test_bad_values_are_refused_naming_the_field(kind, raw, field):
    if kind == "fit" and field == "device":
        pytest.importorskip("torch")
        import torch

        if torch.cuda.device_count() > 7:
            pytest.skip("this machine has a cuda:7")
    with pytest.raises(ConfigError, match=rf"^{field}[:\s]"):
        LOADERS[kind](raw=raw)


@pytest.mark.parametrize("kind", sorted(LOADERS))
def test_errors_from_a_file_name_the_file_and_the_field_in_the_common_words(kind, tmp_path):
    cfg = tmp_path / "x.yaml"
    cfg.write_text("seed: -1\n")
    with pytest.raises(ConfigError, match=rf"^{cfg}: seed: must be at least 0, got -1$"):
        LOADERS[kind](cfg)
    cfg.write_text("[1, 2]\n")
    with pytest.raises(ConfigError, match=rf"^{cfg}: expected a mapping"):
        LOADERS[kind](cfg)
    cfg.write_text("")
    with pytest.raises(ConfigError, match=rf"^{cfg}: the config is empty"):
        LOADERS[kind](cfg)
    with pytest.raises(ConfigError, match="cannot read"):
        LOADERS[kind](tmp_path / "missing.yaml")


@pytest.mark.parametrize("kind", sorted(LOADERS))
def test_the_name_defaults_to_the_file_stem(kind, tmp_path):
    cfg = tmp_path / "my_run.yaml"
    cfg.write_text("seed: 3\n")
    assert LOADERS[kind](cfg).name == "my_run"
    assert LOADERS[kind](raw={}).name == kind


def _cli(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("kind", sorted(MODULES))
def test_the_commands_refuse_an_empty_file_at_once(kind, tmp_path):
    cfg = tmp_path / "empty.yaml"
    cfg.write_text("")
    r = _cli(MODULES[kind], str(cfg), "--out", str(tmp_path / "o"))
    lines = r.stderr.strip().splitlines()
    assert r.returncode != 0 and len(lines) == 1 and lines[0].startswith(f"error: {cfg}: the config is empty"), r.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("kind", sorted(MODULES))
@pytest.mark.parametrize("out, says", [("FILE", "is a file, not a folder"), ("/proc/version", "is a file, not a folder"),
                                       ("/proc/version/x", "cannot make a folder there")])
def test_the_commands_refuse_an_out_that_cannot_be_a_folder(kind, out, says, tmp_path):
    if out == "FILE":
        out = tmp_path / "f"
        out.write_text("keep me\n")
    cfg = tmp_path / "c.yaml"
    cfg.write_text({"selfplay": "games: 4\n", "fit": "data: [/nonexistent]\n", "rounds": "games: 4\n",
                    "distill": "games: 4\n"}[kind])
    r = _cli(MODULES[kind], str(cfg), "--out", str(out))
    lines = r.stderr.strip().splitlines()
    assert r.returncode != 0 and len(lines) == 1 and lines[0].startswith(f"error: --out: {out}") and says in lines[0], \
        r.stderr
    if isinstance(out, Path):
        assert out.read_text() == "keep me\n"


def test_rounds_refuses_a_bad_ray_address_before_any_game(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("games: 4\n")
    r = _cli("training.exit_rounds", str(cfg), "--out", str(tmp_path / "o"), "--ray", "bogus:addr:x")
    assert r.returncode != 0 and "--ray" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not (tmp_path / "o").exists()


def test_fit_refuses_an_evaluation_of_partial_deals_before_fitting(tmp_path):
    data = tmp_path / "sp"
    data.mkdir()
    (data / "meta.json").write_text('{"config": {"num_players": 4, "search": {}}, "holdout_every": 10}')
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"data: [{data}]\n")
    r = _cli("training.fit", str(cfg), "--out", str(tmp_path / "o"), "--evaluate", "3")
    assert r.returncode != 0 and "--evaluate: a multiple of the player count 4" in r.stderr, r.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("flag", [["--minutes", "0"], ["--minutes", "nan"], ["--evaluate", "-4"]])
def test_distill_refuses_a_bad_flag_before_any_game(flag, tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("games: 4\n")
    r = _cli("training.distill", str(cfg), "--out", str(tmp_path / "o"), *flag)
    lines = r.stderr.strip().splitlines()
    assert r.returncode != 0 and len(lines) == 1 and lines[0].startswith(f"error: {flag[0]}"), r.stderr
    assert not (tmp_path / "o").exists()
