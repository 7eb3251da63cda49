"""Guarantees of README.md and docs/ that no other test pinned (issue 68), each test naming the page that makes it:
the CPU settings' concrete numbers, periodic evaluation's defaults, the stop after repeated non-finite updates (with
PPO-ROA's three optimizers), one-line errors (the async collector on a GPU, a PPO checkpoint resumed as SAC, an MLP
resumed as RNN, SIGTERM during start-up), eval.py's held mid-range values, terrain levels after resume, a refused
checkpoint leaving the previous one byte-identical and policy.json's recorded fields.

None of them builds an Isaac Lab environment or trains the Go2 task: configs are loaded, the runner's own methods run
on stand-ins for the environment, and where an update must run the toy PPO-ROA environment of the adaptation tests
(:mod:`hidden_gain_env`) trains."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from conftest import load_script, run_main

from locolab.envs import load_task_cfgs
from locolab.tasks import AGENT_ENTRY_POINTS, cpu_variant

FLAT, ROUGH = "LocoLab-Velocity-Flat-Go2", "LocoLab-Velocity-Rough-Go2"
AGENTS = tuple(AGENT_ENTRY_POINTS)
"""Every (--agent, --phase)."""


def cpu_cfgs(agent: str = "ppo", phase: str = "train", task: str = FLAT):
    """What train.py trains on a machine without a GPU: the task's CPU variant for the agent, with its CPU config."""
    return load_task_cfgs(cpu_variant(task, agent, phase), AGENT_ENTRY_POINTS[(agent, phase)], device="cpu")


def gpu_cfgs(agent: str = "ppo", phase: str = "train", task: str = FLAT):
    """The registered task and agent as a GPU run trains them (the device only names where they run)."""
    return load_task_cfgs(task, AGENT_ENTRY_POINTS[(agent, phase)], device="cpu", num_envs=4096)


@pytest.fixture
def one_visible_gpu(monkeypatch):
    """torch reports one CUDA device: for train.py's refusals that come before anything touches the GPU."""
    import locolab.training  # noqa: F401  (imported before the fake: nothing initialises CUDA on import)

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)


def nothing_is_built(monkeypatch) -> None:
    """Fail the test if train.py goes on to build a training environment."""
    import locolab.training

    def refuse(*args, **kwargs):
        raise AssertionError("train.py built an environment instead of refusing")

    monkeypatch.setattr(locolab.training, "open_training_env", refuse)


def one_error_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    return lines[0]


# --- docs/cpu_training.md, README.md, docs/agents.md, docs/ppo_roa.md: the CPU settings' numbers ----------------------


def test_ppos_cpu_settings_are_the_documented_numbers():
    """docs/cpu_training.md's table and the README's '512 robots in 2 simulation processes, 635 iterations', as
    numbers (tests/test_cpu_variants.py compares the configs with the constants they are built from)."""
    from locolab.envs.observation_noise import noise_free_share
    from locolab.runners.action_noise_schedule import action_std_ceiling
    from locolab.runners.entropy_schedule import scheduled_entropy

    env, agent = cpu_cfgs()
    assert (env.scene.num_envs, env.sim_processes, agent.max_iterations) == (512, 2, 635)
    physics = env.sim.physics
    assert (env.sim.dt, physics.num_substeps, env.decimation, physics.solver_cfg.integrator) == (0.005, 1, 4, "euler")
    assert env.sim.dt * env.decimation == pytest.approx(0.02)  # the policy at 50 Hz
    assert env.physics_engine == "mujoco_c"
    rewards = env.rewards
    assert (rewards.track_lin_vel_xy_exp.weight, rewards.track_ang_vel_z_exp.weight) == (3.0, 1.5)
    assert (rewards.track_lin_vel_xy_exp.params["std"], rewards.track_ang_vel_z_exp.params["std"]) == (0.5, 0.5)
    assert (rewards.track_lin_vel_xy_fine.weight, rewards.track_ang_vel_z_fine.weight) == (2.0, 1.0)
    assert (rewards.track_lin_vel_xy_fine.params["std"], rewards.track_ang_vel_z_fine.params["std"]) == (0.25, 0.25)
    assert (rewards.trot_gait.weight, rewards.trot_gait.params["std"]) == (2.0, 0.01)
    assert env.commands.base_velocity.rel_turn_in_place_envs == 0.2  # a fifth of the resamples
    assert noise_free_share(env) == 0.25  # each process's first quarter
    algorithm = agent.algorithm
    assert agent.num_steps_per_env * env.scene.num_envs / algorithm.num_mini_batches == 6144  # 2 minibatches
    assert algorithm.num_mini_batches == 2 and algorithm.desired_kl == 0.02
    entropy = agent.entropy_schedule
    assert [scheduled_entropy(it, algorithm.entropy_coef, entropy.start, entropy.end, entropy.final)
            for it in (150, 151, 634)] == [0.01, 0.0, 0.0]  # 0.01, then 0 from iteration 151
    noise = agent.action_noise_schedule
    ceilings = [action_std_ceiling(it, noise.start, noise.end, noise.initial, noise.final) for it in (149, 150, 385)]
    assert ceilings == [None, 1.0, 0.05] and noise.learning_rate == 3e-4
    assert (agent.symmetry_until, algorithm.symmetry_cfg is not None) == (585, True)
    gate = agent.walking_gate
    assert (gate.extra_iterations, gate.chunk, gate.play_seed) == (500, 50, 1)
    assert (agent.threads.collection, agent.threads.learning) == (1, 0)  # 0: torch's default


