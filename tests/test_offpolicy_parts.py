"""SAC's parts, each on its own: n-step targets, the replay buffer, soft updates, the temperature, the collectors."""

from __future__ import annotations

import copy
import math
import threading
import time

import pytest
import torch
from tensordict import TensorDict

from locolab.algorithms.sac import SAC, soft_update
from locolab.envs.symmetry import MirrorMaps, mirror_transitions
from locolab.models.q_function import TwinQFunction
from locolab.offpolicy.collectors import AsyncCollector, CollectorError, SyncCollector
from locolab.offpolicy.nstep import NStepWindow, nstep_transitions
from locolab.offpolicy.replay_buffer import ReplayBuffer
from rsl_rl.models import MLPModel
from toy_vec_env import ConstantPolicy, CountingVecEnv

GAMMA = 0.9


def steps_of(rewards, terminated, time_out) -> TensorDict:
    """Collected steps ``[T, N]`` whose observations are ``10 * t + env`` and next observations ``10 * t + env + 5``."""
    rewards = torch.tensor(rewards, dtype=torch.float32)
    length, num_envs = rewards.shape
    ids = 10.0 * torch.arange(length)[:, None] + torch.arange(num_envs)[None, :]
    return TensorDict({
        "obs": TensorDict({"policy": ids[..., None]}, batch_size=[length, num_envs]),
        "action": torch.zeros(length, num_envs, 1),
        "reward": rewards,
        "terminated": torch.tensor(terminated, dtype=torch.bool),
        "time_out": torch.tensor(time_out, dtype=torch.bool),
        "next_obs": TensorDict({"policy": ids[..., None] + 5.0}, batch_size=[length, num_envs]),
    }, batch_size=[length, num_envs])


def test_nstep_targets_stop_at_a_termination_and_bootstrap_a_time_out_from_its_last_state():
    # env 0 runs on; env 1 terminates at step 1; env 2 times out at step 1
    steps = steps_of(rewards=[[1, 1, 1], [2, 2, 2], [4, 4, 4], [8, 8, 8]],
                     terminated=[[0, 0, 0], [0, 1, 0], [0, 0, 0], [0, 0, 0]],
                     time_out=[[0, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]])
    out = nstep_transitions(steps, n=3, gamma=GAMMA)
    assert out.batch_size == torch.Size([2, 3])
    g = GAMMA
    # from step 0: env 0 sums 3 rewards and bootstraps from next_obs[2]; env 1 stops at its termination (no
    # bootstrap); env 2 stops at its time-out and bootstraps from obs[1], the state it last observed
    torch.testing.assert_close(out["reward"][0], torch.tensor([1 + 2 * g + 4 * g**2, 1 + 2 * g, 1 + 2 * g]))
    torch.testing.assert_close(out["discount"][0], torch.tensor([g**3, 0.0, g**2]))
    torch.testing.assert_close(out["bootstrap_obs"]["policy"][0, :, 0], torch.tensor([25.0, 16.0, 12.0]))
    # from step 1: the episode boundary is the first step of the window
    torch.testing.assert_close(out["reward"][1], torch.tensor([2 + 4 * g + 8 * g**2, 2.0, 2.0]))
    torch.testing.assert_close(out["discount"][1], torch.tensor([g**3, 0.0, g]))
    torch.testing.assert_close(out["bootstrap_obs"]["policy"][1, :, 0], torch.tensor([35.0, 16.0, 12.0]))
    torch.testing.assert_close(out["obs"]["policy"], steps["obs"]["policy"][:2])


