"""The CPU task variants and agent configs: what a CPU run trains with, chosen by itself, printed and saved."""

from __future__ import annotations

import argparse
import re

import pytest
import torch

from conftest import last_json, run_dirs, run_main, run_script, run_side_by_side

from locolab.envs import load_task_cfgs
from locolab.envs.mdp.rewards import TRAINING_ONLY_REWARDS
from locolab.envs.observation_noise import noise_free_share
from locolab.eval.terrain_sweep import TERRAIN_TYPES
from locolab.run_params import read_run_params
from locolab.runners.checkpoints import AGENT_CFG_KEY
from locolab.tasks import AGENT_ENTRY_POINTS, cpu_variant
from locolab.tasks import go2_velocity_cpu_env_cfg as cpu_env
from locolab.agents import go2_ppo_cfg, go2_roa_cfg

TASK = "LocoLab-Velocity-Flat-Go2"
ROUGH = "LocoLab-Velocity-Rough-Go2"


def cpu_configs(agent: str = "ppo", phase: str = "train", task: str = TASK):
    return load_task_cfgs(cpu_variant(task, agent, phase), AGENT_ENTRY_POINTS[(agent, phase)], device="cpu")


def gpu_configs(agent: str = "ppo", phase: str = "train", task: str = TASK):
    return load_task_cfgs(task, AGENT_ENTRY_POINTS[(agent, phase)], device="cpu", num_envs=4096)


def test_every_agent_has_a_registered_cpu_variant_on_both_terrains_and_cpu_tasks_have_none():
    variants = {(task, *key): cpu_variant(task, *key) for task in (TASK, ROUGH) for key in AGENT_ENTRY_POINTS}
    assert variants[(TASK, "ppo", "train")] == variants[(TASK, "ppo_rnn", "train")] == f"{TASK}-CPU"
    assert variants[(TASK, "roa", "finetune")] == f"{TASK}-RoaFinetune-CPU"
    assert variants[(ROUGH, "sac", "train")] == f"{ROUGH}-Sac-CPU"
    assert len(set(variants.values())) == 8 and None not in variants.values()
    assert cpu_variant(f"{TASK}-CPU", "ppo", "train") is None and cpu_variant(f"{TASK}-Play", "ppo", "train") is None


