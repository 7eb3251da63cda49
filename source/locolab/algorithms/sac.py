"""Soft actor-critic: twin critics with soft-updated targets, a tanh-squashed Gaussian actor and a learned entropy
temperature, over n-step transitions (:mod:`locolab.offpolicy.nstep`) with an asymmetric critic.

rsl_rl has no off-policy algorithm; this one keeps rsl_rl's algorithm surface (``save``/``load``/``get_policy``/
``train_mode``/``eval_mode``/``learning_rate``) so LocoLab's runner machinery (atomic checkpoints, resume, the
non-finite update guard, evaluation, export) serves it as it serves PPO. Its own method is ``update(batch) ->
metrics``: one gradient step of critic, actor and temperature on one minibatch.

The actor is an rsl_rl ``MLPModel`` on the actor's observation set with a
:class:`~locolab.models.squashed_gaussian.SquashedGaussianDistribution`; the critics read the critic's observation
set (privileged terms included) and the action. Both normalise their observations with running statistics, updated
from the collected observations (not from replayed samples, which would count old data again).
"""

from __future__ import annotations

import copy
import math

import torch
from tensordict import TensorDict
from torch import nn

from rsl_rl.models import MLPModel

from locolab.distributed import average_gradients, broadcast_from_rank_zero
from locolab.models.q_function import TwinQFunction

DISTRIBUTION = "locolab.models.squashed_gaussian:SquashedGaussianDistribution"


