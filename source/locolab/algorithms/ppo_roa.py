"""PPO-ROA: teacher-student Regularized Online Adaptation as an rsl_rl algorithm.

Extends rsl_rl's :class:`~rsl_rl.algorithms.PPO` and is driven unchanged by its OnPolicyRunner and RolloutStorage:
time-out bootstrapping (``process_env_step``) and GAE (``compute_returns``) are PPO's own. What ROA adds:

- modules: ``encoder_priv`` (privileged observations -> z), ``actor`` (teacher, acts on z), ``adapt_module``
  (proprioceptive history -> z_hat), ``adapt_ema`` (its exponential moving average), ``actor_adapt`` (student, acts
  on adapt_ema's z_hat) and the asymmetric ``critic``;
- phase ``train``: the teacher acts; PPO on actor + encoder_priv + critic with the regulariser
  lambda(t) * ||z - sg(z_hat)||, lambda ramped linearly over an iteration window; then adapt_module regresses sg(z)
  and actor_adapt, fed z_hat, distils the teacher's action mean, each with its own optimizer; then the EMA update
  (z_hat is adapt_module's estimate, computed once per transition during the rollout and stored with it);
- phase ``finetune``: the student acts; PPO on actor_adapt + critic; encoder_priv and actor frozen; adapt_module
  keeps regressing z; EMA update;
- rsl_rl's symmetry augmentation (``symmetry_cfg``) in the PPO epochs: each minibatch gets its mirrored copy (every
  observation group the PPO losses read, the privileged terms included), as rsl_rl's PPO does; the regulariser, the KL
  and the entropy are taken on the original samples (a stored z_hat has no mirror image).

The PPO epochs never run the history encoders: the student reads the z_hat stored with each transition (and, for the
mirrored copies, one estimate per update from the mirrored histories), and the histories, which only the adaptation
modules read, are left out of the PPO minibatches; in phase train the teacher and the regulariser share one
encoder_priv pass per minibatch. Measured on 2 cores (512 envs x 24 steps), the student's encoder
over the augmented minibatches and mirroring the histories had made a finetune iteration 3 times a teacher's.

PPO's update is one function with no hook for an extra loss term, so the clipped-surrogate update is written here
(same losses, clipping, adaptive-KL learning rate and gradient clipping as rsl_rl's).
"""

from __future__ import annotations

import copy
from collections import defaultdict
from collections.abc import Iterable

import torch
from rsl_rl.algorithms import PPO
from rsl_rl.env import VecEnv
from rsl_rl.extensions import resolve_symmetry_config
from rsl_rl.storage import RolloutStorage
from rsl_rl.utils import reduce_gradients_in_buckets, resolve_class, resolve_obs_groups, resolve_optimizer
from tensordict import TensorDict
from torch import nn

from locolab.models import HistoryEncoder, LatentMLPModel, MLPEncoder
from locolab.schedule import linear_ramp

PHASES = ("train", "finetune")
MODULES = ("actor", "actor_adapt", "adapt_module", "critic")
"""Checkpoint entries ``<name>_state_dict``; ``actor`` holds encoder_priv and ``actor_adapt`` holds adapt_ema."""
OPTIMIZERS = ("optimizer", "adaptation_optimizer", "distillation_optimizer")
Z_HAT = "z_hat"
"""Key of the history estimate stored with each transition: adapt_module's in phase train (the regulariser's target,
unchanged until the adaptation update), adapt_ema's in phase finetune (what the student acted on, and the student's
latent in the PPO epochs: adapt_ema and its normaliser change only after them)."""
Z = "z"
"""Key under which a phase-train PPO minibatch carries encoder_priv's latent: the teacher's action and the regulariser
share one encoder pass (and one backward through it) instead of running encoder_priv twice."""
Z_HAT_MIRRORED = "z_hat_mirrored"
"""Phase finetune with symmetry augmentation: adapt_ema's estimate from each stored transition's mirrored history,
computed once per update for the mirrored copies of the PPO minibatches."""


