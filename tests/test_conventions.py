"""The conventions users of PettingZoo, Gymnasium and SB3 expect (issue 20): typed package, metadata,
the version from the installed metadata, a versioned env module and ids that agree, and the README's
claims about SB3 (no `.unwrapped`, the progress bar, masked evaluation) and about `decode`."""
from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

import gymnasium
import pytest

import v1919_env
from v1919_env import actions, versailles1919_v4
from v1919_env.envs import versions

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_the_package_is_typed_and_ships_the_marker():
    assert (ROOT / "v1919_env" / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["v1919_env"]
    assert "Typing :: Typed" in PYPROJECT["project"]["classifiers"]


def test_metadata_has_classifiers_and_urls():
    project = PYPROJECT["project"]
    assert any(c.startswith("Topic :: Scientific/Engineering :: Artificial Intelligence") for c in project["classifiers"])
    assert project["urls"] and all(u.startswith("https://") for u in project["urls"].values())


def test_version_comes_from_the_installed_metadata():
    assert v1919_env.__version__ == metadata.version("v1919-env") == PYPROJECT["project"]["version"]


def test_the_versioned_module_and_every_id_carry_one_version():
    assert versailles1919_v4.__name__.endswith(f"_v{versions.ENV_VERSION}")
    assert versailles1919_v4.GYM_ID == f"Versailles1919-v{versions.ENV_VERSION}"
    assert versailles1919_v4.SELFPLAY_GYM_ID == f"Versailles1919SelfPlay-v{versions.ENV_VERSION}"
    for gym_id in (versions.GYM_ID, versions.SOLITAIRE_GYM_ID, versions.SELFPLAY_GYM_ID):
        assert gymnasium.spec(gym_id).id == gym_id
    env = versailles1919_v4.env(num_players=3)
    assert env.metadata["name"] == versions.AEC_NAME
    env.reset(seed=1)
    assert env.agent_selection in env.possible_agents
    assert versailles1919_v4.parallel_env(num_players=3).metadata["name"].endswith(f"_v{versions.ENV_VERSION}")
    doc = (ROOT / "docs" / "observation.md").read_text()
    assert f"Observation version {versions.OBSERVATION_VERSION} " in doc


def test_decode_gives_printed_card_numbers_as_the_docs_say():
    assert actions.decode(actions.encode("draft", strategy=3)).params["strategy"] == 3
    assert actions.decode(actions.encode("choose_issue", issue=53)).params["issue"] == 53
    doc = (ROOT / "docs" / "actions.md").read_text()
    assert "cards there are 0-based" not in doc and "`decode` gives the numbers `encode` takes" in doc


def test_maskable_ppo_trains_without_unwrapped_with_a_progress_bar_and_evaluates_masked(capsys):
    """README: `MaskablePPO("MultiInputPolicy", env)` on gym.make's wrapped env, `progress_bar=True`
    (the train extra brings rich), and sb3-contrib's evaluate_policy plays legal moves where SB3's
    own evaluate_policy plays unmasked and loses every game to the illegal-move penalty."""
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.evaluation import evaluate_policy as masked_evaluate
    from stable_baselines3.common.evaluation import evaluate_policy as sb3_evaluate

    env = gymnasium.make("Versailles1919-v4", num_players=3, seat=0, illegal_penalty=-5.0)
    model = MaskablePPO("MultiInputPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0)
    model.learn(64, progress_bar=True)
    masked, _ = masked_evaluate(model, env, n_eval_episodes=3, warn=False)
    unmasked, _ = sb3_evaluate(model, env, n_eval_episodes=3, warn=False)
    assert unmasked == -5.0                     # every episode ended by an illegal id
    assert -1.0 <= masked <= 1.0                 # whole games played: win/loss rewards only