def test_the_gpu_side_of_the_cpu_table_is_the_tasks_isaac_lab_settings():
    from locolab.tasks.go2_velocity_env_cfg import LocoLabGo2FlatEnvCfg

    assert LocoLabGo2FlatEnvCfg().scene.num_envs == 4096
    env, agent = gpu_cfgs()
    physics = env.sim.physics
    assert (env.sim.dt, physics.num_substeps, physics.solver_cfg.integrator) == (0.005, 2, "implicitfast")
    assert (env.rewards.track_lin_vel_xy_exp.weight, env.rewards.track_ang_vel_z_exp.weight) == (1.5, 0.75)
    assert env.physics_engine == "mujoco_warp"
    assert (agent.algorithm.entropy_coef, agent.algorithm.desired_kl, agent.algorithm.num_mini_batches) == (
        0.01, 0.01, 4)
    assert agent.algorithm.schedule == "adaptive" and agent.algorithm.symmetry_cfg is None


def test_the_ppo_roa_teachers_and_students_cpu_settings_are_the_documented_numbers():
    """docs/cpu_training.md (entropy off from 216, noise to 0.1 over 215-450, KL 0.01, mirroring to 650 of 700 and
    150 of 300) and docs/ppo_roa.md (700 teacher and 300 student iterations, lambda over 200-600)."""
    from locolab.runners.action_noise_schedule import action_std_ceiling
    from locolab.runners.entropy_schedule import scheduled_entropy

    env, teacher = cpu_cfgs("roa")
    algorithm, entropy, noise = teacher.algorithm, teacher.entropy_schedule, teacher.action_noise_schedule
    assert [scheduled_entropy(it, algorithm.entropy_coef, entropy.start, entropy.end, entropy.final)
            for it in (215, 216)] == [0.01, 0.0]
    assert [action_std_ceiling(it, noise.start, noise.end, noise.initial, noise.final) for it in (214, 215, 450)] == [
        None, 1.0, 0.1]
    assert (algorithm.desired_kl, teacher.max_iterations, teacher.symmetry_until) == (0.01, 700, 650)
    assert (algorithm.latent_dim, algorithm.reg_lambda_max, tuple(algorithm.reg_lambda_window)) == (16, 0.1, (200, 600))
    assert (teacher.walking_gate.extra_iterations, teacher.walking_gate.chunk) == (500, 50)
    # PPO-ROA's teacher meets PPO's turn-in-place commands and gait reward (since 2026-12-03)
    assert env.commands.base_velocity.rel_turn_in_place_envs == 0.2 and env.rewards.trot_gait.weight == 2.0
    env, student = cpu_cfgs("roa", "finetune")
    algorithm = student.algorithm
    assert (student.max_iterations, student.symmetry_until) == (300, 150)
    assert (algorithm.schedule, algorithm.learning_rate, algorithm.entropy_coef) == ("fixed", 3e-4, 0.0)
    assert student.action_noise_schedule.end <= student.action_noise_schedule.start  # keeps the teacher's noise
    assert env.events.dynamics.params["ranges"].sample_concentration == 0.5  # Beta(0.5, 0.5)


