"""The CPU training profile: one definition, applied to CPU runs (flags and overrides win), printed and saved."""

from __future__ import annotations

import pytest
import torch
import yaml

from conftest import last_json, run_dirs, run_main, run_script, run_side_by_side

from locolab.cpu_profile import CpuProfileCfg, apply_cpu_profile, effective_settings
from locolab.envs import load_task_cfgs
from locolab.tasks import AGENT_ENTRY_POINTS

TASK = "LocoLab-Velocity-Flat-Go2"


def cpu_configs(agent: str = "ppo", phase: str = "train"):
    return load_task_cfgs(TASK, AGENT_ENTRY_POINTS[(agent, phase)], device="cpu")


def test_profile_sets_physics_rollout_and_ppo_and_keeps_the_control_rate():
    env_cfg, agent_cfg = cpu_configs()
    control_period = env_cfg.sim.dt * env_cfg.decimation
    tracking = (env_cfg.rewards.track_lin_vel_xy_exp.weight, env_cfg.rewards.track_ang_vel_z_exp.weight)
    profile = CpuProfileCfg()
    apply_cpu_profile(env_cfg, agent_cfg, profile)
    assert env_cfg.scene.num_envs == profile.num_envs
    assert env_cfg.sim.physics.num_substeps == profile.num_substeps
    solver = env_cfg.sim.physics.solver_cfg
    assert (solver.integrator, solver.iterations) == (profile.integrator, profile.solver_iterations)
    assert (env_cfg.sim.dt, env_cfg.decimation) == (profile.physics_dt, profile.decimation)
    assert env_cfg.sim.dt * env_cfg.decimation == pytest.approx(control_period)  # the policy still acts at 50 Hz
    assert env_cfg.scene.contact_forces.update_period == profile.physics_dt
    assert env_cfg.skip_absent_passive_forces == profile.skip_absent_passive_forces
    assert agent_cfg.num_steps_per_env == profile.num_steps_per_env
    assert agent_cfg.max_iterations == profile.ppo.max_iterations
    for name in ("learning_rate", "schedule", "entropy_coef", "num_learning_epochs", "num_mini_batches"):
        assert getattr(agent_cfg.algorithm, name) == getattr(profile, name), name
    assert agent_cfg.algorithm.desired_kl == profile.ppo.desired_kl
    assert (agent_cfg.algorithm.symmetry_cfg is not None) == profile.symmetry_augmentation
    # the last iterations learn without mirrored minibatches
    assert agent_cfg.symmetry_until == profile.ppo.symmetry_until < profile.ppo.max_iterations
    assert (getattr(env_cfg.curriculum, "robustness", None) is not None) == profile.robustness_curriculum
    assert (env_cfg.rewards.track_lin_vel_xy_exp.weight, env_cfg.rewards.track_ang_vel_z_exp.weight) == \
        pytest.approx([weight * profile.tracking_reward_scale for weight in tracking])
    fine = (env_cfg.rewards.track_lin_vel_xy_fine, env_cfg.rewards.track_ang_vel_z_fine)
    assert [(term.func, term.weight, term.params["std"]) for term in fine] == [
        (env_cfg.rewards.track_lin_vel_xy_exp.func, profile.fine_tracking_weights[0], profile.fine_tracking_std),
        (env_cfg.rewards.track_ang_vel_z_exp.func, profile.fine_tracking_weights[1], profile.fine_tracking_std)]
    assert env_cfg.rewards.track_lin_vel_xy_exp.params["std"] > profile.fine_tracking_std  # the stock width stays
    # a share of PPO's commands asks to turn in place, which Isaac Lab's heading commands almost never do
    assert env_cfg.commands.base_velocity.rel_turn_in_place_envs == profile.turn_in_place_envs > 0
    assert effective_settings(env_cfg, agent_cfg)["turn_in_place_envs"] == profile.turn_in_place_envs
    # PPO is paid for a trot, with a kernel sized for the Go2's short steps (trot_gait_std)
    assert (env_cfg.rewards.trot_gait.weight, env_cfg.rewards.trot_gait.params["std"]) == (
        profile.trot_gait_weight, profile.trot_gait_std)
    assert profile.trot_gait_weight > 0 and profile.trot_gait_std < 0.1  # below Spot's 0.1
    schedule = agent_cfg.entropy_schedule
    assert (schedule.start, schedule.end, schedule.final) == (*profile.ppo.entropy_off, 0.0)
    noise = agent_cfg.action_noise_schedule
    assert (noise.start, noise.end, noise.final, noise.learning_rate) == (
        *profile.ppo.action_noise_window, profile.ppo.action_noise_final, profile.action_noise_learning_rate)
    assert (agent_cfg.threads.collection, agent_cfg.threads.learning) == (profile.collection_threads,
                                                                          profile.learning_threads)
    # bfloat16 updates are an option, not the profile's: make train's recipe did not walk with them (update_precision)
    assert effective_settings(env_cfg, agent_cfg)["update_precision"] == agent_cfg.update_precision == "float32"