def test_nstep_window_turns_every_step_into_one_transition_across_chunks():
    rng = torch.Generator().manual_seed(0)
    steps = steps_of(rewards=torch.rand(12, 4, generator=rng).tolist(),
                     terminated=(torch.rand(12, 4, generator=rng) < 0.15).tolist(),
                     time_out=(torch.rand(12, 4, generator=rng) < 0.15).tolist())
    whole = nstep_transitions(steps, n=3, gamma=GAMMA)
    window = NStepWindow(3, GAMMA)
    pieces = [window.add(steps[start:start + 2]) for start in range(0, 12, 2)]
    assert pieces[0] is None  # two steps hold no 3-step transition yet
    joined = torch.cat([piece for piece in pieces if piece is not None])
    assert joined.batch_size == whole.batch_size == torch.Size([10, 4])
    for key in ("reward", "discount"):
        torch.testing.assert_close(joined[key], whole[key])
    torch.testing.assert_close(joined["bootstrap_obs"]["policy"], whole["bootstrap_obs"]["policy"])


def test_mirrored_transitions_mirror_observations_and_actions_and_keep_return_and_discount():
    # two observation columns swap sides (a lateral one changes sign); two actions (hips) swap and change sign
    maps = MirrorMaps.from_lists({"actions": [[1, 0], [-1.0, -1.0]],
                                  "groups": {"policy": [[1, 0, 2], [1.0, 1.0, -1.0]]}}, "cpu")
    obs = TensorDict({"policy": torch.tensor([[1.0, 2.0, 3.0]])}, batch_size=[1])
    transitions = TensorDict({"obs": obs, "bootstrap_obs": obs.apply(lambda x: x + 10),
                              "action": torch.tensor([[0.5, 0.75]]), "reward": torch.tensor([0.25]),
                              "discount": torch.tensor([0.81])}, batch_size=[1])
    mirrored = mirror_transitions(maps, transitions)
    assert mirrored["obs", "policy"].tolist() == [[2.0, 1.0, -3.0]]
    assert mirrored["bootstrap_obs", "policy"].tolist() == [[12.0, 11.0, -13.0]]
    assert mirrored["action"].tolist() == [[-0.75, -0.5]]
    assert (mirrored["reward"].item(), mirrored["discount"].item()) == (0.25, pytest.approx(0.81))
    twice = mirror_transitions(maps, mirrored)  # an involution: the original comes back
    assert all(torch.equal(twice[key], transitions[key]) for key in ("action", "reward", "discount"))
    assert torch.equal(twice["obs", "policy"], obs["policy"]) and transitions["obs", "policy"].tolist() == [[1, 2, 3]]


def test_replay_buffer_overwrites_its_oldest_transitions_and_samples_stored_ones():
    buffer = ReplayBuffer(capacity=5, device="cpu", generator=torch.Generator().manual_seed(0))
    for start in (0, 3, 6):
        buffer.extend(TensorDict({"x": torch.arange(start, start + 3.0)}, batch_size=[3]))
    assert (buffer.size, buffer.added) == (5, 9)
    assert buffer.contents()["x"].tolist() == [4.0, 5.0, 6.0, 7.0, 8.0]
    assert set(buffer.sample(64)["x"].tolist()) <= {4.0, 5.0, 6.0, 7.0, 8.0}


def test_soft_update_moves_parameters_by_tau_and_copies_normaliser_statistics():
    obs = TensorDict({"critic": torch.randn(16, 3)}, batch_size=[16])
    source, target = (TwinQFunction(obs, ["critic"], 2, [8]) for _ in range(2))
    source.train()
    source.update_normalization(obs)
    before = [p.clone() for p in target.parameters()]
    soft_update(target, source, tau=0.25)
    for old, new, src in zip(before, target.parameters(), source.parameters()):
        torch.testing.assert_close(new, 0.75 * old + 0.25 * src)
    for new, src in zip(target.buffers(), source.buffers()):
        assert torch.equal(new, src)


def bandit_sac(target_entropy: float, init_alpha: float = 1.0, mean_penalty: float = 0.0,
               mean_penalty_free: float = 0.0) -> SAC:
    obs = TensorDict({"policy": torch.zeros(1, 2), "critic": torch.zeros(1, 2)}, batch_size=[1])
    groups = {"actor": ["policy"], "critic": ["critic"]}
    actor = MLPModel(obs, groups, "actor", 1, [32, 32], "elu", False,
                     {"class_name": "locolab.models.squashed_gaussian:SquashedGaussianDistribution",
                      "init_std": 1.0, "action_bound": 1.0})
    critic = TwinQFunction(obs, ["critic"], 1, [32, 32], obs_normalization=False)
    return SAC(actor, critic, 1, gamma=0.0, actor_learning_rate=3e-3, critic_learning_rate=3e-3,
               alpha_learning_rate=1e-2, init_alpha=init_alpha, target_entropy=target_entropy,
               mean_penalty=mean_penalty, mean_penalty_free=mean_penalty_free)