def test_sacs_cpu_settings_are_the_documented_numbers():
    """docs/agents.md: 8 steps x 512 environments, 32 updates of 1024 (each transition replayed about 8 times), a
    400k buffer, actor 256-128, LayerNorm critics 256-256, entropy target 10 falling to -4 over 800-1400, mean
    penalty 0.1, temperature learning rate 3e-3, 1600 iterations, initial std 0.3, mean head N(0, 1e-3), temperature
    0.001; docs/cpu_training.md: its gate trains 100 iterations at a time, at most 600 more."""
    env, agent = cpu_cfgs("sac")
    algorithm = agent.algorithm
    assert (agent.num_steps_per_env, env.scene.num_envs, agent.max_iterations) == (8, 512, 1600)
    assert (algorithm.num_updates, algorithm.batch_size, algorithm.buffer_size) == (32, 1024, 400_000)
    replays = algorithm.num_updates * algorithm.batch_size / (agent.num_steps_per_env * env.scene.num_envs)
    assert replays == 8
    assert (agent.actor.hidden_dims, agent.critic.hidden_dims, agent.critic.layer_norm) == ([256, 128], [256, 256],
                                                                                          True)
    schedule = agent.entropy_schedule
    assert (algorithm.target_entropy, schedule.start, schedule.end, schedule.final) == (10.0, 800, 1400, -4.0)
    assert (algorithm.mean_penalty, algorithm.alpha_learning_rate, algorithm.init_alpha) == (0.1, 3e-3, 0.001)
    assert (agent.actor.init_std, agent.actor.init_mean_std) == (0.3, 1e-3)
    assert (agent.walking_gate.extra_iterations, agent.walking_gate.chunk) == (600, 100)
    assert agent.collector == "sync"  # the default stays sync
    # SAC trains with the turn-in-place commands and the gait reward, without the noise-free share
    assert env.commands.base_velocity.rel_turn_in_place_envs == 0.2 and env.rewards.trot_gait.weight == 2.0


# --- docs/evaluation.md: periodic evaluation on by default on a GPU (every 50 iterations), off in the CPU settings ---


@pytest.mark.parametrize("task", [FLAT, ROUGH])
def test_periodic_evaluation_is_every_50_iterations_on_a_gpu_and_off_in_every_cpu_config(task):
    for agent, phase in AGENTS:
        _, gpu = gpu_cfgs(agent, phase, task)
        assert (gpu.evaluation.interval, gpu.evaluation.num_envs) == (50, 32), (agent, phase)
        _, cpu = cpu_cfgs(agent, phase, task)
        assert cpu.evaluation.interval == 0, (agent, phase)


def test_a_gpu_run_trains_the_task_as_given_so_its_evaluation_is_on(one_visible_gpu, capsys):
    from locolab.training import training_task

    train_py = load_script("train.py")
    assert training_task(train_py.parse_args(["--device", "cuda"])) == FLAT  # not the -CPU variant
    assert training_task(train_py.parse_args([])) == FLAT  # the default device, with a GPU visible
    assert capsys.readouterr().out == ""


def test_a_cpu_run_builds_no_evaluation_environment(monkeypatch):
    import locolab.eval.periodic as periodic

    def refuse(*args, **kwargs):
        raise AssertionError("an evaluation environment was built")

    monkeypatch.setattr(periodic, "SubprocessVecEnv", refuse)
    env, agent = cpu_cfgs()
    with periodic.periodic_evaluation(cpu_variant(FLAT, "ppo", "train"), env, agent) as evaluator:
        assert evaluator is None


# --- docs/reliability.md: non-finite updates restored at most 3 times, every learning rate halved, then exit 1 -------


def toy_roa_algorithm():
    """PPO-ROA (its three optimizers: PPO's, the adaptation module's, the student's distillation) on the toy
    environment of the adaptation tests, built as rsl_rl's runner builds it, after one rollout."""
    from roa_toy_training import OBS_GROUPS, ROA_CFG, history_env, runner_cfg

    from locolab.algorithms import PPOROA

    torch.manual_seed(0)
    env = history_env(16, 0)
    cfg = runner_cfg(ROA_CFG | {"phase": "train", "num_mini_batches": 2, "num_adaptation_mini_batches": 2},
                     OBS_GROUPS) | {"num_steps_per_env": 8, "multi_gpu": None}
    alg = PPOROA.construct_algorithm(env.get_observations(), env, cfg, "cpu")
    obs = env.get_observations()
    with torch.inference_mode():
        for _ in range(8):
            obs, rewards, dones, extras = env.step(alg.act(obs))
            alg.process_env_step(obs, rewards, dones, extras)
        alg.compute_returns(obs)
    return alg


def learning_rates(alg) -> dict[str, float]:
    from locolab.algorithms.ppo_roa import OPTIMIZERS

    return {name: getattr(alg, name).param_groups[0]["lr"] for name in OPTIMIZERS} | {"roa": alg.learning_rate}


def nonfinite_updates(alg, guard, count: int) -> list[dict[str, float]]:
    """``count`` updates, each ending with a NaN in the acting policy, through the runner's guard; the learning rates
    after each restore."""
    rates = []
    for _ in range(count):
        guard.before_update()
        losses = alg.update()
        next(alg.get_policy().parameters()).data.fill_(float("nan"))
        assert guard.after_update(losses)
        rates.append(learning_rates(alg))
    return rates


