"""The PPO learner of `v1919 train-rllib`: RLlib's torch PPO learner, with SB3's Adam epsilon and
without the sampled distributions when the KL term is off.

Adam's epsilon is 1e-5, as in SB3's (Maskable)PPO policies (RLlib's default is torch's 1e-8): the
two backends then take the same steps from the same gradients (docs/rllib.md, the parity runs).

RLlib's PPO loss builds the sampling-time action distribution from `batch["action_dist_inputs"]`
even when it does not use it (the KL term, `use_kl_loss`). Those are NUM_ACTIONS float32 logits per
env step (2.8 KB; 45 MB per 16k-step batch, shipped from every env runner); the env runner
(training/rllib/runner.py) keeps them only when `ppo.kl_coeff` > 0, and without them this learner
passes a one-action placeholder (zeros of shape [batch, 1]) in their place: the loss is the same,
since the previous distribution is read by the KL term alone, and building the placeholder's
distribution costs nothing (the full logits' would be a logsumexp over 694 actions per minibatch:
about 7% of an iteration).
"""
from __future__ import annotations

import torch
from ray.rllib.algorithms.ppo.torch.ppo_torch_learner import PPOTorchLearner
from ray.rllib.core.columns import Columns

ADAM_EPS = 1e-5          # SB3's PPO default


class VectorPPOTorchLearner(PPOTorchLearner):
    def configure_optimizers_for_module(self, module_id, config=None) -> None:
        params = self.get_parameters(self._module[module_id])
        self.register_optimizer(module_id=module_id, optimizer=torch.optim.Adam(params, eps=ADAM_EPS),
                                params=params, lr_or_lr_schedule=config.lr)

    def compute_loss_for_module(self, *, module_id, config, batch, fwd_out):
        if Columns.ACTION_DIST_INPUTS not in batch:
            if config.use_kl_loss:
                raise ValueError("the PPO KL term (ppo.kl_coeff > 0) needs the sampled action distributions; "
                                 "the env runners ship them only when the config's kl_coeff is above 0")
            logits = fwd_out[Columns.ACTION_DIST_INPUTS]
            batch = {**batch, Columns.ACTION_DIST_INPUTS: logits.new_zeros((logits.shape[0], 1))}
        return super().compute_loss_for_module(module_id=module_id, config=config, batch=batch, fwd_out=fwd_out)