def test_ppos_cpu_variant_sets_physics_robots_rewards_and_ppo_and_keeps_the_control_rate():
    env_cfg, agent_cfg = cpu_configs()
    stock_env, stock_agent = gpu_configs()
    physics = cpu_env.CPU_PHYSICS
    assert (env_cfg.scene.num_envs, env_cfg.sim_processes) == (cpu_env.CPU_NUM_ENVS, cpu_env.CPU_SIM_PROCESSES)
    assert env_cfg.sim.physics.num_substeps == physics["num_substeps"] < stock_env.sim.physics.num_substeps
    solver = env_cfg.sim.physics.solver_cfg
    assert (solver.integrator, solver.iterations) == (physics["integrator"], physics["solver_iterations"])
    assert (env_cfg.sim.dt, env_cfg.decimation) == (physics["dt"], physics["decimation"])
    assert env_cfg.sim.dt * env_cfg.decimation == pytest.approx(stock_env.sim.dt * stock_env.decimation)  # 50 Hz
    assert env_cfg.scene.contact_forces.update_period == physics["dt"]
    assert env_cfg.skip_absent_passive_forces and env_cfg.physics_engine == "mujoco_c"
    assert stock_env.physics_engine == "mujoco_warp" and not stock_env.skip_absent_passive_forces
    assert env_cfg.curriculum.robustness is not None
    rewards, stock = env_cfg.rewards, stock_env.rewards
    for term in ("track_lin_vel_xy_exp", "track_ang_vel_z_exp"):
        assert getattr(rewards, term).weight == pytest.approx(2 * getattr(stock, term).weight)
    fine = (rewards.track_lin_vel_xy_fine, rewards.track_ang_vel_z_fine)
    assert [(term.func, term.weight, term.params["std"]) for term in fine] == [
        (rewards.track_lin_vel_xy_exp.func, 2.0, cpu_env.FINE_TRACKING["std"]),
        (rewards.track_ang_vel_z_exp.func, 1.0, cpu_env.FINE_TRACKING["std"])]
    assert rewards.track_lin_vel_xy_exp.params["std"] > cpu_env.FINE_TRACKING["std"]  # the stock width stays
    # a share of PPO's commands asks to turn in place, which Isaac Lab's heading commands almost never do
    assert env_cfg.commands.base_velocity.rel_turn_in_place_envs == cpu_env.TURN_IN_PLACE_ENVS > 0
    assert noise_free_share(env_cfg) == cpu_env.NOISE_FREE_OBSERVATION_ENVS > 0
    from isaaclab_tasks.contrib.velocity.config.spot.mdp import GaitReward

    assert rewards.trot_gait.func is GaitReward and rewards.trot_gait.weight == cpu_env.TROT_GAIT["weight"]
    assert rewards.trot_gait.params["synced_feet_pair_names"] == (("FL_foot", "RR_foot"), ("FR_foot", "RL_foot"))
    assert agent_cfg.num_steps_per_env == go2_ppo_cfg.PPO_CPU["num_steps_per_env"]
    for name in ("learning_rate", "schedule", "entropy_coef", "num_learning_epochs", "num_mini_batches"):
        assert getattr(agent_cfg.algorithm, name) == go2_ppo_cfg.PPO_CPU[name], name
    schedule = go2_ppo_cfg.PPO_CPU_SCHEDULE
    assert agent_cfg.algorithm.desired_kl == schedule["desired_kl"] != stock_agent.algorithm.desired_kl
    assert agent_cfg.algorithm.symmetry_cfg is not None and stock_agent.algorithm.symmetry_cfg is None
    # the last iterations learn without mirrored minibatches
    assert agent_cfg.symmetry_until == schedule["symmetry_until"] < agent_cfg.max_iterations == schedule["max_iterations"]
    assert (agent_cfg.entropy_schedule.start, agent_cfg.entropy_schedule.end) == schedule["entropy_off"]
    noise = agent_cfg.action_noise_schedule
    assert ((noise.start, noise.end), noise.final) == (schedule["action_noise_window"], schedule["action_noise_final"])
    assert (agent_cfg.threads.collection, agent_cfg.threads.learning) == (1, 0)
    assert agent_cfg.evaluation.interval == 0 < stock_agent.evaluation.interval
    assert agent_cfg.walking_gate.extra_iterations == go2_ppo_cfg.WALKING_GATE_EXTRA_ITERATIONS > 0
    assert stock_agent.walking_gate.extra_iterations == 0
    # bfloat16 updates are an option, not the CPU default: make train's recipe did not walk with them
    assert agent_cfg.update_precision == "float32"


@pytest.mark.parametrize(("agent", "phase", "trot", "noise_free"), [
    ("ppo_rnn", "train", True, True), ("sac", "train", True, False), ("roa", "train", True, False),
    ("roa", "finetune", True, False)])
def test_each_agent_trains_on_the_environment_its_recipe_was_measured_on(agent, phase, trot, noise_free):
    env_cfg, agent_cfg = cpu_configs(agent, phase)
    assert env_cfg.physics_engine == "mujoco_c" and env_cfg.scene.num_envs == cpu_env.CPU_NUM_ENVS
    # every agent meets in-place turn commands: the walking checks ask for one, and the feet resist pivoting
    assert env_cfg.commands.base_velocity.rel_turn_in_place_envs == cpu_env.TURN_IN_PLACE_ENVS
    assert (getattr(env_cfg.rewards, "trot_gait", None) is not None) == trot
    assert (noise_free_share(env_cfg) > 0) == noise_free
    concentration = env_cfg.events.dynamics.params["ranges"].sample_concentration
    assert concentration == (cpu_env.ROA_FINETUNE_DYNAMICS_CONCENTRATION if phase == "finetune" else 1.0)
    # rsl_rl mirrors no recurrent policy
    assert (getattr(agent_cfg.algorithm, "symmetry_cfg", None) is not None) == (agent == "roa")