def test_each_restore_halves_all_three_roa_learning_rates_and_the_fourth_bad_update_stops():
    """docs/reliability.md: the state before a non-finite update restored and every learning rate halved, at most
    agent.nonfinite.max_restores (3) times, then the run stops with the last good state in place."""
    from locolab.algorithms.ppo_roa import OPTIMIZERS
    from locolab.runners.nonfinite import NonFiniteUpdateError, UpdateGuard, nonfinite_parameters

    _, agent_cfg = cpu_cfgs("roa")
    assert agent_cfg.nonfinite.max_restores == 3 and agent_cfg.nonfinite.learning_rate_factor == 0.5
    alg = toy_roa_algorithm()
    assert OPTIMIZERS == ("optimizer", "adaptation_optimizer", "distillation_optimizer")
    initial = learning_rates(alg)
    assert len(set(initial.values())) > 1  # three optimizers with rates of their own
    guard = UpdateGuard(alg, agent_cfg.nonfinite.to_dict())
    for restore, rates in enumerate(nonfinite_updates(alg, guard, 3), start=1):
        assert rates == pytest.approx({name: rate * 0.5**restore for name, rate in initial.items()}), restore
    good = {key: value.clone() for key, value in alg.get_policy().state_dict().items()}
    guard.before_update()
    losses = alg.update()
    next(alg.get_policy().parameters()).data.fill_(float("nan"))
    with pytest.raises(NonFiniteUpdateError, match=r"after 3 restores \(agent.nonfinite.max_restores=3\)"):
        guard.after_update(losses)
    assert nonfinite_parameters(alg) == []  # the last good state is back, ready to be saved
    assert all(torch.equal(value, good[key]) for key, value in alg.get_policy().state_dict().items())
    assert learning_rates(alg) == pytest.approx({name: rate / 8 for name, rate in initial.items()})


def test_train_py_exits_1_with_one_line_when_updates_keep_going_nonfinite(tmp_path, monkeypatch):
    """docs/reliability.md: '... then the run stops (exit 1) with the last good state saved and a one-line error'.
    The runner's error (raised by the guard on the toy PPO-ROA algorithm, with the note the runner adds when it has
    saved the state) goes through train.py's own handling."""
    import locolab.training
    from locolab.runners.nonfinite import UpdateGuard

    class Runner:
        current_learning_iteration = 0

        def __init__(self, log_dir: str, nonfinite: dict) -> None:
            self.log_dir, self.alg = log_dir, toy_roa_algorithm()
            self.guard = UpdateGuard(self.alg, nonfinite)

        def learn(self, iterations, init_at_random_ep_len=False):
            try:
                nonfinite_updates(self.alg, self.guard, 4)
            except Exception as error:
                error.add_note(f"the last good state is saved as {self.log_dir}/model_2.pt")
                raise

    def build_runner(env, agent_cfg, log_dir, evaluator=None):
        assert evaluator is None  # the CPU settings evaluate nothing
        return Runner(log_dir, agent_cfg.nonfinite.to_dict())

    monkeypatch.setattr(locolab.training, "open_training_env", lambda *args, **kwargs: contextlib.nullcontext())
    monkeypatch.setattr(locolab.training, "build_runner", build_runner)
    result = run_main("train.py", "--agent", "roa", "--device", "cpu", "--num_envs", "8", "--max_iterations", "10",
                      "--log_root", str(tmp_path))
    assert result.returncode == 1, result.stderr
    line = one_error_line(result.stderr)
    assert line.startswith("error: the update went non-finite (")
    assert "after 3 restores (agent.nonfinite.max_restores=3); the last good state is saved as " in line
    assert line.endswith("model_2.pt. Lower agent.algorithm.learning_rate or check the task's rewards and "
                         "observations.")


# --- one-line errors: README.md / docs/agents.md / docs/reliability.md -----------------------------------------------


def test_the_async_collector_on_a_gpu_exits_2_with_one_line_before_anything_is_built(one_visible_gpu, monkeypatch,
                                                                                     tmp_path):
    nothing_is_built(monkeypatch)
    result = run_main("train.py", "--agent", "sac", "--collector", "async", "--device", "cuda", "--log_root",
                      str(tmp_path))
    assert result.returncode == 2
    assert "--collector async runs on a CPU" in one_error_line(result.stderr)
    assert "on cuda:0 use --collector sync" in result.stderr
    assert not list(tmp_path.iterdir())


def ppo_checkpoint(path: Path, carries_config: bool) -> Path:
    """A PPO checkpoint of the CPU task as train.py writes it: carrying its agent config, or (written before
    2026-12-02) only its weights."""
    _, agent = cpu_cfgs()
    saved = {"iter": 2, "task": cpu_variant(FLAT, "ppo", "train"), "infos": None,
             "actor_state_dict": {"mlp.0.weight": torch.zeros(512, 45), "obs_normalizer.count": torch.tensor(1)}}
    if carries_config:
        saved["agent_cfg"] = agent.to_dict()
    torch.save(saved, path)
    return path