class SAC:
    """Soft actor-critic on a replay buffer's minibatches (``obs``, ``action``, ``reward``, ``discount``,
    ``bootstrap_obs``: n-step transitions)."""

    def __init__(self, actor: MLPModel, critic: TwinQFunction, num_actions: int, gamma: float = 0.99,
                 tau: float = 0.01, actor_learning_rate: float = 3e-4, critic_learning_rate: float = 3e-4,
                 alpha_learning_rate: float = 3e-4, init_alpha: float = 0.01, target_entropy: float | None = None,
                 max_grad_norm: float = 10.0, mean_penalty: float = 0.0, mean_penalty_free: float = 0.0,
                 device: str = "cpu") -> None:
        self.device = device
        self.actor = actor.to(device)
        self.critic = critic.to(device)
        self.critic_target = copy.deepcopy(self.critic).requires_grad_(False)
        self.log_alpha = torch.tensor(math.log(init_alpha), device=device, requires_grad=True)
        self.gamma = gamma
        self.tau = tau
        self.initial_target_entropy = float(-num_actions if target_entropy is None else target_entropy)
        """The entropy target as configured; the runner's ``entropy_schedule`` moves ``target_entropy`` from it."""
        self.target_entropy = self.initial_target_entropy
        self.max_grad_norm = max_grad_norm
        self.mean_penalty = mean_penalty
        """Weight of the squared pre-squash mean in the actor's loss (:class:`~.sac_cfg.SacAlgorithmCfg`)."""
        self.mean_penalty_free = mean_penalty_free
        """Pre-squash means within this magnitude are not penalised; beyond it, the excess is squared."""
        self.actor_optimizer = torch.optim.Adam(self.actor.parameters(), lr=actor_learning_rate)
        self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=critic_learning_rate)
        self.alpha_optimizer = torch.optim.Adam([self.log_alpha], lr=alpha_learning_rate)
        self.learning_rate = actor_learning_rate
        """The actor's learning rate (logged as ``Loss/learning_rate``, like PPO's)."""
        self.action_std = torch.ones(num_actions, device=device)
        """Mean pre-squash standard deviation of the actor at its last update (logged as ``Policy/mean_std``)."""
        self.updates = 0
        self.log_scalars: dict[str, float] = {}
        """Logged to TensorBoard each iteration by the runner: the temperature, the mean Q of the last update and
        the number of updates so far."""

    @classmethod
    def from_config(cls, obs: TensorDict, num_actions: int, cfg: dict, device: str) -> SAC:
        """The algorithm a runner config (dict of :class:`~.sac_cfg.SacRunnerCfg`) describes."""
        actor_cfg, critic_cfg, alg_cfg = cfg["actor"], cfg["critic"], dict(cfg["algorithm"])
        actor = MLPModel(obs, cfg["obs_groups"], "actor", num_actions, actor_cfg["hidden_dims"],
                         actor_cfg["activation"], actor_cfg["obs_normalization"],
                         {"class_name": DISTRIBUTION, "init_std": actor_cfg["init_std"],
                          "action_bound": actor_cfg["action_bound"],
                          "init_mean_std": actor_cfg.get("init_mean_std"),
                          "action_bounds": actor_cfg.get("action_bounds")})
        critic = TwinQFunction(obs, cfg["obs_groups"]["critic"], num_actions, critic_cfg["hidden_dims"],
                               critic_cfg["activation"], critic_cfg["obs_normalization"],
                               critic_cfg.get("layer_norm", False))  # configs saved before it existed: none
        settings = {name: alg_cfg[name] for name in ("gamma", "tau", "actor_learning_rate", "critic_learning_rate",
                                                     "alpha_learning_rate", "init_alpha", "target_entropy",
                                                     "max_grad_norm")}
        for name in ("mean_penalty", "mean_penalty_free"):  # configs saved before they existed: none
            settings[name] = alg_cfg.get(name, 0.0)
        return cls(actor, critic, num_actions, device=device, **settings)

    @property
    def alpha(self) -> torch.Tensor:
        return self.log_alpha.exp()

    def sample(self, obs: TensorDict) -> tuple[torch.Tensor, torch.Tensor]:
        """Reparameterised actions and their log-densities."""
        distribution = self.actor.distribution
        distribution.update(self.actor.mlp(self.actor.get_latent(obs)))
        return distribution.rsample_with_log_prob()

    def update_normalization(self, obs: TensorDict) -> None:
        """Running observation statistics of actor and critic from newly collected observations ``[B, ...]``."""
        self.actor.update_normalization(obs)
        self.critic.update_normalization(obs)  # the targets take the statistics at their next soft update

    def update(self, batch: TensorDict) -> dict[str, float]:
        """One gradient step of the critics, the actor and the temperature, then the targets' soft update."""
        alpha = self.alpha.detach()
        with torch.no_grad():
            next_action, next_log_prob = self.sample(batch["bootstrap_obs"])
            next_q = torch.min(*self.critic_target(batch["bootstrap_obs"], next_action)) - alpha * next_log_prob
            target = batch["reward"] + batch["discount"] * next_q
        q1, q2 = self.critic(batch["obs"], batch["action"])
        critic_loss = 0.5 * ((q1 - target).square().mean() + (q2 - target).square().mean())
        self._step(self.critic_optimizer, critic_loss, self.critic)

        self.critic.requires_grad_(False)  # the actor's loss differentiates through the critics' inputs only
        action, log_prob = self.sample(batch["obs"])
        q = torch.min(*self.critic(batch["obs"], action))
        actor_loss = (alpha * log_prob - q).mean()
        if self.mean_penalty:  # the distribution is the one ``sample`` just drew from: batch["obs"]'s
            excess = (self.actor.distribution.mean.abs() - self.mean_penalty_free).clamp(min=0.0)
            actor_loss = actor_loss + self.mean_penalty * excess.square().mean()
        self._step(self.actor_optimizer, actor_loss, self.actor)
        self.critic.requires_grad_(True)

        alpha_loss = -(self.log_alpha * (log_prob.detach() + self.target_entropy)).mean()
        self._step(self.alpha_optimizer, alpha_loss)
        soft_update(self.critic_target, self.critic, self.tau)
        self.action_std = self.actor.distribution.std.detach().mean(dim=0)
        self.updates += 1
        self.log_scalars = {"SAC/temperature": alpha.item(), "SAC/q_value": q.mean().item(),
                            "SAC/updates": float(self.updates)}
        return {"value_function": critic_loss.item(), "surrogate": actor_loss.item(),
                "entropy": -log_prob.mean().item(), "temperature": alpha_loss.item()}

    def _step(self, optimizer: torch.optim.Optimizer, loss: torch.Tensor, module: nn.Module | None = None) -> None:
        """Backward, the gradients averaged over torchrun's ranks (if any), clip, step."""
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        average_gradients(module.parameters() if module is not None else [self.log_alpha])
        if module is not None and self.max_grad_norm > 0:
            nn.utils.clip_grad_norm_(module.parameters(), self.max_grad_norm)
        optimizer.step()

    def broadcast_parameters(self) -> None:
        """Rank 0's networks, targets and temperature on every rank (torchrun), before the first update."""
        modules = (self.actor, self.critic, self.critic_target)
        broadcast_from_rank_zero([*(value for module in modules for value in module.state_dict().values()),
                                  self.log_alpha])

    def get_policy(self) -> MLPModel:
        return self.actor

    def train_mode(self) -> None:
        self.actor.train()
        self.critic.train()

    def eval_mode(self) -> None:
        self.actor.eval()
        self.critic.eval()

    def save(self) -> dict:
        return {
            "actor_state_dict": self.actor.state_dict(),
            "critic_state_dict": self.critic.state_dict(),
            "critic_target_state_dict": self.critic_target.state_dict(),
            "log_alpha": self.log_alpha.detach().clone(),
            "actor_optimizer_state_dict": self.actor_optimizer.state_dict(),
            "critic_optimizer_state_dict": self.critic_optimizer.state_dict(),
            "alpha_optimizer_state_dict": self.alpha_optimizer.state_dict(),
            "sac": {"updates": self.updates, "learning_rate": self.learning_rate},
        }

    def load(self, loaded: dict, load_cfg: dict | None = None, strict: bool = True) -> bool:
        """Everything ``save`` wrote (a checkpoint of another agent is a KeyError); True: training resumes from it."""
        if "sac" not in loaded:
            raise KeyError("the checkpoint holds no SAC state (was it trained with --agent sac?)")
        self.actor.load_state_dict(loaded["actor_state_dict"], strict=strict)
        self.critic.load_state_dict(loaded["critic_state_dict"], strict=strict)
        self.critic_target.load_state_dict(loaded["critic_target_state_dict"], strict=strict)
        with torch.no_grad():
            self.log_alpha.copy_(loaded["log_alpha"])
        self.actor_optimizer.load_state_dict(loaded["actor_optimizer_state_dict"])
        self.critic_optimizer.load_state_dict(loaded["critic_optimizer_state_dict"])
        self.alpha_optimizer.load_state_dict(loaded["alpha_optimizer_state_dict"])
        self.updates = loaded["sac"]["updates"]
        self.learning_rate = loaded["sac"]["learning_rate"]
        return True


def soft_update(target: nn.Module, source: nn.Module, tau: float) -> None:
    """``target <- (1 - tau) target + tau source`` for parameters; buffers (normaliser statistics) are copied."""
    with torch.no_grad():
        for target_param, param in zip(target.parameters(), source.parameters()):
            target_param.lerp_(param, tau)
        for target_buffer, buffer in zip(target.buffers(), source.buffers()):
            target_buffer.copy_(buffer)