@pytest.mark.parametrize("phase", ["train", "finetune"])
def test_roa_phases_take_their_iterations_and_regulariser_window(phase):
    _, agent_cfg = cpu_configs("roa", phase)
    teacher = go2_roa_cfg.ROA_TEACHER_CPU_SCHEDULE  # the schedule the teacher's recipe was measured on
    student = go2_roa_cfg.ROA_FINETUNE_CPU
    assert agent_cfg.max_iterations == (teacher["max_iterations"] if phase == "train" else student["max_iterations"])
    assert tuple(agent_cfg.algorithm.reg_lambda_window) == go2_roa_cfg.ROA_CPU_REG_LAMBDA_WINDOW
    assert agent_cfg.algorithm.desired_kl == teacher["desired_kl"] != go2_ppo_cfg.PPO_CPU_SCHEDULE["desired_kl"]
    # the teacher's learning rate starts adaptive like PPO's; the student's is held at the teacher's last
    assert (agent_cfg.algorithm.schedule, agent_cfg.algorithm.learning_rate) == (
        ("adaptive", go2_ppo_cfg.PPO_CPU["learning_rate"]) if phase == "train"
        else ("fixed", student["learning_rate"]))
    # the teacher's last 50 iterations, the student's last 150 are not mirrored
    assert agent_cfg.max_iterations - agent_cfg.symmetry_until == (50 if phase == "train" else 150)
    if phase == "train":  # the teacher learns like PPO; the student finetunes without the entropy bonus
        assert (agent_cfg.entropy_schedule.start, agent_cfg.entropy_schedule.end) == teacher["entropy_off"]
        assert agent_cfg.action_noise_schedule.final == teacher["action_noise_final"]
        assert agent_cfg.experiment_name == "locolab_go2_flat_roa"
    else:
        assert agent_cfg.algorithm.entropy_coef == 0.0 and agent_cfg.entropy_schedule.end == 0
        assert agent_cfg.action_noise_schedule.end == 0
        assert agent_cfg.experiment_name == "locolab_go2_flat_roa_finetune"
    assert agent_cfg.walking_gate.extra_iterations == go2_ppo_cfg.WALKING_GATE_EXTRA_ITERATIONS


def test_the_rough_teacher_learns_on_rough_ppos_schedule_and_its_student_finetunes_on_its_own():
    _, ppo = cpu_configs("ppo", task=ROUGH)
    _, teacher = cpu_configs("roa", task=ROUGH)
    _, student = cpu_configs("roa", "finetune", task=ROUGH)
    # the teacher and its blind baseline learn alike
    assert teacher.algorithm.desired_kl == ppo.algorithm.desired_kl == go2_ppo_cfg.ROUGH_PPO_CPU_SCHEDULE["desired_kl"]
    assert (teacher.max_iterations, teacher.symmetry_until) == (ppo.max_iterations, ppo.symmetry_until)
    assert teacher.entropy_schedule.start == ppo.entropy_schedule.start
    assert teacher.action_noise_schedule.final == ppo.action_noise_schedule.final
    assert student.max_iterations == go2_roa_cfg.ROUGH_ROA_FINETUNE_ITERATIONS
    assert student.algorithm.entropy_coef == 0.0 and student.algorithm.schedule == "fixed"