def checkpoint_phase(checkpoint: dict) -> str:
    """The ROA phase a checkpoint was saved in; a ValueError for a checkpoint of another algorithm."""
    if "roa" not in checkpoint:
        raise ValueError("it is not a PPO-ROA checkpoint (no 'roa' entry): was it trained with --agent ppo?")
    return checkpoint["roa"]["phase"]


def clipped_surrogate_loss(log_prob: torch.Tensor, old_log_prob: torch.Tensor, advantages: torch.Tensor,
                           clip: float) -> torch.Tensor:
    """PPO's clipped surrogate, as a loss: mean of max(-A r, -A clip(r, 1 - clip, 1 + clip)), r = p / p_old."""
    ratio = torch.exp(log_prob - old_log_prob.squeeze(-1))
    advantages = advantages.squeeze(-1)
    return torch.max(-advantages * ratio, -advantages * ratio.clamp(1.0 - clip, 1.0 + clip)).mean()


def value_function_loss(values: torch.Tensor, old_values: torch.Tensor, returns: torch.Tensor,
                        clip: float | None) -> torch.Tensor:
    """Squared error to the returns; with ``clip``, the larger of it and the error of the clipped value change."""
    loss = (values - returns).pow(2)
    if clip is not None:
        clipped = old_values + (values - old_values).clamp(-clip, clip)
        loss = torch.max(loss, (clipped - returns).pow(2))
    return loss.mean()