@pytest.mark.parametrize("carries_config", [True, False], ids=["current", "older"])
@pytest.mark.parametrize("agent", ["sac", "ppo_rnn"])
def test_a_ppo_checkpoint_resumed_as_sac_or_as_a_recurrent_policy_is_one_line(tmp_path, monkeypatch, agent,
                                                                              carries_config):
    nothing_is_built(monkeypatch)
    checkpoint = ppo_checkpoint(tmp_path / "model_2.pt", carries_config)
    logs = tmp_path / "logs"
    result = run_main("train.py", "--agent", agent, "--device", "cpu", "--resume", str(checkpoint), "--log_root",
                      str(logs))
    assert result.returncode == 2
    assert one_error_line(result.stderr) == (f"error: Checkpoint '{checkpoint}' was trained with --agent ppo, not "
                                             f"--agent {agent}.")
    assert not logs.exists()


@pytest.fixture
def unhandled_sigterm_fails():
    """A SIGTERM that the script under test leaves unhandled fails the test (Python's default would end pytest)."""

    def unhandled(*_):
        pytest.fail("the script left SIGTERM unhandled: Python's default ends the process without a word")

    previous = signal.signal(signal.SIGTERM, unhandled)
    yield
    signal.signal(signal.SIGTERM, previous)


def test_sigterm_during_start_up_stops_at_once_with_one_line_and_exit_130(tmp_path, monkeypatch,
                                                                          unhandled_sigterm_fails):
    """README/docs/reliability.md: train.py's main turns a SIGTERM that lands before training (while the simulation
    processes build their environments) into one line and exit code 130 (tests/test_train.py sends it to a real
    start-up and checks that no simulation process is left)."""
    import locolab.training

    def starting_up(args):
        os.kill(os.getpid(), signal.SIGTERM)
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline:  # the environments being built
            time.sleep(0.05)
        return 0

    monkeypatch.setattr(locolab.training, "train", starting_up)
    result = run_main("train.py", "--device", "cpu", "--log_root", str(tmp_path))
    assert result.returncode == 130
    assert result.stderr.strip().splitlines() == [
        "[LocoLab] Stopped at once by a signal; the checkpoints written before it are complete."]
    assert result.stdout == ""


def test_sigterm_during_an_evaluation_stops_with_one_line_and_exit_130(tmp_path, monkeypatch,
                                                                         unhandled_sigterm_fails):
    """docs/reliability.md: eval.py stops on SIGTERM as on Ctrl-C (locolab.stop_signal), with one line and exit code
    130 instead of a traceback (benchmark.py too: tests/test_fresh_process.py sends it to a real run)."""
    import locolab.runners

    def resolving(path):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5.0)  # a checkpoint being read
        return Path(path)

    monkeypatch.setattr(locolab.runners, "resolve_checkpoint", resolving)
    result = run_main("eval.py", "--checkpoint", str(tmp_path / "model_1.pt"), "--device", "cpu", "--out",
                      str(tmp_path / "report"))
    assert result.returncode == 130
    assert result.stderr.strip().splitlines() == ["[LocoLab] Stopped by a signal; the report is not complete."]
    assert not (tmp_path / "report").exists()


# --- docs/evaluation.md: every other randomised parameter at the middle of its training range ------------------------


class HeldDynamics:
    """randomize_dynamics' side of a sweep: the range scale and the values held per environment."""

    def __init__(self) -> None:
        self.range_scale = 1.0
        self.held: dict[str, torch.Tensor] = {}

    def fix(self, name: str, values: torch.Tensor) -> None:
        self.held[name] = values.clone()


def test_eval_holds_each_swept_slice_at_its_value_and_samples_the_rest_at_zero_range():
    from locolab.eval.sweeps import DYNAMICS_PARAMETER, apply_grid, plan_grid, sweep_infos

    train_cfg, _ = cpu_cfgs()
    points = plan_grid(["friction", "motor", "command"], 2, sweep_infos(train_cfg))
    num_envs = points[-1].stop
    dynamics = HeldDynamics()
    command = SimpleNamespace(fixed=torch.zeros(num_envs, 3))
    env = SimpleNamespace(device="cpu", num_envs=num_envs,
                          event_manager=SimpleNamespace(get_term_cfg=lambda name: SimpleNamespace(func=dynamics),
                                                        active_terms={"reset": ["dynamics"]}),
                          command_manager=SimpleNamespace(get_term=lambda name: command))
    apply_grid(env, points)
    assert dynamics.range_scale == 0.0  # every draw is its range's middle
    assert set(dynamics.held) == set(DYNAMICS_PARAMETER.values())
    for name, values in dynamics.held.items():
        expected = torch.full((num_envs,), float("nan"))
        for point in points:
            if DYNAMICS_PARAMETER.get(point.sweep) == name:
                expected[point.envs] = point.value
        assert torch.equal(torch.isnan(values), torch.isnan(expected)), name  # NaN: not held, the middle is drawn
        assert torch.equal(values[~torch.isnan(values)], expected[~torch.isnan(expected)]), name