def test_sac_takes_the_physics_and_its_own_sizes_but_no_ppo_settings():
    env_cfg, agent_cfg = cpu_configs("sac")
    _, stock = gpu_configs("sac")
    assert (env_cfg.sim.dt, env_cfg.scene.num_envs) == (cpu_env.CPU_PHYSICS["dt"], cpu_env.CPU_NUM_ENVS)
    assert (agent_cfg.num_steps_per_env, agent_cfg.max_iterations) == (8, 1600)
    algorithm = agent_cfg.algorithm
    assert (algorithm.batch_size, algorithm.num_updates, algorithm.buffer_size) == (1024, 32, 400_000)
    assert (algorithm.target_entropy, algorithm.mean_penalty, algorithm.symmetry_augmentation) == (10.0, 0.1, False)
    assert stock.algorithm.batch_size != algorithm.batch_size and stock.algorithm.target_entropy is None
    assert (agent_cfg.actor.hidden_dims, agent_cfg.critic.hidden_dims) == ([256, 128], [256, 256])
    assert agent_cfg.critic.layer_norm and not stock.critic.layer_norm
    schedule = agent_cfg.entropy_schedule
    assert (schedule.start, schedule.end, schedule.final) == (800, 1400, -4.0)
    # on flat ground SAC trains on, as PPO does, until its final checkpoint walks: its checkpoints swing
    assert (agent_cfg.walking_gate.extra_iterations, agent_cfg.walking_gate.chunk) == (600, 100)
    assert not hasattr(algorithm, "entropy_coef")


def test_rough_sac_has_no_walking_gate_and_every_rough_agent_logs_as_rough():
    _, agent_cfg = cpu_configs("sac", task=ROUGH)
    assert agent_cfg.walking_gate.extra_iterations == 0  # SAC's rough recipe has no gate yet
    for agent in ("ppo", "sac", "roa"):
        assert cpu_configs(agent, task=ROUGH)[1].experiment_name.startswith("locolab_go2_rough")


def test_the_cpu_play_variant_plays_in_the_training_physics_without_the_training_rewards():
    play_cfg, _ = load_task_cfgs(f"{TASK}-CPU-Play", device="cpu")
    assert (play_cfg.sim.dt, play_cfg.sim.physics.num_substeps) == (0.005, 1)
    assert play_cfg.scene.num_envs == 32 and play_cfg.events.push_robot is None
    assert not any(getattr(play_cfg.rewards, name, None) for name in TRAINING_ONLY_REWARDS)


def arguments(**given) -> argparse.Namespace:
    defaults = dict(task=TASK, agent="ppo", phase="train", teacher=None, collector=None, num_envs=None, device="cpu",
                    max_iterations=None, seed=None, run_name="", resume=None, log_root="logs", sim_processes=None,
                    no_cpu_profile=False, overrides=[])
    return argparse.Namespace(**{**defaults, **given})


def test_a_cpu_run_chooses_the_cpu_variant_and_says_so_first(capsys):
    from locolab.training import training_task

    assert training_task(arguments(agent="roa", phase="finetune")) == f"{TASK}-RoaFinetune-CPU"
    assert capsys.readouterr().out.startswith(f"[LocoLab] No GPU asked for or visible: training {TASK}-RoaFinetune-CPU")
    assert training_task(arguments(no_cpu_profile=True)) == TASK
    assert training_task(arguments(task=f"{TASK}-CPU")) == f"{TASK}-CPU"  # a CPU task as given
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("agent", ["ppo", "sac"])
def test_explicit_environment_count_and_iterations_win_over_the_cpu_configs(agent):
    from locolab.training import configure

    env_cfg, agent_cfg, _ = configure(arguments(agent=agent, num_envs=8, max_iterations=3, sim_processes=1),
                                      cpu_variant(TASK, agent, "train"))
    assert (env_cfg.scene.num_envs, agent_cfg.max_iterations, env_cfg.sim_processes) == (8, 3, 1)
    assert agent_cfg.walking_gate.extra_iterations == 0  # --max_iterations N trains exactly N


