"""Issues 20 and 32: training configs (SB3 and RLlib) refuse what used to be accepted and fail later: an
empty config (a run of the default budget nobody asked for), an unknown variant, a seed numpy cannot
take, a number that is not finite, a name that is not a string, a truthy string for a bool, a device
this machine lacks, a minibatch larger than a rollout; each in one line that names the field."""
from __future__ import annotations

import pytest

from training.config import SEED_MAX, ConfigError, config_from_dict, load_config
from training.rllib.config import config_from_dict as rllib_config_from_dict
from training.rllib.config import load_config as rllib_load_config
from v1919_env import config_schema


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
    ({"variant": 3}, "variant: expected the name of a deck variant, got 3"),
    ({"seed": 10 ** 30}, f"seed: must be at most {SEED_MAX}, got {10 ** 30}"),
    ({"seed": SEED_MAX + 1}, f"seed: must be at most {SEED_MAX}, got 4294967296"),
    ({"seed": -1}, "seed: must be at least 0, got -1"),
    ({"seed": True}, "seed: expected an integer in 0..4294967295, got True"),
    ({"seed": 1.0}, "seed: expected an integer in 0..4294967295, got 1.0"),
    ({"ppo": {"gamma": float("nan")}}, "ppo.gamma: expected a finite number, got nan"),
    ({"budget": {"minutes": float("inf")}}, "budget.minutes: expected a finite number, got inf"),
    ({"name": []}, "name: expected a non-empty string"),
    ({"name": 1.5}, "name: expected a non-empty string"),
    ({"name": float("nan")}, "name: expected a non-empty string"),
    ({"name": ""}, "name: expected a non-empty string"),
    ({"evaluation": {"deterministic": "yes"}}, "evaluation.deterministic: expected true or false, got 'yes'"),
    ({"evaluation": {"rulebot": "yes"}}, "evaluation.rulebot: unknown key; known: every_"),
    ({"evaluation": {"opponents": "random"}}, "evaluation.opponents: expected a list of agent specs"),
    ({"reward": {"win_loss": 1.0, "score_margin": -0.5}}, "reward: reward weight of 'score_margin' must be 0 or more"),
    ({"reward": {"win_loss": float("nan")}}, "reward: reward weight of 'win_loss' must be a finite"),
    ({"num_players": True}, "num_players: expected "),
    ({"opponents": {"random": True}}, "opponents.random: expected a number, got True"),
    ({"policy": {"activation": "gelu"}}, "policy.activation: expected 'relu' or 'tanh', got 'gelu'"),
    ({"ppo": {"gamma": "0.9"}}, "ppo.gamma: expected a number, got '0.9'"),
    ({"ppo": 5}, "ppo: expected a mapping, got 5"),
])
def test_bad_values_name_the_field(build, raw, says):
    with pytest.raises(ConfigError, match="^" + says.replace("(", r"\(").replace("[", r"\[")):
        build(raw)


def test_the_edges_are_accepted():
    cfg = config_from_dict({"seed": SEED_MAX, "variant": "short15", "budget": {"minutes": 1}})
    assert cfg["seed"] == SEED_MAX and cfg["variant"] == "short15" and cfg["budget"]["minutes"] == 1
    assert rllib_config_from_dict({"seed": 0, "variant": "longest"})["variant"] == "longest"
    assert config_from_dict({"device": "auto"})["device"] == "auto"


def test_a_device_this_machine_lacks_is_refused():
    torch = pytest.importorskip("torch")
    n = torch.cuda.device_count()
    with pytest.raises(ConfigError, match=rf"^device: 'cuda:{n}': this machine has {n} CUDA device"):
        config_from_dict({"device": f"cuda:{n}"})
    with pytest.raises(ConfigError, match=r"^device: not a torch device"):
        config_from_dict({"device": "gpu7"})


def test_a_minibatch_larger_than_a_rollout_is_refused():
    ok = config_from_dict({"env": {"num_envs": 4}, "ppo": {"n_steps": 16, "batch_size": 64}})
    assert ok["ppo"]["batch_size"] == 64
    with pytest.raises(ConfigError, match=r"^ppo\.batch_size: at most a rollout \(ppo\.n_steps x env\.num_envs = "
                                          r"16 x 4 = 64\), got 65"):
        config_from_dict({"env": {"num_envs": 4}, "ppo": {"n_steps": 16, "batch_size": 65}})


def test_a_file_error_names_the_file_the_field_and_how_many_more(tmp_path):
    p = tmp_path / "two.yaml"
    p.write_text("name: []\nseed: -1\n")
    with pytest.raises(config_schema.ConfigError) as e:
        load_config(p)
    assert str(e.value) == f"{p}: name: expected a non-empty string, the run's name (its directory: " \
                           f"runs/<backend>/<name>), or null (the config file's stem), got [] (and 1 more error(s))"
    assert "\n" not in str(e.value)
