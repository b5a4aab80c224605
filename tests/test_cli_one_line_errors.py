"""Issue 32, raw tracebacks that become one-line errors with a nonzero exit: an --out that is a file
(train, tournament), a bad --address for train-rllib, and a tournament config whose own agent fails
in its constructor, its close() or its module's import."""
from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from v1919_env.cli import main
from helpers.cli import one_line_error as _one_line_error

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def a_file(tmp_path) -> Path:
    f = tmp_path / "existing_file"
    f.write_text("not a directory\n")
    return f


def _tournament(tmp_path, agents: str = "[random, rulebot]", modules: str = "[]") -> Path:
    cfg = tmp_path / "t.yaml"
    cfg.write_text(f"num_players: 2\ngames: 2\nworkers: 0\nmodules: {modules}\nagents: {agents}\n")
    return cfg


def test_train_out_that_is_a_file(capsys, a_file):
    assert main(["train", str(ROOT / "configs/train/smoke.yaml"), "--out", str(a_file)]) == 2
    _one_line_error(capsys, str(a_file), "is a file, not a run directory")
    assert a_file.read_text() == "not a directory\n"


def test_train_out_under_a_file(capsys, a_file):
    assert main(["train", str(ROOT / "configs/train/smoke.yaml"), "--out", str(a_file / "run")]) == 2
    _one_line_error(capsys, str(a_file / "run"), "Not a directory")


def test_tournament_out_that_is_a_file(tmp_path, capsys, a_file):
    assert main(["tournament", str(_tournament(tmp_path)), "--out", str(a_file), "--no-progress"]) == 2
    _one_line_error(capsys, str(a_file), "is a file, not a tournament directory")
    assert a_file.read_text() == "not a directory\n"


def test_tournament_out_under_a_file(tmp_path, capsys, a_file):
    assert main(["tournament", str(_tournament(tmp_path)), "--out", str(a_file / "t"), "--no-progress"]) == 2
    _one_line_error(capsys, f"cannot write the tournament directory {a_file / 't'}")


def test_ladder_out_that_is_a_file(tmp_path, capsys, a_file):
    assert main(["ladder", str(_tournament(tmp_path)), "--out", str(a_file), "--no-progress"]) == 2
    _one_line_error(capsys, str(a_file), "is a file, not a tournament directory")


@pytest.mark.parametrize("address", ["bogus", "host:0", "host:99999", "a b:6379", "http://x/:1"])
def test_train_rllib_refuses_a_bad_address_before_ray(capsys, address):
    assert main(["train-rllib", str(ROOT / "configs/train/rllib_smoke.yaml"), "--address", address]) == 2
    _one_line_error(capsys, "--address: expected auto or HOST:PORT", repr(address))


BOOM = """
    import sys
    from agents.base import Agent, register

    @register("{name}_init")
    class Init(Agent):
        def __init__(self, depth=1):
            raise RuntimeError("no GPU here")
        def act(self, o, m, g=None): return 0

    @register("{name}_exit")
    class Exit(Agent):
        def __init__(self):
            sys.exit(3)
        def act(self, o, m, g=None): return 0

    @register("{name}_close")
    class Close(Agent):
        def act(self, o, m, g=None): return 0
        def close(self): raise OSError("close failed")
"""


@pytest.fixture
def boom(tmp_path, monkeypatch) -> str:
    """A module of agents that fail as they are built or closed (a fresh name per test)."""
    name = f"boom_{abs(hash(str(tmp_path))) % 10 ** 8}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(BOOM.format(name=name)))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


@pytest.mark.parametrize("which, says", [
    ("init", "agents[1]: building agent '{name}_init' raised RuntimeError: no GPU here"),
    ("exit", "agents[1]: building agent '{name}_exit' raised SystemExit: 3"),
    ("close", "agents[1]: agent '{name}_close': close() raised OSError: close failed")])
def test_a_module_agent_that_fails_to_build_is_a_one_line_error(tmp_path, capsys, boom, which, says):
    cfg = _tournament(tmp_path, f"[random, {boom}_{which}]", f"[{boom}]")
    assert main(["tournament", str(cfg), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    _one_line_error(capsys, f"{cfg}: " + says.format(name=boom))
    assert not (tmp_path / "out").exists()


def test_a_module_that_exits_on_import_is_a_one_line_error(tmp_path, capsys, monkeypatch):
    (tmp_path / "exits_on_import.py").write_text("import sys\nsys.exit(4)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    cfg = _tournament(tmp_path, modules="[exits_on_import]")
    assert main(["tournament", str(cfg), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    _one_line_error(capsys, f"{cfg}: modules[0]: cannot import 'exits_on_import': SystemExit: 4")