def action_indifferent_batch(size: int) -> tuple[TensorDict, TensorDict]:
    """Observations for :func:`bandit_sac` and a batch of them whose reward does not depend on the action."""
    obs = TensorDict({"policy": torch.randn(size, 2), "critic": torch.randn(size, 2)}, batch_size=[size])
    batch = TensorDict({"obs": obs, "action": torch.rand(size, 1) * 2 - 1, "reward": torch.zeros(size),
                        "discount": torch.zeros(size), "bootstrap_obs": obs}, batch_size=[size])
    return obs, batch


@pytest.fixture
def one_torch_thread():
    """Small networks update 5-10x faster on one thread than on two competing with other processes."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def test_the_temperature_drives_the_policy_entropy_to_its_target_on_a_bandit(one_torch_thread):
    """One-step bandit with reward -(a - 0.3)^2 over actions in [-1, 1]: the critic learns it from uniformly random
    actions, the actor concentrates near 0.3, and the temperature settles where the entropy meets its target."""
    torch.manual_seed(0)
    target = -1.0
    sac = bandit_sac(target)
    entropies = []
    for _ in range(1000):
        obs = TensorDict({"policy": torch.randn(256, 2), "critic": torch.randn(256, 2)}, batch_size=[256])
        action = torch.rand(256, 1) * 2 - 1
        batch = TensorDict({"obs": obs, "action": action, "reward": -(action[:, 0] - 0.3).square(),
                            "discount": torch.zeros(256), "bootstrap_obs": obs}, batch_size=[256])
        entropies.append(sac.update(batch)["entropy"])
    assert entropies[0] > 0.2  # it starts wide: about uniform over [-1, 1] (entropy log 2)
    assert abs(sum(entropies[-200:]) / 200 - target) < 0.25
    assert sac.alpha.item() < 0.1  # the temperature fell from 1 to reach the target
    with torch.no_grad():
        mean_action = sac.actor(TensorDict({"policy": torch.randn(64, 2)}, batch_size=[64]))
    assert abs(mean_action.mean().item() - 0.3) < 0.1


def collected_ids(chunks) -> list[int]:
    """The observation ids of a sequence of chunks, through the 1-step window into a replay buffer."""
    buffer = ReplayBuffer(capacity=10_000, device="cpu")
    window = NStepWindow(1, GAMMA)
    for chunk in chunks:
        buffer.extend(window.add(chunk.steps).reshape(-1))
    return sorted(int(x) for x in buffer.contents()["obs"]["policy"][:, 0].tolist())


@pytest.mark.parametrize("collector_class", [SyncCollector, AsyncCollector])
def test_a_collector_delivers_every_transition_exactly_once(collector_class):
    env = CountingVecEnv(num_envs=3)
    collector = collector_class(env, ConstantPolicy(), num_steps=4, device="cpu")
    try:
        chunks = [collector.collect() for _ in range(5)]
    finally:
        collector.close()
    assert collected_ids(chunks) == list(range(5 * 4 * 3))
    steps = torch.cat([chunk.steps for chunk in chunks])
    assert steps["reward"][:, 0].tolist() == [float(step) for step in range(1, 21)]
    assert (steps["terminated"] | steps["time_out"]).sum() > 0


def test_the_async_collector_acts_with_published_weights_within_a_bounded_lag():
    env = CountingVecEnv(num_envs=2)
    learner = ConstantPolicy(0.0)
    queue_size = 2
    collector = AsyncCollector(env, learner, num_steps=3, device="cpu", queue_size=queue_size)
    try:
        for version in range(1, 30):
            chunk = collector.collect()
            assert version - 1 - chunk.policy_version <= queue_size + 1
            # every action in the chunk came from a version at least as new as the chunk's
            assert chunk.steps["action"].min().item() >= chunk.policy_version
            time.sleep(0.01)  # a learner's update
            with torch.no_grad():
                learner.weight.fill_(float(version))
            collector.publish(learner, version)
        assert chunk.policy_version >= 29 - queue_size - 2
    finally:
        collector.close()


def test_the_async_collector_stops_cleanly_and_steps_the_environment_in_its_own_thread():
    """close() returns also when the collector thread is blocked on a full queue, as it soon is here. Broken, it
    would wait for ever, not for a while: closed from another thread, a minute bounds that wait on any machine,
    however loaded."""
    env = CountingVecEnv(num_envs=2)
    collector = AsyncCollector(env, ConstantPolicy(), num_steps=2, device="cpu", queue_size=1)
    collector.collect()
    closing = threading.Thread(target=collector.close, daemon=True)
    closing.start()
    closing.join(timeout=60.0)
    assert not closing.is_alive(), "close() hangs"
    assert not collector._thread.is_alive()
    steps = env.steps
    time.sleep(0.2)
    assert env.steps == steps  # nothing steps after close
    assert env.stepping_thread is not None and env.stepping_thread.name == "locolab-collector"


def test_a_collector_thread_error_is_raised_in_the_main_thread():
    collector = AsyncCollector(CountingVecEnv(num_envs=2, fail_at=5), ConstantPolicy(), num_steps=2, device="cpu")
    try:
        with pytest.raises(CollectorError, match="simulated solver failure") as raised:
            for _ in range(10):
                collector.collect()
        assert isinstance(raised.value.__cause__, FloatingPointError)
    finally:
        collector.close()


def test_squashed_actions_stay_inside_the_bound_and_their_log_density_integrates_to_one():
    from locolab.models.squashed_gaussian import SquashedGaussianDistribution

    distribution = SquashedGaussianDistribution(1, action_bound=2.0)
    mlp_output = torch.tensor([[[0.4], [math.log(0.7)]]]).expand(200_000, 2, 1)
    distribution.update(mlp_output)
    actions, log_prob = distribution.rsample_with_log_prob()
    assert actions.abs().max() < 2.0
    # importance check: E_p[1 / p(a)] over the support [-2, 2] is its length, 4
    assert abs(torch.exp(-log_prob).mean().item() - 4.0) < 0.1
    assert distribution.deterministic_output(mlp_output[:1]).item() == pytest.approx(2.0 * math.tanh(0.4))


def test_per_action_bounds_squash_each_action_into_its_own_range_with_a_density_that_integrates_to_one():
    from locolab.models.squashed_gaussian import SquashedGaussianDistribution

    distribution = SquashedGaussianDistribution(2, action_bounds=[[-0.5, 1.5], [-3.0, -1.0]])
    mlp_output = torch.tensor([[[0.3, -0.2], [math.log(0.8), math.log(0.6)]]]).expand(200_000, 2, 2)
    distribution.update(mlp_output)
    actions, log_prob = distribution.rsample_with_log_prob()
    assert (actions[:, 0] > -0.5).all() and (actions[:, 0] < 1.5).all()
    assert (actions[:, 1] > -3.0).all() and (actions[:, 1] < -1.0).all()
    # importance check: E_p[1 / p(a)] over the support [-0.5, 1.5] x [-3, -1] is its area, 4
    assert abs(torch.exp(-log_prob).mean().item() - 4.0) < 0.15
    expected = [0.5 + math.tanh(0.3), -2.0 + math.tanh(-0.2)]
    assert distribution.deterministic_output(mlp_output[:1])[0].tolist() == pytest.approx(expected)
    exported = distribution.as_deterministic_output_module()
    assert exported(mlp_output[:1])[0].tolist() == pytest.approx(expected)


def test_a_checkpoint_carries_its_action_bounds_to_an_actor_built_from_the_default_config():
    """play.py, eval.py and export.py build the actor from the task's default config, then load the checkpoint."""
    from locolab.algorithms.sac import DISTRIBUTION

    obs = TensorDict({"policy": torch.randn(4, 3)}, batch_size=[4])

    def actor(**bounds):
        return MLPModel(obs, {"actor": ["policy"]}, "actor", 2, [8], "elu", False,
                        {"class_name": DISTRIBUTION, "init_std": 0.3, "action_bound": 3.0, **bounds})

    trained = actor(action_bounds=[[-0.5, 1.5], [-3.0, -1.0]])
    played = actor()
    played.load_state_dict(trained.state_dict())
    assert torch.equal(played(obs), trained(obs))
    older = {key: value for key, value in trained.state_dict().items() if not key.startswith("distribution.action_")}
    fresh = actor()
    fresh.load_state_dict(older)  # a checkpoint written before the bounds were saved: the config's bound stays
    assert fresh.distribution.action_half_range.tolist() == [3.0, 3.0]