@pytest.mark.parametrize("agent", ["ppo", "sac"])
def test_explicit_environment_count_and_iterations_win_over_the_profile(agent):
    env_cfg, agent_cfg = cpu_configs(agent)
    env_cfg.scene.num_envs, agent_cfg.max_iterations = 8, 3
    apply_cpu_profile(env_cfg, agent_cfg, CpuProfileCfg(), num_envs_given=True, max_iterations_given=True)
    assert (env_cfg.scene.num_envs, agent_cfg.max_iterations) == (8, 3)
    assert agent_cfg.walking_gate.extra_iterations == 0  # --max_iterations N trains exactly N


@pytest.mark.parametrize(("task", "agent", "phase"), [(TASK, "ppo", "train"), (TASK, "roa", "finetune"),
                                                      ("LocoLab-Velocity-Rough-Go2", "ppo", "train")])
def test_on_flat_ground_the_profile_trains_on_until_the_final_checkpoint_walks(task, agent, phase):
    env_cfg, agent_cfg = load_task_cfgs(task, AGENT_ENTRY_POINTS[(agent, phase)], device="cpu")
    assert agent_cfg.walking_gate.extra_iterations == 0  # the GPU defaults: no gate
    profile = CpuProfileCfg()
    apply_cpu_profile(env_cfg, agent_cfg, profile)
    flat = task == TASK  # the walking checks are flat-ground ones
    assert agent_cfg.walking_gate.extra_iterations == (profile.walking_gate_extra_iterations if flat else 0)
    assert ("walking_gate" in effective_settings(env_cfg, agent_cfg)) == flat


