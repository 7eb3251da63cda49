"""PPO-ROA pinned by numbers: GAE with time-outs, the clipped objective, lambda, EMA, per-phase updates, storage
and minibatches, checkpoints. A small torch environment stands in for the simulator (no Isaac Lab)."""

from __future__ import annotations

import math

import pytest
import torch

from hidden_gain_env import HiddenGainEnv
from roa_toy_training import OBS_GROUPS, ROA_CFG, history_env, runner_cfg

from locolab.algorithms import PPOROA, clipped_surrogate_loss, value_function_loss
from locolab.envs import ProprioHistoryWrapper
from locolab.runners import CheckpointError
from locolab.runners.on_policy_runner import LocoLabOnPolicyRunner

NUM_ENVS, NUM_STEPS = 4, 6


def build(phase: str = "train", num_envs: int = NUM_ENVS, num_steps: int = NUM_STEPS, seed: int = 0, **algorithm):
    """A PPO-ROA algorithm and its environment, built the way OnPolicyRunner builds them."""
    torch.manual_seed(seed)
    env = history_env(num_envs, seed)
    cfg = runner_cfg(ROA_CFG | {"phase": phase, "num_mini_batches": 2, "num_adaptation_mini_batches": 2} | algorithm,
                     OBS_GROUPS)
    cfg |= {"num_steps_per_env": num_steps, "multi_gpu": None}
    return PPOROA.construct_algorithm(env.get_observations(), env, cfg, "cpu"), env


def rollout(alg: PPOROA, env, num_steps: int = NUM_STEPS) -> None:
    """What OnPolicyRunner.learn does before ``update``: act, step, record, then GAE."""
    obs = env.get_observations()
    with torch.inference_mode():
        for _ in range(num_steps):
            obs, rewards, dones, extras = env.step(alg.act(obs))
            alg.process_env_step(obs, rewards, dones, extras)
        alg.compute_returns(obs)


