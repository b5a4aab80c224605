"""Issue 20: training configs (SB3 and RLlib) refuse what used to be accepted and fail later: an empty
config (a run of the default budget nobody asked for), an unknown variant, a seed numpy cannot take,
a number that is not finite."""
from __future__ import annotations

import pytest

from training.config import SEED_MAX, ConfigError, config_from_dict, load_config
from training.rllib.config import config_from_dict as rllib_config_from_dict
from training.rllib.config import load_config as rllib_load_config


@pytest.mark.parametrize("load", [load_config, rllib_load_config], ids=["sb3", "rllib"])
@pytest.mark.parametrize("text", ["", "{}\n", "# nothing but a comment\n"])
def test_an_empty_config_file_is_refused(tmp_path, load, text):
    path = tmp_path / "empty.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=r"empty\.yaml: the config is empty; .* mapping of the keys name, seed"):
        load(path)


@pytest.mark.parametrize("build", [config_from_dict, rllib_config_from_dict], ids=["sb3", "rllib"])
@pytest.mark.parametrize("raw, says", [
    ({"variant": "bogus"}, "variant: unknown variant 'bogus'"),
    ({"variant": 3}, "variant: unknown variant 3"),
    ({"seed": 10 ** 30}, f"seed: {10 ** 30} is out of range"),
    ({"seed": SEED_MAX + 1}, "seed: 4294967296 is out of range"),
    ({"seed": -1}, "seed: -1 is out of range"),
    ({"ppo": {"gamma": float("nan")}}, "ppo.gamma: expected a finite number"),
    ({"budget": {"minutes": float("inf")}}, "budget.minutes: expected a finite number or null"),
])
def test_bad_values_name_the_field(build, raw, says):
    with pytest.raises(ConfigError, match=f"^{says}".replace("(", r"\(")):
        build(raw)


def test_the_edges_are_accepted():
    cfg = config_from_dict({"seed": SEED_MAX, "variant": "short15"})
    assert cfg["seed"] == SEED_MAX and cfg["variant"] == "short15"
    assert rllib_config_from_dict({"seed": 0, "variant": "longest"})["variant"] == "longest"