@pytest.mark.parametrize("phase", ["train", "finetune"])
def test_roa_phases_take_their_iterations_and_regulariser_window(phase):
    env_cfg, agent_cfg = cpu_configs("roa", phase)
    profile = CpuProfileCfg()
    apply_cpu_profile(env_cfg, agent_cfg, profile)
    teacher = profile.roa_teacher  # the schedule the teacher's recipe was measured on, not PPO's newer one
    assert agent_cfg.max_iterations == (teacher.max_iterations if phase == "train" else
                                        profile.roa_finetune_iterations)
    assert tuple(agent_cfg.algorithm.reg_lambda_window) == tuple(profile.roa_reg_lambda_window)
    assert agent_cfg.algorithm.desired_kl == teacher.desired_kl != profile.ppo.desired_kl  # measured at 0.01
    # the teacher's learning rate starts adaptive like PPO's; the student's is held at the teacher's last
    assert (agent_cfg.algorithm.schedule, agent_cfg.algorithm.learning_rate) == (
        (profile.schedule, profile.learning_rate) if phase == "train"
        else ("fixed", profile.roa_finetune_learning_rate))
    assert (agent_cfg.algorithm.symmetry_cfg is not None) == profile.symmetry_augmentation  # PPO-ROA takes it too
    # ... except at the end: the teacher's last 50 iterations, the student's last 150
    assert agent_cfg.symmetry_until == (teacher.symmetry_until if phase == "train" else
                                        profile.roa_finetune_symmetry_until)
    assert agent_cfg.max_iterations - agent_cfg.symmetry_until == (50 if phase == "train" else 150)
    # the student meets the ranges' ends more often than the teacher (the same ranges, arcsine draws)
    concentration = env_cfg.events.dynamics.params["ranges"].sample_concentration
    assert concentration == (1.0 if phase == "train" else profile.roa_finetune_dynamics_concentration) < 1.5
    assert effective_settings(env_cfg, agent_cfg)["dynamics_sample_concentration"] == concentration
    assert env_cfg.commands.base_velocity.rel_turn_in_place_envs == 0.0  # measured for PPO only
    if phase == "train":  # the teacher learns like PPO; the student finetunes without the entropy bonus
        assert (agent_cfg.entropy_schedule.start, agent_cfg.entropy_schedule.end) == teacher.entropy_off
        noise = agent_cfg.action_noise_schedule
        assert (noise.start, noise.end) == teacher.action_noise_window
        assert noise.final == teacher.action_noise_final != profile.ppo.action_noise_final  # measured at 0.1
    else:
        assert agent_cfg.algorithm.entropy_coef == 0.0 and agent_cfg.entropy_schedule.end == 0
        assert agent_cfg.action_noise_schedule.end == 0


def test_sac_takes_the_physics_and_its_own_sizes_but_no_ppo_settings():
    env_cfg, agent_cfg = cpu_configs("sac")
    profile = CpuProfileCfg()
    apply_cpu_profile(env_cfg, agent_cfg, profile)
    assert (env_cfg.sim.dt, env_cfg.decimation, env_cfg.scene.num_envs) == (profile.physics_dt, profile.decimation,
                                                                             profile.num_envs)
    assert agent_cfg.num_steps_per_env == profile.sac.num_steps_per_env
    # SAC trains on PPO's commands and gait reward: with them its final checkpoint began to turn in place
    assert env_cfg.commands.base_velocity.rel_turn_in_place_envs == profile.turn_in_place_envs > 0
    assert env_cfg.rewards.trot_gait.weight == profile.trot_gait_weight > 0
    assert agent_cfg.max_iterations == profile.sac.max_iterations
    for name in ("batch_size", "num_updates", "buffer_size", "learning_starts", "target_entropy",
                 "alpha_learning_rate", "symmetry_augmentation", "mean_penalty"):
        assert getattr(agent_cfg.algorithm, name) == getattr(profile.sac, name), name
    schedule = agent_cfg.entropy_schedule
    assert (schedule.start, schedule.end, schedule.final) == profile.sac.entropy_schedule
    assert agent_cfg.critic.hidden_dims == profile.sac.critic_hidden_dims
    assert agent_cfg.critic.layer_norm == profile.sac.critic_layer_norm
    settings = effective_settings(env_cfg, agent_cfg)
    assert settings["collector"] == "sync" and "entropy_coef" not in settings
    assert settings["target_entropy"] == profile.sac.target_entropy
    assert settings["critic_layer_norm"] == profile.sac.critic_layer_norm
    assert settings["entropy_schedule"] == list(profile.sac.entropy_schedule)
    assert settings["symmetry_augmentation"] == profile.sac.symmetry_augmentation
    assert settings["mean_penalty"] == profile.sac.mean_penalty > 0
    assert settings["torch_threads"] == {"collection": profile.collection_threads,
                                         "learning": profile.learning_threads}
    # on flat ground SAC trains on, as PPO does, until its final checkpoint walks: its checkpoints swing
    assert (agent_cfg.walking_gate.extra_iterations, agent_cfg.walking_gate.chunk) == (
        profile.sac.walking_gate_extra_iterations, profile.sac.walking_gate_chunk)
    assert settings["walking_gate"] == agent_cfg.walking_gate.to_dict()
    assert profile.sac.walking_gate_extra_iterations > 0


