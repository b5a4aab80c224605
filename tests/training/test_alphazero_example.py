"""The AlphaZero example on the lockstep search (training/examples/alphazero_lockstep.py): run as a real
script for a tiny budget, it plays, fits and evaluates; its self-play targets are visit distributions
over legal moves and every seat's final reward, the decider first."""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "training" / "examples" / "alphazero_lockstep.py"


@pytest.mark.parametrize("layout", ["full", "compact"])
def test_the_script_plays_fits_and_evaluates(tmp_path, layout):
    cmd = [sys.executable, str(SCRIPT), "--iterations", "1", "--games", "3", "--simulations", "4",
           "--eval-deals", "1", "--epochs", "1", "--obs-layout", layout]
    r = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert re.search(r"^iteration 0: vs 3 random [\d.]+% \[[\d.]+%, [\d.]+%\] of 4 games \(untrained\)$", r.stdout, re.M)
    m = re.search(r"^iteration 1: ([\d,]+) searched decisions in \d+ s \([\d,]+/s\), loss ([\d.]+), vs 3 random "
                  r"[\d.]+% \[[\d.]+%, [\d.]+%\] of 4 games$", r.stdout, re.M)
    assert m and int(m.group(1).replace(",", "")) > 100, r.stdout


def test_self_play_targets():
    spec = importlib.util.spec_from_file_location("alphazero_lockstep", SCRIPT)
    az = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(az)
    torch.manual_seed(0)
    obs, pis, masks, values = az.self_play(az.Net(hidden=32), 2, 4, seed=5)
    assert len(obs) == len(pis) == len(masks) == len(values) > 100 and obs.shape[1] == 2032
    assert az.self_play(az.Net(hidden=32, obs_layout="compact"), 1, 4, seed=5)[0].shape[1] == 1596
    assert np.allclose(pis.sum(1), 1.0) and not (pis * ~masks).any()
    assert (np.abs(values) <= 1).all() and (values.max(1) > 0).all()        # win_loss: someone won
    assert (values[:, 0] == values[:, 0]).all() and values.shape[1] == 4