def snapshot(module: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {key: value.clone() for key, value in module.state_dict().items()}


def assert_identical(before: dict, after: dict, prefix: str = "") -> None:
    keys = [key for key in before if key.startswith(prefix)]
    assert keys
    for key in keys:
        assert torch.equal(before[key], after[key]), f"{key} changed"


def assert_changed(before: dict, after: dict, prefix: str) -> None:
    keys = [key for key in before if key.startswith(prefix) and before[key].is_floating_point()]
    assert keys
    assert any(not torch.equal(before[key], after[key]) for key in keys), f"nothing under '{prefix}' changed"


def encoder_state(model_state: dict) -> dict[str, torch.Tensor]:
    """The ``encoder.*`` entries of a LatentMLPModel's state (actor_adapt's: adapt_ema), without the prefix."""
    return {key.removeprefix("encoder."): value for key, value in model_state.items() if key.startswith("encoder.")}


def assert_ema(ema_before: dict, module_after: dict, ema_after: dict, tau: float) -> None:
    for key, value in ema_after.items():
        if value.is_floating_point():
            torch.testing.assert_close(value, (1 - tau) * ema_before[key] + tau * module_after[key], rtol=0, atol=1e-6)
        else:
            assert torch.equal(value, module_after[key])


def test_storage_holds_num_envs_by_num_steps_transitions_of_every_group():
    alg, env = build()
    rollout(alg, env)
    storage = alg.storage
    obs = storage.observations
    assert tuple(obs.batch_size) == (NUM_STEPS, NUM_ENVS)
    assert obs["policy"].shape == (NUM_STEPS, NUM_ENVS, 3)
    assert obs["priv"].shape == (NUM_STEPS, NUM_ENVS, 1)
    assert obs["critic"].shape == (NUM_STEPS, NUM_ENVS, 4)
    assert obs["history"].shape == (NUM_STEPS, NUM_ENVS, 8, 3)
    for buffer in (storage.actions, storage.rewards, storage.values, storage.returns, storage.advantages,
                   storage.actions_log_prob, storage.dones):
        assert buffer.shape == (NUM_STEPS, NUM_ENVS, 1)
    with pytest.raises(OverflowError):  # a rollout holds exactly num_steps_per_env transitions
        obs = env.get_observations()
        with torch.inference_mode():
            alg.act(obs)
            alg.process_env_step(obs, torch.zeros(NUM_ENVS), torch.zeros(NUM_ENVS), {})


def test_gae_and_returns_match_a_hand_computation_with_a_time_out_and_a_termination():
    # gamma = lambda = 0.5, a critic that outputs V = 1 everywhere, two environments over three steps:
    # env 0 times out after step 0 (bootstrapped with gamma V), env 1 terminates after step 1 (not bootstrapped).
    alg, env = build(num_envs=2, num_steps=3, gamma=0.5, lam=0.5)
    last_layer = alg.critic.mlp[-1]
    torch.nn.init.zeros_(last_layer.weight)
    torch.nn.init.ones_(last_layer.bias)
    rewards = torch.tensor([[1.0, 0.0], [0.0, 1.0], [2.0, 1.0]])
    dones = torch.tensor([[1, 0], [0, 1], [0, 0]])
    time_outs = torch.tensor([[True, False], [False, False], [False, False]])
    obs = env.get_observations()
    with torch.inference_mode():
        for step in range(3):
            alg.act(obs)
            alg.process_env_step(obs, rewards[step], dones[step], {"time_outs": time_outs[step]})
        alg.compute_returns(obs)
    # env 0: r' = 1 + 0.5 * 1 = 1.5 at the time-out; deltas 0.5, -0.5, 1.5; A = 0.5, -0.5 + 0.25 * 1.5, 1.5
    # env 1: deltas -0.5, 0 (terminal), 0.5; A = -0.5 (no flow across the termination), 0, 0.5
    advantages = torch.tensor([[0.5, -0.5], [-0.125, 0.0], [1.5, 0.5]])
    returns = advantages + 1.0
    torch.testing.assert_close(alg.storage.returns.squeeze(-1), returns)
    normalized = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    torch.testing.assert_close(alg.storage.advantages.squeeze(-1), normalized)


def test_clipped_surrogate_objective_takes_the_pessimistic_term():
    ratios = torch.tensor([1.5, 0.5, 1.5, 0.5, 1.1])
    advantages = torch.tensor([[1.0], [1.0], [-1.0], [-1.0], [2.0]])
    old_log_prob = torch.zeros(5, 1)
    per_sample = [
        clipped_surrogate_loss(ratios[i : i + 1].log(), old_log_prob[i : i + 1], advantages[i : i + 1], clip=0.2)
        for i in range(5)
    ]
    # ratio 1.5, A > 0: clipped at 1.2 | ratio 0.5, A > 0: unclipped 0.5 | ratio 1.5, A < 0: unclipped 1.5
    # ratio 0.5, A < 0: clipped at 0.8 | ratio 1.1, A = 2: inside the clip range, 2.2
    expected = [-1.2, -0.5, 1.5, 0.8, -2.2]
    for value, target in zip(per_sample, expected):
        assert value.item() == pytest.approx(target, abs=1e-6)
    batch = clipped_surrogate_loss(ratios.log(), old_log_prob, advantages, clip=0.2)
    assert batch.item() == pytest.approx(sum(expected) / 5, abs=1e-6)


def test_value_loss_clips_the_value_change():
    old, returns = torch.tensor([[0.0], [0.0]]), torch.tensor([[1.0], [-1.0]])
    values = torch.tensor([[0.5], [0.5]])
    # unclipped errors 0.25, 2.25; clipped values 0.2, 0.2 give 0.64, 1.44: the larger of each pair counts
    assert value_function_loss(values, old, returns, clip=0.2).item() == pytest.approx((0.64 + 2.25) / 2)
    assert value_function_loss(values, old, returns, clip=None).item() == pytest.approx((0.25 + 2.25) / 2)


def test_lambda_ramps_linearly_over_its_window_and_advances_with_train_updates():
    alg, env = build(reg_lambda_max=0.5, reg_lambda_window=[10, 30])
    for updates, expected in [(0, 0.0), (10, 0.0), (15, 0.125), (20, 0.25), (30, 0.5), (1000, 0.5)]:
        alg.updates = updates
        assert alg.reg_lambda() == pytest.approx(expected)
    step, _ = build(reg_lambda_max=0.3, reg_lambda_window=[5, 5])  # a window of zero length is a step
    for updates, expected in [(4, 0.0), (5, 0.3)]:
        step.updates = updates
        assert step.reg_lambda() == pytest.approx(expected)
    alg.updates = 20
    rollout(alg, env)
    alg.update()
    assert alg.updates == 21
    assert alg.log_scalars["ROA/lambda"] == pytest.approx(0.25)  # the lambda this update used
    assert alg.log_scalars["ROA/phase"] == 0.0


def test_train_update_changes_teacher_encoder_critic_adaptation_and_student_and_moves_the_ema():
    alg, env = build()
    alg.updates = 1_000  # lambda at its maximum: the regulariser reaches encoder_priv
    before = {name: snapshot(getattr(alg, name)) for name in ("actor", "actor_adapt", "adapt_module", "critic")}
    rollout(alg, env)
    losses = alg.update()
    after = {name: snapshot(getattr(alg, name)) for name in before}
    assert set(losses) == {"surrogate", "value", "entropy", "regularization", "adaptation", "distillation"}
    assert all(math.isfinite(value) for value in losses.values())
    assert_changed(before["actor"], after["actor"], "mlp.")
    assert_changed(before["actor"], after["actor"], "encoder.")  # encoder_priv
    assert_changed(before["actor"], after["actor"], "obs_normalizer.")
    assert_changed(before["actor_adapt"], after["actor_adapt"], "mlp.")  # distillation
    assert_changed(before["adapt_module"], after["adapt_module"], "embedding.")
    assert_changed(before["critic"], after["critic"], "mlp.")
    assert_ema(encoder_state(before["actor_adapt"]), after["adapt_module"], encoder_state(after["actor_adapt"]),
               tau=ROA_CFG["ema_tau"])


def test_finetune_update_trains_student_critic_and_adaptation_and_leaves_the_teacher_bit_identical():
    teacher, env = build()
    rollout(teacher, env)
    teacher.update()
    alg, env = build(phase="finetune", seed=1)
    assert alg.load(teacher.save(), {"teacher": True}, strict=True) is False  # no iteration carried over
    torch.testing.assert_close(alg.actor_adapt.distribution.std_param, teacher.actor.distribution.std_param)
    before = {name: snapshot(getattr(alg, name)) for name in ("actor", "actor_adapt", "adapt_module", "critic")}
    rollout(alg, env)
    losses = alg.update()
    after = {name: snapshot(getattr(alg, name)) for name in before}
    assert set(losses) == {"surrogate", "value", "entropy", "adaptation"}
    assert alg.log_scalars["ROA/phase"] == 1.0
    assert_identical(before["actor"], after["actor"])  # actor and encoder_priv are frozen
    for name, normalizer in (("actor_adapt", "obs_normalizer."), ("adapt_module", "normalizer."),
                             ("critic", "obs_normalizer.")):
        assert_identical(before[name], after[name], normalizer)  # normalisers frozen by default
    assert_changed(before["actor_adapt"], after["actor_adapt"], "mlp.")
    assert_changed(before["adapt_module"], after["adapt_module"], "embedding.")
    assert_changed(before["critic"], after["critic"], "mlp.")
    assert_ema(encoder_state(before["actor_adapt"]), after["adapt_module"], encoder_state(after["actor_adapt"]),
               tau=ROA_CFG["ema_tau"])
    assert alg.updates == teacher.updates  # finetune does not advance the lambda schedule


def test_every_sample_is_used_exactly_once_per_epoch():
    alg, env = build(num_envs=4, num_steps=6, num_mini_batches=3, num_learning_epochs=2)
    rollout(alg, env)
    alg.storage.actions.copy_(torch.arange(24, dtype=torch.float).view(6, 4, 1))  # each sample's id
    batches = [batch.actions.flatten().long() for batch in alg.storage.mini_batch_generator(3, 2)]
    assert [len(batch) for batch in batches] == [8] * 6
    for epoch in (batches[:3], batches[3:]):
        assert torch.equal(torch.cat(epoch).sort().values, torch.arange(24))


def test_sizes_that_would_skip_samples_are_refused():
    with pytest.raises(ValueError, match=r"num_envs x num_steps_per_env = 15 is not divisible by num_mini_batches"):
        build(num_envs=3, num_steps=5, num_mini_batches=4)


def test_checkpoint_round_trip_restores_identical_outputs_and_training_state():
    alg, env = build()
    for _ in range(2):
        rollout(alg, env)
        alg.update()
    saved = alg.save()
    restored, _ = build(seed=7)
    assert restored.load(saved, None, strict=True) is True
    obs = env.get_observations()
    with torch.inference_mode():
        for name in ("actor", "actor_adapt", "critic", "adapt_module"):
            torch.testing.assert_close(getattr(restored, name)(obs), getattr(alg, name)(obs), rtol=0, atol=0)
    assert (restored.phase, restored.updates, restored.learning_rate) == ("train", 2, alg.learning_rate)
    for name in ("optimizer", "adaptation_optimizer", "distillation_optimizer"):
        original, loaded = getattr(alg, name).state_dict(), getattr(restored, name).state_dict()
        for state_id, state in original["state"].items():
            torch.testing.assert_close(loaded["state"][state_id]["exp_avg"], state["exp_avg"], rtol=0, atol=0)


def test_checkpoints_of_another_phase_or_algorithm_are_refused():
    alg, _ = build()
    finetune, _ = build(phase="finetune")
    with pytest.raises(ValueError, match="checkpoint is phase 'train' but this run is phase 'finetune'"):
        finetune.load(alg.save(), None, strict=True)
    with pytest.raises(ValueError, match="starts from a phase 'train' checkpoint, this one is phase 'finetune'"):
        finetune.load(finetune.save(), {"teacher": True}, strict=True)
    with pytest.raises(ValueError, match="not a PPO-ROA checkpoint"):
        alg.load({"actor_state_dict": {}, "critic_state_dict": {}}, None, strict=True)


def test_runner_names_the_observation_that_differs_from_the_checkpoint(tmp_path):
    cfg = runner_cfg(ROA_CFG, OBS_GROUPS) | {"num_steps_per_env": 6}
    runner = LocoLabOnPolicyRunner(history_env(4, 0), cfg, log_dir=None, device="cpu")
    runner.save(str(tmp_path / "model_0.pt"))
    shorter_history = ProprioHistoryWrapper(HiddenGainEnv(4), 6)
    other = LocoLabOnPolicyRunner(shorter_history, runner_cfg(ROA_CFG, OBS_GROUPS) | {"num_steps_per_env": 6},
                                  log_dir=None, device="cpu")
    with pytest.raises(CheckpointError,
                       match=r"observation 'history' has shape \[8, 3\] in the checkpoint, \[6, 3\] here"):
        other.load(str(tmp_path / "model_0.pt"))


def test_logged_regularization_is_lambda_times_the_mean_latent_distance_before_the_step():
    alg, env = build(num_mini_batches=1, num_learning_epochs=1, reg_lambda_max=0.5, reg_lambda_window=[0, 0])
    rollout(alg, env)
    obs = alg.storage.observations.flatten(0, 1)
    with torch.no_grad():
        distance = (alg.encoder_priv(obs) - obs["z_hat"]).norm(dim=-1).mean().item()
    losses = alg.update()
    assert losses["regularization"] == pytest.approx(0.5 * distance, rel=1e-5)


def latent_distance_after_one_update(reg_lambda: float) -> float:
    """Mean ||encoder_priv(obs) - z_hat|| on one rollout after one train update with only the regulariser and the
    surrogate's gradient (value and entropy off), from the same seed."""
    alg, env = build(reg_lambda_max=reg_lambda, reg_lambda_window=[0, 0], value_loss_coef=0.0, entropy_coef=0.0,
                     learning_rate=1e-2, schedule="fixed")
    rollout(alg, env)
    obs = alg.storage.observations.flatten(0, 1).clone()
    alg.update()
    with torch.no_grad():
        return (alg.encoder_priv(obs) - obs["z_hat"]).norm(dim=-1).mean().item()


def test_the_regulariser_pulls_the_teachers_latent_toward_the_adaptation_estimate():
    # same data, same seed: only lambda differs. A dropped regulariser leaves the distances equal; a flipped sign
    # pushes the latent away, so the lambda > 0 distance would be the larger one.
    without = latent_distance_after_one_update(0.0)
    with_regulariser = latent_distance_after_one_update(5.0)
    assert with_regulariser < 0.8 * without


def identity_mirror(env, obs=None, actions=None):
    """A 'mirror' that maps every sample to itself, recording the minibatches it is given."""
    identity_mirror.calls.append(None if obs is None else (obs.batch_size[0], sorted(obs.keys())))
    return ((None if obs is None else torch.cat([obs, obs])),
            (None if actions is None else torch.cat([actions, actions])))


@pytest.mark.parametrize("phase", ["train", "finetune"])
def test_symmetry_augmentation_gives_each_ppo_minibatch_its_mirror_images_and_keeps_the_loss_of_the_originals(phase):
    """With a mirror that maps each sample to itself, the doubled minibatches have the same mean losses, so the
    policy and critic update equals the one without augmentation; the augmentation sees every PPO minibatch, without
    the stored z_hat and the histories (which only the adaptation modules read). (The adaptation epochs are left out:
    sampling the doubled batch's actions draws more random numbers, so their minibatches are shuffled differently.)"""
    results = []
    for symmetry in (None, {"use_data_augmentation": True, "data_augmentation_func": identity_mirror}):
        identity_mirror.calls = []
        alg, env = build(phase=phase, symmetry_cfg=symmetry)
        alg.updates = 1_000  # lambda at its maximum: the regulariser is part of the loss
        rollout(alg, env)
        losses = alg.update()
        results.append((losses, snapshot(alg.policy), snapshot(alg.critic), alg.learning_rate))
    calls = identity_mirror.calls
    if phase == "finetune":  # first, once per update: the mirrored histories of the whole rollout, for z_hat
        assert calls.pop(0) == (NUM_ENVS * NUM_STEPS, ["history"])
    assert len(calls) == alg.num_learning_epochs * alg.num_mini_batches  # PPO epochs only, not adaptation's
    assert all(size == NUM_ENVS * NUM_STEPS // 2 and keys == ["critic", "policy", "priv"] for size, keys in calls)
    (plain, policy, critic, lr), (augmented, policy_aug, critic_aug, lr_aug) = results
    assert lr == lr_aug
    for name in ("surrogate", "value", "entropy", "regularization")[:4 if phase == "train" else 3]:
        assert augmented[name] == pytest.approx(plain[name], rel=1e-4, abs=1e-6), name
    for before, after in ((policy, policy_aug), (critic, critic_aug)):
        for key in (key for key in before if not key.startswith("encoder.")):  # finetune's adapt_ema: adaptation's
            torch.testing.assert_close(after[key], before[key], rtol=1e-4, atol=1e-5)


def negate(env, obs=None, actions=None):
    """A mirror that negates observations and actions (every sample gets a distinct image)."""
    return (None if obs is None else torch.cat([obs, obs.apply(torch.neg)])), \
        (None if actions is None else torch.cat([actions, -actions]))


def test_symmetry_augmentation_trains_on_the_mirrored_samples():
    """A mirror that negates observations and actions adds samples the plain update never sees: the update differs."""
    policies = []
    for symmetry in (None, {"use_data_augmentation": True, "data_augmentation_func": negate}):
        alg, env = build(symmetry_cfg=symmetry)
        rollout(alg, env)
        alg.update()
        policies.append(snapshot(alg.policy))
    assert any(not torch.equal(policies[0][key], policies[1][key]) for key in policies[0] if key.startswith("mlp."))


@pytest.mark.parametrize("symmetry", [None, {"use_data_augmentation": True, "data_augmentation_func": negate}])
def test_the_teacher_and_its_regulariser_share_one_encoder_pass_with_the_same_update(symmetry):
    """Phase train runs encoder_priv once per PPO minibatch (the teacher's action and the regulariser read the same
    latent), and the update equals the one in which the teacher runs its encoder itself."""
    updates = []
    for shared in (True, False):
        alg, env = build(symmetry_cfg=symmetry)
        alg.updates = 1_000  # lambda at its maximum
        if not shared:
            alg.actor.latent_key = None
        rollout(alg, env)
        passes = []
        hook = alg.encoder_priv.register_forward_hook(lambda *_: passes.append(torch.is_grad_enabled()))
        losses = alg.update()
        hook.remove()
        updates.append((losses, snapshot(alg.actor), snapshot(alg.critic), sum(passes)))
    (losses, teacher, critic, passes), (losses_ref, teacher_ref, critic_ref, passes_ref) = updates
    minibatches = alg.num_learning_epochs * alg.num_mini_batches
    assert (passes, passes_ref) == (minibatches, 2 * minibatches)  # with gradients: the PPO epochs' passes
    for name, value in losses_ref.items():
        assert losses[name] == pytest.approx(value, rel=1e-5, abs=1e-7), name
    for after, reference in ((teacher, teacher_ref), (critic, critic_ref)):
        for key in reference:
            torch.testing.assert_close(after[key], reference[key], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("symmetry", [None, {"use_data_augmentation": True, "data_augmentation_func": negate}])
def test_finetune_student_reads_stored_latents_equal_to_what_its_encoder_computes(symmetry):
    """The student's PPO epochs use the z_hat stored with each transition (and the mirrored histories' estimates)
    instead of running adapt_ema on every minibatch: the update equals the one that runs the encoder."""
    updates = []
    for stored_latents in (True, False):
        alg, env = build(phase="finetune", symmetry_cfg=symmetry)
        if not stored_latents:
            alg.actor_adapt.latent_key = None
            alg.history_only_groups = []
        rollout(alg, env)
        losses = alg.update()
        updates.append((losses, snapshot(alg.actor_adapt), snapshot(alg.critic)))
    (losses, student, critic), (losses_ref, student_ref, critic_ref) = updates
    for name, value in losses_ref.items():
        assert losses[name] == pytest.approx(value, rel=1e-5, abs=1e-7), name
    for after, reference in ((student, student_ref), (critic, critic_ref)):
        for key in reference:
            torch.testing.assert_close(after[key], reference[key], rtol=1e-5, atol=1e-6)