@pytest.mark.parametrize(("agent", "phase", "added"), [("ppo", "train", True), ("roa", "train", False),
                                                      ("roa", "finetune", False), ("sac", "train", True)])
def test_a_trot_gait_weight_adds_isaac_labs_gait_reward_on_the_diagonal_feet_of_ppo_and_sac(agent, phase, added):
    env_cfg, agent_cfg = cpu_configs(agent, phase)
    apply_cpu_profile(env_cfg, agent_cfg, CpuProfileCfg(trot_gait_weight=1.5, trot_gait_std=0.02))
    term = getattr(env_cfg.rewards, "trot_gait", None)
    assert (term is not None) == added  # PPO-ROA's recipe was not measured with it
    assert effective_settings(env_cfg, agent_cfg)["trot_gait"] == ([1.5, 0.02] if added else None)
    if added:
        from isaaclab_tasks.contrib.velocity.config.spot.mdp import GaitReward

        assert term.func is GaitReward
        assert term.params["synced_feet_pair_names"] == (("FL_foot", "RR_foot"), ("FR_foot", "RL_foot"))


def test_effective_settings_read_the_configs_after_overrides():
    env_cfg, agent_cfg = cpu_configs()
    apply_cpu_profile(env_cfg, agent_cfg, CpuProfileCfg())
    agent_cfg.algorithm.learning_rate = 3e-4
    settings = effective_settings(env_cfg, agent_cfg)
    assert settings["learning_rate"] == 3e-4 and settings["num_envs"] == CpuProfileCfg().num_envs


@pytest.mark.slow
def test_a_cpu_run_applies_prints_and_saves_the_profile_with_overrides_applied_last(tmp_path):
    result = run_script("train.py", "--device", "cpu", "--num_envs", "8", "--max_iterations", "1", "--seed", "1",
                        "--log_root", str(tmp_path), "agent.algorithm.learning_rate=3e-4",
                        "env.commands.base_velocity.ranges.lin_vel_x=[-0.5,0.5]",
                        "env.sim.physics.solver_cfg.iterations=3")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "[LocoLab] CPU training profile" in result.stdout
    (run,) = run_dirs(tmp_path)
    saved = yaml.safe_load((run / "params" / "cpu_profile.yaml").read_text())
    profile = CpuProfileCfg()
    assert saved["num_envs"] == 8 and saved["learning_rate"] == 3e-4  # the flag and the override won
    assert saved["num_substeps"] == profile.num_substeps and saved["physics_dt"] == profile.physics_dt
    assert saved["sim_processes"] == profile.sim_processes
    assert (saved["integrator"], saved["solver_iterations"]) == (profile.integrator, 3)
    # a solver capped at 3 iterations reaches its cap in some worlds; MuJoCo-Warp's line per world is turned off
    assert "solver iterations limit reached" not in result.stdout + result.stderr
    env = yaml.unsafe_load((run / "params" / "env.yaml").read_text())
    agent = yaml.unsafe_load((run / "params" / "agent.yaml").read_text())
    assert env["sim"]["physics"]["num_substeps"] == profile.num_substeps and env["decimation"] == profile.decimation
    assert list(env["commands"]["base_velocity"]["ranges"]["lin_vel_x"]) == [-0.5, 0.5]
    assert agent["algorithm"]["learning_rate"] == 3e-4
    assert agent["num_steps_per_env"] == profile.num_steps_per_env


