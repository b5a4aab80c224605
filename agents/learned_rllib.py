"""The `learned` agent's reader of RLlib checkpoints (`v1919 train-rllib`, training/rllib/backend.py).

`learned:path=DIR` with DIR an RLlib algorithm checkpoint (`checkpoints/iter_<N>/`; the module
`learner` inside it is played) or an RLModule checkpoint directory. The module is RLlib's
action-masking PPO module; its logits are masked again here, so an illegal id gets probability 0.
Needs ray[rllib] and torch (imported when the agent is built), one torch thread.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from v1919_env.actions import NUM_ACTIONS
from v1919_env.core.observe import OBS_SIZE

MODULE_ID = "learner"
MODULE_IN_ALGORITHM = Path("learner_group") / "learner" / "rl_module" / MODULE_ID
MODULE_FILE = "class_and_ctor_args.pkl"     # what every RLlib component checkpoint holds


def module_dir(path) -> Path:
    """The RLModule checkpoint inside `path` (an algorithm checkpoint or a module checkpoint)."""
    p = Path(path)
    for d in (p / MODULE_IN_ALGORITHM, p):
        if (d / MODULE_FILE).is_file() and any(d.glob("module_state*")):
            return d
    raise ValueError(f"{str(p)!r} is not an RLlib checkpoint: neither it nor {str(p / MODULE_IN_ALGORITHM)!r} "
                     f"holds an RLModule ({MODULE_FILE} and module_state)")


class RLlibPolicy:
    """An RLlib RLModule checkpoint as a masked action distribution."""

    def __init__(self, path):
        import torch
        from ray.rllib.core.rl_module.rl_module import RLModule

        torch.set_num_threads(1)
        d = module_dir(path)
        try:
            self.module = RLModule.from_checkpoint(str(d))
        except Exception as e:         # a damaged checkpoint, another library's files
            raise ValueError(f"cannot load {str(d)!r} as an RLlib RLModule: {type(e).__name__}: {e}") from e
        space = getattr(self.module, "observation_space", None)
        inner = getattr(space, "spaces", {}).get("observations")
        if inner is None or tuple(inner.shape) != (OBS_SIZE,):
            raise ValueError(f"{d}: the module observes {space}, this environment a dict with 'observations' "
                             f"of shape {(OBS_SIZE,)}")
        n = getattr(self.module.action_space, "n", None)
        if n != NUM_ACTIONS:
            raise ValueError(f"{d}: the module has {n} actions, this environment {NUM_ACTIONS}")
        self.module.eval()
        self._torch = torch

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The module's masked action distribution (zero on every illegal id)."""
        torch = self._torch
        batch = {"obs": {"observations": torch.as_tensor(np.asarray(observation, np.float32)[None]),
                         "action_mask": torch.as_tensor(np.asarray(action_mask, np.float32)[None])}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)["action_dist_inputs"][0].double().numpy()
        legal = action_mask != 0
        z = np.where(legal, logits, -np.inf)
        probs = np.exp(z - z[legal].max())
        return probs / probs.sum()