def test_at_zero_range_scale_every_draw_is_its_ranges_middle():
    from locolab.envs.mdp.dynamics import randomize_dynamics

    low = torch.tensor([0.3, -0.5, -0.1, 0.8, 0.7, 0.0])
    high = torch.tensor([2.5, 2.5, 0.1, 1.2, 1.3, 4.0])  # the last: a whole-number parameter (the delay)
    applied = []
    term = SimpleNamespace(num_envs=6, device="cpu", names=["a"] * 6, low=low, high=high, concentration=1.0,
                           range_scale=0.0, _integer=torch.tensor([False] * 5 + [True]), apply=lambda env_ids, values: applied.append((env_ids, values)))
    randomize_dynamics.__call__(term, None, torch.tensor([1, 4]), None, None)
    (env_ids, values), = applied
    assert env_ids.tolist() == [1, 4]
    assert torch.allclose(values, ((low + high) / 2).expand(2, -1))


@pytest.mark.parametrize("task", [FLAT, ROUGH])
def test_the_evaluation_task_randomises_only_the_training_tasks_dynamics_ranges(task):
    """eval.py plays every checkpoint on its training task's -Play variant: the middle of that task's ranges is the
    middle of every agent's training ranges, and no other event randomises the robot there."""
    from locolab.envs import play_variant

    def ranges(env_cfg):
        return {name: value for name, value in vars(env_cfg.events.dynamics.params["ranges"]).items()
                if name != "sample_concentration"}

    played, _ = load_task_cfgs(play_variant(task), device="cpu")
    for agent, phase in AGENTS:
        trained_task = cpu_variant(task, agent, phase)
        assert play_variant(trained_task) == f"{task}-Play"
        assert ranges(cpu_cfgs(agent, phase, task)[0]) == ranges(played), (agent, phase)
    assert ranges(gpu_cfgs(task=task)[0]) == ranges(played)
    randomising = {name for name, term in vars(played.events).items()
                   if term is not None and name not in ("reset_base", "reset_robot_joints")}
    assert randomising == {"dynamics"}


# --- docs/reliability.md: terrain levels saved in each checkpoint and restored on resume -----------------------------


class Terrain:
    """Isaac Lab's terrain importer as the curriculum state reads and writes it."""

    def __init__(self, levels: list[int], types: list[int]) -> None:
        self.terrain_levels = torch.tensor(levels)
        self.terrain_types = torch.tensor(types)
        self.terrain_origins = torch.arange(5 * 3 * 3, dtype=torch.float32).reshape(5, 3, 3)  # levels x types
        self.env_origins = self.terrain_origins[self.terrain_levels, self.terrain_types].clone()


def training_runner(terrain: Terrain, iteration: int = 0):
    """What LocoLab's runner reads when it saves and loads: an algorithm, an environment with terrain, no logger."""
    from locolab.runners.on_policy_runner import LocoLabOnPolicyRunner

    alg = SimpleNamespace(save=lambda: {"roa": {}}, load=lambda loaded, load_cfg, strict: True, learning_rate=1e-3,
                          get_policy=lambda: None)
    env = SimpleNamespace(unwrapped=SimpleNamespace(curriculum_manager=None, scene=SimpleNamespace(terrain=terrain)),
                          num_envs=len(terrain.terrain_levels))
    signature = {"observations": {"policy": [45]}, "num_actions": 12}
    runner = SimpleNamespace(alg=alg, env=env, device="cpu", current_learning_iteration=iteration, trained_cfg=None,
                             trains=True, logger=SimpleNamespace(save_model=lambda path, it: None),
                             environment_signature=lambda: signature)
    for method in ("save", "load", "training_state"):
        setattr(runner, method, getattr(LocoLabOnPolicyRunner, method).__get__(runner))
    return runner


def test_a_resumed_run_gives_every_robot_its_saved_terrain_level_and_origin(tmp_path):
    trained = training_runner(Terrain([4, 2, 0, 3], [0, 1, 2, 1]), iteration=7)
    assert trained.save(str(tmp_path / "model_7.pt"))
    resumed = training_runner(Terrain([0, 0, 0, 0], [0, 1, 2, 1]))  # a new run starts every robot at level 0
    resumed.load(str(tmp_path / "model_7.pt"))
    terrain = resumed.env.unwrapped.scene.terrain
    assert terrain.terrain_levels.tolist() == [4, 2, 0, 3]
    assert torch.equal(terrain.env_origins, terrain.terrain_origins[terrain.terrain_levels, terrain.terrain_types])
    state = resumed.training_state()  # train.py's 'Resumed state' line
    assert state["iteration"] == 8 and state["mean_terrain_level"] == pytest.approx(2.25)
    other_count = training_runner(Terrain([0, 0], [0, 1]))
    from locolab.runners import CheckpointError

    with pytest.raises(CheckpointError, match="terrain levels of 4 environments, this run has 2"):
        other_count.load(str(tmp_path / "model_7.pt"))