def test_a_resume_goes_on_with_the_settings_its_checkpoint_trained_with_flags_and_overrides_on_top():
    """docs/reliability.md: network sizes, schedules and plan come from the resumed checkpoint, not from this
    version's registered config; ``--seed`` and overrides still apply, and ``--max_iterations`` leaves the plan."""
    from locolab.training import configure

    _, trained = cpu_configs(task=ROUGH)
    trained.actor.hidden_dims, trained.max_iterations, trained.seed = [64, 32], 900, 5
    saved = {AGENT_CFG_KEY: trained.to_dict()}
    _, agent_cfg, _ = configure(arguments(task=ROUGH, overrides=["agent.algorithm.learning_rate=2e-4"]),
                                cpu_variant(ROUGH, "ppo", "train"), trained=saved)
    assert (agent_cfg.actor.hidden_dims, agent_cfg.max_iterations, agent_cfg.seed) == ([64, 32], 900, 5)
    assert agent_cfg.algorithm.learning_rate == 2e-4 and agent_cfg.walking_gate.extra_iterations > 0
    _, agent_cfg, _ = configure(arguments(task=ROUGH, max_iterations=10, seed=9), cpu_variant(ROUGH, "ppo", "train"),
                                trained=saved)
    assert (agent_cfg.max_iterations, agent_cfg.seed, agent_cfg.walking_gate.extra_iterations) == (900, 9, 0)


def test_a_plain_resume_past_its_plan_without_a_gate_is_refused_in_one_line():
    """A run started with --max_iterations has its gate off; resumed plainly past its plan it would end at once with
    nothing trained. It is refused before anything is built, naming both ways on; either way is then accepted."""
    from locolab.training import configure

    _, trained = cpu_configs(task=ROUGH)
    trained.walking_gate.extra_iterations = 0
    saved = {AGENT_CFG_KEY: trained.to_dict(), "iter": trained.max_iterations + 99}
    task = cpu_variant(ROUGH, "ppo", "train")
    with pytest.raises(ValueError, match=r"nothing to train: .* --max_iterations N .*extra_iterations=500"):
        configure(arguments(task=ROUGH), task, trained=saved)
    configure(arguments(task=ROUGH, max_iterations=10), task, trained=saved)
    configure(arguments(task=ROUGH, overrides=["agent.walking_gate.extra_iterations=500"]), task, trained=saved)
    configure(arguments(task=ROUGH), task, trained={**saved, "iter": trained.max_iterations - 2})  # plan not done


@pytest.mark.slow
def test_a_cpu_run_trains_the_cpu_variant_and_saves_its_configs_with_overrides_applied_last(tmp_path):
    result = run_script("train.py", "--device", "cpu", "--num_envs", "8", "--max_iterations", "1", "--seed", "1",
                        "--log_root", str(tmp_path), "agent.algorithm.learning_rate=3e-4",
                        "env.commands.base_velocity.ranges.lin_vel_x=[-0.5,0.5]",
                        "env.sim.physics.solver_cfg.iterations=3")
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.startswith(f"[LocoLab] No GPU asked for or visible: training {TASK}-CPU")
    (run,) = run_dirs(tmp_path)
    assert not (run / "params" / "cpu_profile.yaml").exists()  # the configs say it all
    env = read_run_params(run, "env")
    agent = read_run_params(run, "agent")
    assert env["scene"]["num_envs"] == 8 and agent["algorithm"]["learning_rate"] == 3e-4  # the flag and override won
    assert env["sim"]["physics"]["num_substeps"] == 1 and env["decimation"] == 4 and env["sim_processes"] == 2
    assert env["sim"]["physics"]["solver_cfg"]["iterations"] == 3 and env["physics_engine"] == "mujoco_c"
    assert list(env["commands"]["base_velocity"]["ranges"]["lin_vel_x"]) == [-0.5, 0.5]
    assert env["rewards"]["trot_gait"]["weight"] == cpu_env.TROT_GAIT["weight"]
    assert agent["num_steps_per_env"] == 24 and agent["walking_gate"]["extra_iterations"] == 0
    # a solver capped at 3 iterations reaches its cap in some worlds; MuJoCo-Warp's line per world is turned off
    assert "solver iterations limit reached" not in result.stdout + result.stderr