@pytest.mark.parametrize("bounds, problem", [([[-1.0, 1.0]], "one \\[low, high\\] pair per action \\(2\\)"),
                                             ([[-1.0, 1.0], [1.0, -1.0]], "finite low < high"),
                                             ([[-1.0, 1.0], [0.0, float("inf")]], "finite low < high")])
def test_action_bounds_that_cannot_squash_are_refused_with_the_problem_named(bounds, problem):
    from locolab.models.squashed_gaussian import ActionBoundsError, SquashedGaussianDistribution

    with pytest.raises(ActionBoundsError, match=problem):
        SquashedGaussianDistribution(2, action_bounds=bounds)


def test_the_mean_penalty_adds_the_squared_pre_squash_mean_to_the_actor_loss_and_unsaturates_it(one_torch_thread):
    """A reward that does not care about the action: the penalty alone brings a mean from the flat end of the tanh
    back to the centre."""
    obs, batch = action_indifferent_batch(256)
    first_losses = []
    for mean_penalty in (0.0, 0.1):
        torch.manual_seed(0)
        sac = bandit_sac(target_entropy=-10.0, init_alpha=1e-6, mean_penalty=mean_penalty)
        torch.nn.init.constant_(sac.actor.mlp[-2].bias[:1], 4.0)  # the mean starts at tanh(4) = 0.9993 of the bound
        pre_squash_mean = sac.actor.mlp(sac.actor.get_latent(obs))[..., 0, :]
        first_losses.append(sac.update(batch)["surrogate"])
    assert first_losses[1] - first_losses[0] == pytest.approx(0.1 * pre_squash_mean.square().mean().item(), rel=1e-4)
    for _ in range(300):
        sac.update(batch)
    assert sac.actor(obs).abs().mean().item() < 0.1  # the deterministic action (bound 1) is back at the centre