def test_terrain_levels_reach_each_simulation_process_by_environment_even_with_another_process_count():
    from locolab.envs.multiprocess import SubprocessVecEnv

    sent = []
    connection = SimpleNamespace(send=sent.append)
    levels = torch.tensor([4, 2, 0, 3, 1, 1])
    for bounds in ([(0, 3), (3, 6)], [(0, 2), (2, 4), (4, 6)]):
        sent.clear()
        vec_env = SimpleNamespace(num_envs=6, bounds=bounds, _conns=[connection] * len(bounds),
                                  _receive=lambda index, kind: None)
        SubprocessVecEnv.load_curriculum_states(vec_env, [{"robustness": {"level": 0.5}}], levels)
        assert [message[1][1].tolist() for message in sent] == [levels[start:stop].tolist() for start, stop in bounds]
        assert all(message[0] == "load_curriculum_state" for message in sent)


# --- docs/reliability.md: a checkpoint the disk refuses leaves the previous one intact, the run goes on ---------------


@contextlib.contextmanager
def small_file_system(path: Path, size: str = "2m"):
    """A tmpfs of ``size`` at ``path`` (needs root), else skip."""
    path.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                                           capture_output=True).returncode != 0:
        pytest.skip("mounting a small tmpfs needs root")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill(path: Path) -> Path:
    filler = path / "filler"
    with filler.open("wb", buffering=0) as file, contextlib.suppress(OSError):
        while True:
            file.write(b"\0" * 4096)
    return filler


def test_a_checkpoint_refused_by_a_full_disk_leaves_the_previous_one_byte_identical(tmp_path, capsys):
    with small_file_system(tmp_path / "disk") as disk:
        runner = training_runner(Terrain([1, 2], [0, 1]), iteration=3)
        runner.alg.save = lambda: {"actor_state_dict": {"w": torch.randn(64, 64)}}
        run = disk / "run"
        assert runner.save(str(run / "model_3.pt"))
        previous = (run / "model_3.pt").read_bytes()
        filler = fill(disk)
        runner.current_learning_iteration = 4
        assert runner.save(str(run / "model_4.pt")) is False  # no exception: the run goes on
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"[LocoLab] Could not write checkpoint {run / 'model_4.pt'} (")
        assert "No space left on device" in err[0] and "the previous checkpoint is kept and the run goes on" in err[0]
        assert (run / "model_3.pt").read_bytes() == previous
        assert sorted(p.name for p in run.iterdir()) == ["model_3.pt"]  # no half-written file, no temporary one
        filler.unlink()
        runner.current_learning_iteration = 5
        assert runner.save(str(run / "model_5.pt"))  # the next save writes again
        assert torch.load(run / "model_5.pt", weights_only=False)["iter"] == 5


# --- docs/deployment.md: policy.json's recorded fields ------------------------------------------------------------


DOCUMENTED_POLICY_JSON = {"format", "joint_names", "default_joint_pos", "default_joint_vel", "action", "pd_gains",
                          "effort_limit", "velocity_limit", "control_period_s", "physics_dt_s", "observation",
                          "history", "command", "inputs", "outputs", "task", "checkpoint", "parity", "versions",
                          "onnx_sha256", "joint_pos_limits", "recurrent"}
"""docs/deployment.md's list, and ``recurrent`` from its recurrent paragraph (null for other policies)."""


def played_go2(env_cfg):
    """The unwrapped -Play environment as ``policy_metadata`` reads it (what Isaac Lab computes from the config)."""
    from locolab.assets import GO2_SPEC

    names = GO2_SPEC.joint_names()
    default = GO2_SPEC.default_joint_pos()
    limits = [(GO2_SPEC.joint(n[:2], n[3:-6]).lower, GO2_SPEC.joint(n[:2], n[3:-6]).upper) for n in names]
    data = SimpleNamespace(default_joint_pos=SimpleNamespace(torch=torch.tensor([[default[n] for n in names]])),
                           default_joint_vel=SimpleNamespace(torch=torch.zeros(1, 12)),
                           joint_pos_limits=SimpleNamespace(torch=torch.tensor([limits])))
    terms = [name for name, term in vars(env_cfg.observations.policy).items() if hasattr(term, "func")]
    sizes = {"base_ang_vel": 3, "projected_gravity": 3, "velocity_commands": 3, "joint_pos": 12, "joint_vel": 12,
             "actions": 12}
    return SimpleNamespace(cfg=env_cfg, scene={"robot": SimpleNamespace(joint_names=names, data=data)},
                           step_dt=env_cfg.sim.dt * env_cfg.decimation, physics_dt=env_cfg.sim.dt,
                           observation_manager=SimpleNamespace(active_terms={"policy": terms},
                                                               group_obs_term_dim={"policy": [(sizes[t],)
                                                                                              for t in terms]}))