class PPOROA(PPO):
    """PPO with ROA's privileged teacher, adaptation module and student (see the module docstring)."""

    def __init__(
        self,
        actor: LatentMLPModel,
        actor_adapt: LatentMLPModel,
        adapt_module: HistoryEncoder,
        critic: nn.Module,
        storage: RolloutStorage,
        phase: str = "train",
        reg_lambda_max: float = 0.1,
        reg_lambda_window: tuple[int, int] | list[int] = (200, 800),
        adaptation_learning_rate: float = 1e-3,
        num_adaptation_epochs: int = 2,
        num_adaptation_mini_batches: int = 4,
        distillation_learning_rate: float = 1e-3,
        ema_tau: float = 0.04,
        update_normalizers_in_finetune: bool = False,
        optimizer: str = "adam",
        use_mixed_precision: bool = False,
        rnd_cfg: dict | None = None,
        symmetry_cfg: dict | None = None,
        **ppo_kwargs,
    ) -> None:
        if phase not in PHASES:
            raise ValueError(f"PPO-ROA phase must be one of {PHASES}, got '{phase}'.")
        if use_mixed_precision or rnd_cfg:
            raise ValueError("PPO-ROA supports neither mixed precision nor RND.")
        if reg_lambda_window[1] < reg_lambda_window[0]:
            raise ValueError(f"reg_lambda_window {tuple(reg_lambda_window)} must be (start, end) with start <= end.")
        super().__init__(actor, critic, storage, optimizer=optimizer, symmetry_cfg=symmetry_cfg, **ppo_kwargs)
        self.actor_adapt = actor_adapt.to(self.device)
        self.adapt_module = adapt_module.to(self.device)
        self.phase = phase
        self.reg_lambda_max = reg_lambda_max
        self.reg_lambda_window = tuple(reg_lambda_window)
        self.num_adaptation_epochs = num_adaptation_epochs
        self.num_adaptation_mini_batches = num_adaptation_mini_batches
        self.ema_tau = ema_tau
        self.update_normalizers_in_finetune = update_normalizers_in_finetune
        self.updates = 0
        """Train-phase updates done: the position in the lambda schedule."""
        self.log_scalars: dict[str, float] = {}
        """ROA's per-iteration diagnostics (lambda, phase, latent error), written by LocoLab's runner."""
        samples = storage.num_envs * storage.num_transitions_per_env
        for name, mini_batches in (("num_mini_batches", self.num_mini_batches),
                                   ("num_adaptation_mini_batches", num_adaptation_mini_batches)):
            if samples % mini_batches:
                raise ValueError(
                    f"num_envs x num_steps_per_env = {samples} is not divisible by {name} = {mini_batches}: "
                    f"{samples % mini_batches} samples would be skipped every epoch. Choose sizes that divide."
                )

        self.history_only_groups = sorted(set(adapt_module.obs_groups) - set(actor.obs_groups)
                                          - set(critic.obs_groups) - set(actor.encoder.obs_groups))
        """Observation groups only the adaptation modules read: left out of the PPO minibatches."""
        self.policy = self.actor if phase == "train" else self.actor_adapt
        """The acting model, trained by PPO: the teacher in phase train, the student in phase finetune."""
        if phase == "finetune":
            self.actor.requires_grad_(False)
        self.optimizer = resolve_optimizer(optimizer)(
            [*_trainable(self.policy), *self.critic.parameters()], lr=self.learning_rate
        )
        self.adaptation_optimizer = torch.optim.Adam(self.adapt_module.parameters(), lr=adaptation_learning_rate)
        self.distillation_optimizer = torch.optim.Adam(_trainable(self.actor_adapt), lr=distillation_learning_rate)

    @property
    def encoder_priv(self) -> MLPEncoder:
        return self.actor.encoder

    @property
    def adapt_ema(self) -> HistoryEncoder:
        return self.actor_adapt.encoder

    def reg_lambda(self) -> float:
        """lambda(t): 0 until the window starts, then linear up to ``reg_lambda_max`` at its end."""
        start, end = self.reg_lambda_window
        return linear_ramp(self.updates, start, end, 0.0, self.reg_lambda_max)

    def act(self, obs: TensorDict) -> torch.Tensor:
        """Sample the acting model's actions and record the transition with its z_hat (PPO's ``act`` for
        ``self.policy``)."""
        estimator = self.adapt_module if self.phase == "train" else self.adapt_ema
        obs = obs.copy().set(Z_HAT, estimator(obs).detach())  # the student's latent in phase finetune
        self.transition.actions = self.policy(obs, stochastic_output=True).detach()
        self.transition.values = self.critic(obs).detach()
        self.transition.actions_log_prob = self.policy.get_output_log_prob(self.transition.actions).detach()
        self.transition.distribution_params = tuple(p.detach() for p in self.policy.output_distribution_params)
        self.transition.observations = obs
        return self.transition.actions

    def update(self) -> dict[str, float]:
        """PPO epochs, then the adaptation (and, in phase train, distillation) epochs, normalisers and EMA."""
        self.log_scalars = {"ROA/phase": float(self.phase == "finetune"), "ROA/lambda": self.reg_lambda(),
                            "ROA/latent_error": self._latent_error()}
        losses = self._update_policy()
        losses |= self._update_adaptation()
        self._update_normalizers()
        self._update_ema()
        self.storage.clear()
        if self.phase == "train":
            self.updates += 1
        return losses

    @torch.no_grad()
    def _latent_error(self) -> float:
        """Mean ||z_hat - z|| over the fresh rollout, before this update: adapt_module's in phase train,
        adapt_ema's (the student's input) in phase finetune."""
        obs = self.storage.observations.flatten(0, 1)
        return (obs[Z_HAT] - self.encoder_priv(obs)).norm(dim=-1).mean().item()

    policy_metric_names = ("latent_error",)
    """What :meth:`policy_metrics` returns, for evaluation's episode metrics."""

    def policy_metrics(self, obs: TensorDict) -> torch.Tensor:
        """[N, 1]: ||z_hat - z|| per environment, z_hat from the student's estimator (adapt_ema)."""
        return (self.adapt_ema(obs) - self.encoder_priv(obs)).norm(dim=-1, keepdim=True)

    def _update_policy(self) -> dict[str, float]:
        sums: dict[str, float] = defaultdict(float)
        reg_lambda = self.reg_lambda()
        mirrored_latents = self.symmetry is not None and self.phase == "finetune"
        if mirrored_latents:
            self._store_mirrored_z_hat()
        batches = self.storage.mini_batch_generator(self.num_mini_batches, self.num_learning_epochs)
        for batch in batches:
            size = batch.observations.batch_size[0]
            z_hat = batch.observations[Z_HAT]
            batch.observations = batch.observations.exclude(*self.history_only_groups)
            if self.normalize_advantage_per_mini_batch:
                batch.advantages = (batch.advantages - batch.advantages.mean()) / (batch.advantages.std() + 1e-8)
            if self.symmetry is not None:
                z_hat_mirrored = batch.observations[Z_HAT_MIRRORED] if mirrored_latents else None
                batch.observations = batch.observations.exclude(Z_HAT, Z_HAT_MIRRORED)
                self.symmetry.augment_batch(batch, size)  # originals first, then their mirror images
                if mirrored_latents:
                    batch.observations[Z_HAT] = torch.cat([z_hat, z_hat_mirrored])
            obs = batch.observations
            if self.phase == "train":
                obs[Z] = self.encoder_priv(obs)  # read by the teacher (its latent_key) and by the regulariser
            self.policy(obs, stochastic_output=True)
            log_prob = self.policy.get_output_log_prob(batch.actions)
            entropy = self.policy.output_entropy[:size].mean()
            distribution = tuple(p[:size] for p in self.policy.output_distribution_params)
            self._adapt_learning_rate(batch.old_distribution_params, distribution)
            surrogate = clipped_surrogate_loss(log_prob, batch.old_actions_log_prob, batch.advantages, self.clip_param)
            value = value_function_loss(self.critic(obs), batch.values, batch.returns,
                                        self.clip_param if self.use_clipped_value_loss else None)
            loss = surrogate + self.value_loss_coef * value - self.entropy_coef * entropy
            if self.phase == "train":
                # lambda ||z - sg(z_hat)||: z_hat was stored with the transition, so no gradient reaches adapt_module
                regularization = reg_lambda * (obs[Z][:size] - z_hat).norm(dim=-1).mean()
                loss = loss + regularization
                sums["regularization"] += regularization.item()
            self._step(self.optimizer, loss, _trainable(self.policy), self.critic.parameters())
            sums["surrogate"] += surrogate.item()
            sums["value"] += value.item()
            sums["entropy"] += entropy.item()
        if mirrored_latents:
            self.storage.observations.del_(Z_HAT_MIRRORED)
        return {key: total / (self.num_learning_epochs * self.num_mini_batches) for key, total in sums.items()}

    @torch.no_grad()
    def _store_mirrored_z_hat(self) -> None:
        """adapt_ema's estimate from the mirrored history of every stored transition, as ``Z_HAT_MIRRORED``."""
        histories = self.storage.observations.flatten(0, 1).select(*self.adapt_ema.obs_groups)
        augmented, _ = self.symmetry.data_augmentation_func(env=self.symmetry.env, obs=histories, actions=None)
        z_hat_mirrored = self.adapt_ema(augmented[histories.batch_size[0]:])
        self.storage.observations[Z_HAT_MIRRORED] = z_hat_mirrored.view(*self.storage.observations.batch_size, -1)

    def _update_adaptation(self) -> dict[str, float]:
        sums: dict[str, float] = defaultdict(float)
        batches = self.storage.mini_batch_generator(self.num_adaptation_mini_batches, self.num_adaptation_epochs)
        for batch in batches:
            obs = batch.observations
            with torch.no_grad():
                z = self.encoder_priv(obs)
            adaptation = (self.adapt_module(obs) - z).pow(2).mean()
            self._step(self.adaptation_optimizer, adaptation, self.adapt_module.parameters())
            sums["adaptation"] += adaptation.item()
            if self.phase == "train":
                with torch.no_grad():
                    teacher_mean = self.actor(obs)
                student_mean = self.actor_adapt(obs)  # on the stored z_hat (adapt_module's)
                distillation = (student_mean - teacher_mean).pow(2).mean()
                self._step(self.distillation_optimizer, distillation, _trainable(self.actor_adapt))
                sums["distillation"] += distillation.item()
        return {key: total / (self.num_adaptation_epochs * self.num_adaptation_mini_batches)
                for key, total in sums.items()}

    def _update_normalizers(self) -> None:
        """Observation statistics from this rollout; in phase finetune only if configured (and never the teacher's)."""
        if self.phase == "finetune" and not self.update_normalizers_in_finetune:
            return
        obs = self.storage.observations.flatten(0, 1)
        models = [self.actor_adapt, self.adapt_module, self.critic]
        if self.phase == "train":
            models.append(self.actor)
        for model in models:
            model.update_normalization(obs)

    @torch.no_grad()
    def _update_ema(self) -> None:
        """adapt_ema <- (1 - tau) adapt_ema + tau adapt_module, over weights and normaliser statistics alike."""
        for ema, current in zip(self.adapt_ema.state_dict().values(), self.adapt_module.state_dict().values()):
            if ema.is_floating_point():
                ema.lerp_(current, self.ema_tau)
            else:
                ema.copy_(current)

    def _adapt_learning_rate(self, old_params: tuple[torch.Tensor, ...], new_params: tuple[torch.Tensor, ...]) -> None:
        """rsl_rl's adaptive schedule: divide the learning rate by 1.5 above twice the KL target, multiply below
        half."""
        if self.desired_kl is None or self.schedule != "adaptive":
            return
        with torch.inference_mode():
            kl = self.policy.get_kl_divergence(old_params, new_params).mean()
            if self.is_multi_gpu:
                torch.distributed.all_reduce(kl, op=torch.distributed.ReduceOp.SUM)
                kl /= self.gpu_world_size
            if self.gpu_global_rank == 0:
                if kl > self.desired_kl * 2.0:
                    self.learning_rate = max(1e-5, self.learning_rate / 1.5)
                elif 0.0 < kl < self.desired_kl / 2.0:
                    self.learning_rate = min(1e-2, self.learning_rate * 1.5)
            if self.is_multi_gpu:
                learning_rate = torch.tensor(self.learning_rate, device=self.device)
                torch.distributed.broadcast(learning_rate, src=0)
                self.learning_rate = learning_rate.item()
        for group in self.optimizer.param_groups:
            group["lr"] = self.learning_rate

    def _step(self, optimizer: torch.optim.Optimizer, loss: torch.Tensor,
              *parameter_groups: Iterable[nn.Parameter]) -> None:
        """Backward, all-reduce across GPUs, clip each group's gradient norm, step."""
        groups = [list(group) for group in parameter_groups]
        optimizer.zero_grad()
        loss.backward()
        if self.is_multi_gpu:
            reduce_gradients_in_buckets([p for group in groups for p in group], self.gpu_world_size,
                                        self.grad_reduce_bucket_mb)
        for group in groups:
            nn.utils.clip_grad_norm_(group, self.max_grad_norm)
        optimizer.step()

    def train_mode(self) -> None:
        for model in self._models():
            model.train()

    def eval_mode(self) -> None:
        for model in self._models():
            model.eval()

    def get_policy(self) -> LatentMLPModel:
        """The acting model: the teacher in phase train, the student in phase finetune."""
        return self.policy

    def save(self) -> dict:
        saved = {f"{name}_state_dict": getattr(self, name).state_dict() for name in MODULES}
        saved |= {f"{name}_state_dict": getattr(self, name).state_dict() for name in OPTIMIZERS}
        saved["roa"] = {"phase": self.phase, "updates": self.updates, "reg_lambda": self.reg_lambda(),
                        "learning_rate": self.learning_rate}
        return saved

    def load(self, loaded_dict: dict, load_cfg: dict | None, strict: bool) -> bool:
        """Resume (``load_cfg`` None: same phase, everything) or start finetune (``{"teacher": True}``).

        Starting finetune from a train-phase checkpoint loads the modules only; the student takes over the teacher's
        action noise, fresh optimizers are built, and the iteration count starts again.
        """
        saved_phase = checkpoint_phase(loaded_dict)
        teacher = bool(load_cfg and load_cfg.get("teacher"))
        if teacher and (saved_phase, self.phase) != ("train", "finetune"):
            raise ValueError(f"a finetune run starts from a phase 'train' checkpoint, this one is phase '{saved_phase}'"
                             f" and the run is phase '{self.phase}'.")
        if not teacher and saved_phase != self.phase:
            raise ValueError(f"the checkpoint is phase '{saved_phase}' but this run is phase '{self.phase}' (start "
                             "finetune from a train checkpoint with --teacher, not --resume).")
        for name in MODULES:
            getattr(self, name).load_state_dict(loaded_dict[f"{name}_state_dict"], strict=strict)
        self.updates = loaded_dict["roa"]["updates"]
        if teacher:
            self.actor_adapt.distribution.load_state_dict(self.actor.distribution.state_dict())
            return False
        for name in OPTIMIZERS:
            getattr(self, name).load_state_dict(loaded_dict[f"{name}_state_dict"])
        self.learning_rate = loaded_dict["roa"]["learning_rate"]
        return True

    def broadcast_parameters(self) -> None:
        for model in self._models():
            for tensor in model.state_dict().values():
                torch.distributed.broadcast(tensor, src=0)

    def _models(self) -> list[nn.Module]:
        return [getattr(self, name) for name in MODULES]

    @staticmethod
    def construct_algorithm(obs: TensorDict, env: VecEnv, cfg: dict, device: str) -> PPOROA:
        """Build the ROA modules from the runner config: ``actor``/``critic`` model configs, the algorithm's
        ``latent_dim``, ``encoder_priv`` and ``adapt_module`` configs, and the observation sets ``actor``,
        ``critic``, ``priv`` (privileged) and ``history`` (proprioceptive history)."""
        if cfg.get("torch_compile_mode"):
            raise ValueError("PPO-ROA does not support torch_compile_mode.")
        alg_class, alg_cfg = resolve_class(cfg["algorithm"])
        alg_cfg = resolve_symmetry_config(alg_cfg, env)
        if alg_cfg.pop("share_cnn_encoders", False):
            raise ValueError("PPO-ROA has no CNN encoders to share (share_cnn_encoders).")
        for required in ("priv", "history"):
            if required not in cfg["obs_groups"]:
                raise ValueError(f"PPO-ROA reads the observation set '{required}': add obs_groups['{required}'] "
                                 f"(the environment's observation groups: {list(obs.keys())}).")
        obs_groups = cfg["obs_groups"] = resolve_obs_groups(obs, cfg["obs_groups"], ["actor", "critic"])
        latent_dim = alg_cfg.pop("latent_dim")
        encoder_priv = MLPEncoder(obs, obs_groups, "priv", latent_dim, **alg_cfg.pop("encoder_priv"))
        adapt_class, adapt_cfg = resolve_class(alg_cfg.pop("adapt_module"))
        adapt_module = adapt_class(obs, obs_groups, "history", latent_dim, **adapt_cfg)
        adapt_ema = copy.deepcopy(adapt_module).requires_grad_(False)
        _, actor_cfg = resolve_class(cfg["actor"])
        actor = LatentMLPModel(obs, obs_groups, "actor", env.num_actions, encoder_priv, latent_key=Z, **actor_cfg)
        actor_adapt = LatentMLPModel(obs, obs_groups, "actor", env.num_actions, adapt_ema, latent_key=Z_HAT,
                                     **actor_cfg)
        critic_class, critic_cfg = resolve_class(cfg["critic"])
        critic = critic_class(obs, obs_groups, "critic", 1, **critic_cfg)
        transition = obs.copy().set(Z_HAT, torch.zeros(env.num_envs, latent_dim, device=obs.device))
        storage = RolloutStorage("rl", env.num_envs, cfg["num_steps_per_env"], transition, [env.num_actions], device)
        return alg_class(actor, actor_adapt, adapt_module, critic, storage, device=device,
                         multi_gpu_cfg=cfg["multi_gpu"], **alg_cfg)


def _trainable(model: nn.Module) -> list[nn.Parameter]:
    return [p for p in model.parameters() if p.requires_grad]