@pytest.mark.slow
def test_the_profiles_euler_integrator_steps_the_robot_exactly_as_isaac_labs_implicit_one():
    """Explicit actuator torques and no joint damping leave the implicit integrator nothing to integrate: the cheaper
    Euler step is the same physics (what ``CpuProfileCfg.integrator`` relies on)."""
    assert CpuProfileCfg().integrator == "euler"
    integrators = ("euler", "implicitfast")
    results = run_side_by_side(*(("tests/probe_integrator.py", "--integrator", name) for name in integrators))
    runs = {}
    for integrator, result in zip(integrators, results):
        assert result.returncode == 0, result.stderr[-3000:]
        runs[integrator] = last_json(result.stdout)["states"]
    assert len(runs["euler"]) == 5
    assert runs["euler"] == runs["implicitfast"]  # bit for bit, over 250 random actions with falls and resets


@pytest.mark.slow
def test_skipping_the_go2s_absent_passive_forces_moves_it_as_computing_them_until_a_joint_gets_damping():
    """The Go2 has no joint springs or dampers, gravity compensation or fluid forces: skipping MuJoCo-Warp's
    passive-force stage and Euler's damping solve (what ``CpuProfileCfg.skip_absent_passive_forces`` turns on)
    changes its motion by float32 rounding only, and a joint given damping brings the stages back."""
    assert CpuProfileCfg().skip_absent_passive_forces
    modes = ("computed", "skipped")
    results = run_side_by_side(*(("tests/probe_integrator.py", "--integrator", "euler", "--passive", mode)
                                 for mode in modes))
    runs = {}
    for mode, result in zip(modes, results):
        assert result.returncode == 0, result.stderr[-3000:]
        runs[mode] = last_json(result.stdout)
    assert runs["skipped"]["skip_flags_set"] and not runs["skipped"]["skip_flags_set_with_damping"]
    assert not runs["computed"]["skip_flags_set"]
    assert len(runs["skipped"]["states"]) == 5
    for computed, skipped in zip(runs["computed"]["states"], runs["skipped"]["states"]):  # 250 actions, with falls
        assert torch.allclose(torch.tensor(skipped["joint_pos"]), torch.tensor(computed["joint_pos"]), rtol=0,
                              atol=1e-4)
        assert torch.allclose(torch.tensor(skipped["base_height"]), torch.tensor(computed["base_height"]), rtol=0,
                              atol=1e-5)


@pytest.mark.slow
def test_no_cpu_profile_keeps_the_tasks_settings(tmp_path):
    # the task's periodic evaluation (32 environments, a 20 s episode: about 2.5 minutes here) is not under test
    result = run_script("train.py", "--device", "cpu", "--num_envs", "8", "--max_iterations", "1",
                        "--no_cpu_profile", "--log_root", str(tmp_path), "agent.evaluation.interval=0")
    assert result.returncode == 0, result.stderr[-3000:]
    (run,) = run_dirs(tmp_path)
    assert not (run / "params" / "cpu_profile.yaml").exists()
    env = yaml.unsafe_load((run / "params" / "env.yaml").read_text())
    assert env["sim"]["physics"]["num_substeps"] == 2 and env["sim"]["dt"] == 0.005
    assert env["skip_absent_passive_forces"] is False  # Isaac Lab's step, every stage computed


@pytest.mark.slow
@pytest.mark.parametrize(("override", "message"), [
    ("env.scene.num_env=8", "unknown key 'env.scene.num_env'"),
    ("agent.algorithm.learning_rate=fast", "'agent.algorithm.learning_rate' takes a float"),
    ("env.events.dynamics.params.ranges.sample_concentration=0", "sample_concentration must be a positive number"),
    ("agent.update_precision=float16", "agent.update_precision must be one of float32, bfloat16"),
    ("agent.evaluation.seconds=0", "agent.evaluation.seconds must be a positive number of seconds"),
    ("env.physics_engine=bullet", "physics_engine 'bullet' is not known: use one of mujoco_warp, mujoco_c."),
])
def test_bad_overrides_fail_before_any_environment_is_built(tmp_path, override, message):
    result = run_main("train.py", "--device", "cpu", "--max_iterations", "1", "--log_root", str(tmp_path), override)
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())  # nothing was built or written
