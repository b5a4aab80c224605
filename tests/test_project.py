"""Project hygiene: the README's commands, CI, and import weight."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)\n```", readme, re.S)
    assert len(blocks) >= 2, "README needs the set-up command and the test command"
    test_cmd = blocks[1].strip()
    assert test_cmd in (ROOT / ".ci" / "run").read_text()
    assert "torch" not in blocks[0] or "torch==2.13.0" in (ROOT / "pyproject.toml").read_text()


def test_torch_is_pinned_exactly():
    assert '"torch==2.13.0"' in (ROOT / "pyproject.toml").read_text()


def test_core_and_envs_import_without_torch():
    code = ("import sys, v1919_env, v1919_env.game, v1919_env.envs.pettingzoo_env, v1919_env.envs.gymnasium_env\n"
            "print('torch' in sys.modules, 'stable_baselines3' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_cli_help():
    out = subprocess.run([sys.executable, "-m", "v1919_env.cli", "--help"], capture_output=True, text=True,
                         check=True)
    for cmd in ("demo", "bench", "data"):
        assert cmd in out.stdout


def test_demo_plays_a_full_game(capsys):
    from v1919_env.cli import main
    assert main(["demo", "--players", "3", "--seed", "1", "--no-log"]) == 0
    out = capsys.readouterr().out
    assert "GAME OVER" in out and "winner" in out


def test_generated_docs_are_current():
    from v1919_env.docs import observation_table
    assert (ROOT / "docs" / "observation.md").read_text() == observation_table()