def test_the_mean_penalty_leaves_means_within_its_free_band_alone_and_squares_the_excess_beyond(one_torch_thread):
    _, batch = action_indifferent_batch(64)
    for pre_squash_mean, penalty in ((0.8, 0.0), (-0.8, 0.0), (1.5, 0.25), (-2.0, 1.0)):
        losses = []
        for mean_penalty in (0.0, 1.0):
            torch.manual_seed(0)
            sac = bandit_sac(target_entropy=-10.0, init_alpha=1e-6, mean_penalty=mean_penalty, mean_penalty_free=1.0)
            torch.nn.init.zeros_(sac.actor.mlp[-2].weight)
            torch.nn.init.constant_(sac.actor.mlp[-2].bias[:1], pre_squash_mean)  # every state: this mean
            losses.append(sac.update(batch)["surrogate"])
        assert losses[1] - losses[0] == pytest.approx(penalty, abs=1e-5), pre_squash_mean


def test_an_untrained_sac_actor_holds_the_default_pose_in_every_state():
    from locolab.algorithms.sac import DISTRIBUTION

    obs = TensorDict({"policy": 3.0 * torch.randn(256, 45)}, batch_size=[256])
    actor = MLPModel(obs, {"actor": ["policy"]}, "actor", 12, [256, 128], "elu", True,
                     {"class_name": DISTRIBUTION, "init_std": 0.3, "action_bound": 3.0, "init_mean_std": 1e-3})
    assert actor(obs).abs().max() < 0.1  # action units: 0.025 rad around the default joint positions
    actor(obs, stochastic_output=True)
    assert actor.distribution.std.mean().item() == pytest.approx(0.3, rel=1e-3)  # the noise is the configured one