@pytest.mark.slow
def test_the_profiles_euler_integrator_steps_the_robot_exactly_as_isaac_labs_implicit_one():
    """Explicit actuator torques and no joint damping leave the implicit integrator nothing to integrate: the cheaper
    Euler step is the same physics (what the -CPU tasks' integrator relies on)."""
    assert cpu_env.CPU_PHYSICS["integrator"] == "euler"
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
    passive-force stage and Euler's damping solve (what the -CPU tasks' ``skip_absent_passive_forces`` turns on)
    changes its motion by float32 rounding only, and a joint given damping brings the stages back."""
    assert load_task_cfgs(f"{TASK}-CPU", device="cpu")[0].skip_absent_passive_forces
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
    assert "No GPU" not in result.stdout
    env = read_run_params(run, "env")
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
    ("agent.walking_gate.play_seconds=0", "agent.walking_gate.play_seconds must be positive, got 0"),
    ("env.events.dynamics.params.ranges.joint_friction=[0.4,0.1]",
     "ranges.joint_friction is (0.4, 0.1): give finite (low, high) with low <= high, both at least 0."),
    ("env.events.dynamics.params.ranges.joint_damping=[-0.1,0.2]", "ranges.joint_damping is (-0.1, 0.2)"),
    ("env.events.dynamics.params.ranges.action_delay=[0,1.5]", "ranges.action_delay (0, 1.5): give whole physics"),
    ("env.events.dynamics.params.ranges.action_delay=[0,6]",
     "ranges.action_delay reaches 6 physics steps but the robot's actuators buffer 4"),
])
def test_bad_overrides_fail_before_any_environment_is_built(tmp_path, override, message):
    result = run_main("train.py", "--device", "cpu", "--max_iterations", "1", "--log_root", str(tmp_path), override)
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())  # nothing was built or written


@pytest.mark.parametrize(("agent", "phase"), [("ppo", "train"), ("sac", "train"), ("roa", "train"), ("roa", "finetune")])
def test_rough_cpu_variants_train_on_the_cpu_terrain_grid_collided_as_a_heightfield(agent, phase):
    env_cfg, _ = cpu_configs(agent, phase, ROUGH)
    generator = env_cfg.scene.terrain.terrain_generator
    assert {name: getattr(generator, name) for name in cpu_env.CPU_TERRAIN} == cpu_env.CPU_TERRAIN
    assert all(sub.convert_to_heightfield for sub in generator.sub_terrains.values())
    bounds = env_cfg.terminations.terrain_out_of_bounds
    assert bounds.time_out and bounds.params["distance_buffer"] == cpu_env.OUT_OF_BOUNDS_BUFFER
    stock, _ = gpu_configs(agent, phase, ROUGH)  # the GPU keeps the stock grid, as a heightfield too
    assert stock.scene.terrain.terrain_generator.num_cols == 20
    assert all(sub.convert_to_heightfield for sub in stock.scene.terrain.terrain_generator.sub_terrains.values())
    # one command per episode on the CPU's terrain, so the curriculum judges a robot by the command it stalled under
    assert env_cfg.commands.base_velocity.resampling_time_range == (env_cfg.episode_length_s,) * 2
    assert stock.commands.base_velocity.resampling_time_range[1] < stock.episode_length_s
    # the narrower linear fine-tracking kernel (flat ground's stays; the yaw kernel stays)
    fine = (env_cfg.rewards.track_lin_vel_xy_fine, env_cfg.rewards.track_ang_vel_z_fine)
    assert [term.params["std"] for term in fine] == [cpu_env.ROUGH_FINE_LIN_VEL_STD, cpu_env.FINE_TRACKING["std"]]
    assert cpu_env.ROUGH_FINE_LIN_VEL_STD < cpu_env.FINE_TRACKING["std"]


def test_the_cpu_grid_has_rows_past_the_gates_stairs_and_boxes_and_the_gpu_keeps_the_stock_ranges():
    """On the CPU grid the gate's 10 cm stairs and boxes sit at least three rows under the top (stock ceilings put the
    stairs at row 7.9 of 10, the boxes at 10), so the curriculum can push past them; every stock final difficulty is
    still inside the grid; the GPU is stock."""
    cpu_subs = cpu_configs("ppo", "train", ROUGH)[0].scene.terrain.terrain_generator.sub_terrains
    stock_subs = gpu_configs("ppo", "train", ROUGH)[0].scene.terrain.terrain_generator.sub_terrains
    rows = cpu_env.CPU_TERRAIN["num_rows"]
    for tile, value in go2_ppo_cfg.ROUGH_GATE_TILES:
        name, field, _ = TERRAIN_TYPES[tile]
        if name not in cpu_env.CPU_TERRAIN_CEILINGS:
            assert cpu_subs[name] == stock_subs[name], name  # slopes and noise: Isaac Lab's ranges
            continue
        (low, high), (stock_low, stock_high) = getattr(cpu_subs[name], field), getattr(stock_subs[name], field)
        assert low == stock_low and high == cpu_env.CPU_TERRAIN_CEILINGS[name][1] > stock_high, name
        assert (value - low) / (high - low) * rows <= rows - 3, f"{tile} {value} sits in the top rows"


@pytest.mark.parametrize(("agent", "phase", "min_success"), [("ppo", "train", 0.8), ("ppo_rnn", "train", 0.8),
                                                            ("roa", "train", 0.9), ("roa", "finetune", 0.8)])
def test_rough_cpu_runs_are_gated_on_flat_walking_and_the_terrain_tiles(agent, phase, min_success):
    _, agent_cfg = cpu_configs(agent, phase, ROUGH)
    gate = agent_cfg.walking_gate
    assert gate.extra_iterations == go2_ppo_cfg.WALKING_GATE_EXTRA_ITERATIONS
    assert tuple(map(tuple, gate.terrain_tiles)) == go2_ppo_cfg.ROUGH_GATE_TILES
    assert gate.terrain_min_success == min_success
    _, flat_cfg = cpu_configs(agent, phase)
    assert not flat_cfg.walking_gate.terrain_tiles
    # rough plans are no shorter than flat ones; the rough teacher's is rough PPO's (it shares PPO's schedule)
    plan = cpu_configs("ppo", task=ROUGH)[1] if (agent, phase) == ("roa", "train") else flat_cfg
    assert agent_cfg.max_iterations >= plan.max_iterations


@pytest.mark.parametrize(("value", "message"), [
    ("{boxes:3.0}", None),
    ("{box:3.0}", "promote_distance names box, which the terrain does not have: use pyramid_stairs"),
    ("{boxes:0}", "promote_distance[boxes] must be a positive distance in metres, got 0"),
])
def test_a_rough_runs_promotion_distances_are_checked_before_any_environment_is_built(value, message):
    """docs/rough-terrain.md#curriculum: a bad ``promote_distance`` fails in ``configure`` with one line, not inside
    the simulation at the first episode's end."""
    from locolab.training import configure

    args = arguments(task=ROUGH, overrides=[f"env.curriculum.terrain_levels.params.promote_distance={value}"])
    if message is None:
        env_cfg, _, _ = configure(args, cpu_variant(ROUGH, "ppo", "train"))
        assert env_cfg.curriculum.terrain_levels.params["promote_distance"] == {"boxes": 3.0}
    else:
        with pytest.raises(ValueError, match=re.escape(message)) as error:
            configure(args, cpu_variant(ROUGH, "ppo", "train"))
        assert "\n" not in str(error.value)