def test_policy_json_records_every_documented_field_with_the_documented_values(tmp_path):
    from locolab.assets import GO2_SPEC
    from locolab.export.metadata import policy_metadata

    env_cfg, _ = load_task_cfgs(f"{FLAT}-Play", device="cpu")
    onnx_file, checkpoint = tmp_path / "policy.onnx", tmp_path / "model_9.pt"
    onnx_file.write_bytes(b"onnx")
    checkpoint.write_bytes(b"checkpoint")
    meta = policy_metadata(played_go2(env_cfg), task=FLAT, inputs={"obs": [45], "history": [50, 45]},
                           policy={"agent": "roa", "policy": "student"}, checkpoint=checkpoint, iteration=9,
                           parity={"max_abs_diff": 1e-7, "samples": 80}, onnx_file=onnx_file, action_clip=None)
    assert DOCUMENTED_POLICY_JSON <= set(meta)
    json.dumps(meta)  # plain JSON
    assert meta["format"] == "locolab-policy/1"
    names = GO2_SPEC.joint_names()
    assert meta["joint_names"] == names and len(names) == 12
    action = meta["action"]
    assert (action["scale"], action["clip"], action["offset"]) == (0.25, None, "default_joint_pos")
    assert action["formula"].startswith("target = default_joint_pos + scale * ")
    assert set(meta["pd_gains"]) == {"stiffness", "damping"} and all(len(v) == 12 for v in meta["pd_gains"].values())
    assert meta["velocity_limit"] == pytest.approx([GO2_SPEC.joint(n[:2], n[3:-6]).velocity_limit for n in names])
    assert meta["effort_limit"] == pytest.approx([GO2_SPEC.joint(n[:2], n[3:-6]).effort_limit for n in names])
    assert (meta["control_period_s"], meta["physics_dt_s"]) == (pytest.approx(0.02), pytest.approx(0.005))
    terms = meta["observation"]["terms"]
    assert [term["name"] for term in terms] == ["base_ang_vel", "projected_gravity", "velocity_commands", "joint_pos",
                                                "joint_vel", "actions"]
    assert all(set(term) == {"name", "meaning", "size", "clip", "scale"} and term["meaning"] for term in terms)
    assert meta["observation"]["size"] == 45
    assert meta["history"] == {"length": 50, "order": "oldest_first", "source": "observation",
                               "reset": "filled_with_first_observation"}
    assert meta["command"]["names"] == ["lin_vel_x", "lin_vel_y", "ang_vel_z"]
    assert set(meta["command"]["ranges"]) == set(meta["command"]["names"])
    assert (meta["inputs"], meta["outputs"]) == ({"obs": [45], "history": [50, 45]}, {"actions": [12]})
    assert meta["checkpoint"]["path"] == str(checkpoint) and meta["checkpoint"]["iteration"] == 9
    assert len(meta["checkpoint"]["sha256"]) == len(meta["onnx_sha256"]) == 64
    assert meta["parity"] == {"max_abs_diff": 1e-7, "samples": 80} and meta["recurrent"] is None
    assert set(meta["versions"]) >= {"locolab", "torch", "isaaclab", "rsl-rl-lib", "onnxruntime"}
    assert [tuple(pair) for pair in meta["joint_pos_limits"]] == [
        pytest.approx((GO2_SPEC.joint(n[:2], n[3:-6]).lower, GO2_SPEC.joint(n[:2], n[3:-6]).upper)) for n in names]


@pytest.mark.parametrize(("configs", "agent", "task"), [
    (cpu_cfgs, "ppo", FLAT), (cpu_cfgs, "roa", FLAT), (gpu_cfgs, "ppo", FLAT), (cpu_cfgs, "ppo", ROUGH)])
def test_the_solvers_row_capacity_holds_a_fallen_robot_with_every_sim_to_real_effect(configs, agent, task):
    """MuJoCo C's constraint rows are copied into MuJoCo-Warp's njmax-sized buffers (and MuJoCo-Warp drops rows past
    it): every contact the world may hold at a pyramidal condim-3 cone's 4 rows, the feet's condim-6 cones 6 more
    each, and a friction-loss and a limit row per joint. Isaac Lab's Go2 holds 65; a teacher crashed at 76."""
    env, _ = configs(agent, task=task)
    solver = env.sim.physics.solver_cfg
    assert solver.njmax >= 4 * solver.nconmax + 6 * 4 + 2 * 12, (solver.njmax, solver.nconmax)