def test_a_layer_normed_critic_stays_bounded_for_actions_far_from_the_data():
    """Without LayerNorm, Q grows without bound along an action direction, a slope the actor would chase to the
    action bound; with it, the hidden layers' scale is fixed, so Q levels off."""
    torch.manual_seed(0)
    obs = TensorDict({"critic": torch.randn(64, 5)}, batch_size=[64])
    direction = torch.randn(64, 2)
    for layer_norm, growth in ((False, lambda ratio: ratio > 10.0), (True, lambda ratio: ratio < 1.5)):
        critic = TwinQFunction(obs, ["critic"], 2, [32, 32], obs_normalization=False, layer_norm=layer_norm)
        near, far = (critic(obs, scale * direction)[0].abs().mean().item() for scale in (10.0, 1000.0))
        assert growth(far / near), (layer_norm, far / near)


def test_a_layer_normed_sac_checkpoint_is_rebuilt_from_the_default_config():
    """play.py, eval.py and export.py build SAC from the task's default config (GPU-sized networks, no LayerNorm),
    fitted to the checkpoint's networks."""
    from locolab.algorithms.sac_cfg import SacRunnerCfg
    from locolab.runners.checkpoints import fit_sac_networks

    obs = TensorDict({"policy": torch.randn(4, 3), "critic": torch.randn(4, 5)}, batch_size=[4])
    trained_cfg = SacRunnerCfg(max_iterations=1, experiment_name="test", device="cpu")
    trained_cfg.actor.hidden_dims, trained_cfg.critic.hidden_dims = [8], [16, 8]
    trained_cfg.critic.layer_norm = True
    trained = SAC.from_config(obs, 2, trained_cfg.to_dict(), "cpu")
    checkpoint = trained.save()
    cfg = SacRunnerCfg(max_iterations=1, experiment_name="test", device="cpu")
    fit_sac_networks(cfg, checkpoint)
    assert (cfg.actor.hidden_dims, cfg.critic.hidden_dims, cfg.critic.layer_norm) == ([8], [16, 8], True)
    rebuilt = SAC.from_config(obs, 2, cfg.to_dict(), "cpu")
    rebuilt.load(checkpoint)
    action = torch.rand(4, 2)
    assert torch.equal(rebuilt.critic(obs, action)[0], trained.critic(obs, action)[0])


def test_an_actor_copies_after_an_update_without_the_updates_autograd_graph():
    """The asynchronous collector deep-copies the actor each time training (re)starts: the walking gate's chunks
    start it after updates, when the actor's distribution still holds tensors of the update's autograd graph."""
    from locolab.algorithms.sac_cfg import SacRunnerCfg

    obs = TensorDict({"policy": torch.randn(8, 3), "critic": torch.randn(8, 5)}, batch_size=[8])
    cfg = SacRunnerCfg(max_iterations=1, experiment_name="test", device="cpu")
    cfg.actor.hidden_dims, cfg.critic.hidden_dims = [8], [8]
    sac = SAC.from_config(obs, 2, cfg.to_dict(), "cpu")
    batch = TensorDict({"obs": obs, "bootstrap_obs": obs, "action": torch.rand(8, 2) - 0.5, "reward": torch.randn(8),
                        "discount": torch.full((8,), 0.9)}, batch_size=[8])
    sac.update(batch)
    copied = copy.deepcopy(sac.actor)
    assert torch.equal(copied(obs), sac.actor(obs))  # the same deterministic actions from the same weights
