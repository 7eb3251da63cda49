"""benchmark.py measures simulation, PPO, recurrent PPO, PPO-ROA (both phases), SAC (both collectors) and stock Isaac
Lab training in one run (no speed threshold: performance figures live in its JSON, not in timed tests).

The end-to-end run times PPO, PPO-ROA's finetune phase (with the teacher the benchmark trains for it) and the stock
trainer; every other trainer is the same measurement of another ``train.py`` command line, checked here without
training (each trains in its own tests: test_recurrent_policy, test_train_roa, test_train_sac)."""

from __future__ import annotations

import math
import sys

import pytest

from conftest import last_json, load_script, run_script, script_path
from locolab.tasks.go2_velocity_cpu_env_cfg import CPU_PHYSICS

pytestmark = pytest.mark.slow
SCRIPTS = script_path("train.py").parent

MEASURED = (
    "sim_random_actions_steps_per_s",
    "sim_stock_physics_steps_per_s",
    "sim_profile_vs_stock_physics_ratio",
    "train_cores_used",
    "stock_train_cores_used",
    "train_steps_per_s",
    "train_wall_s",
    "roa_finetune_steps_per_s",
    "roa_finetune_wall_s",
    "roa_finetune_cores_used",
    "stock_train_steps_per_s",
    "stock_train_wall_s",
    "train_vs_stock_ratio",
    "roa_finetune_vs_ppo_ratio",
    "sim_mujoco_c_steps_per_s",
    "sim_mujoco_c_one_thread_steps_per_s",
    "sim_mujoco_c_one_thread_vs_profile_ratio",
    "sim_profile_mujoco_warp_steps_per_s",
    "sim_mujoco_c_vs_mujoco_warp_ratio",
)


def test_benchmark_reports_the_throughputs_and_the_ratios(tmp_path):
    output = tmp_path / "bench.json"
    result = run_script("benchmark.py", "--num_envs", "8", "--device", "cpu", "--sim_steps", "20", "--iterations",
                        "2", "--trainers", "train,roa_finetune,stock_train", "--output", str(output), timeout=1200)
    assert result.returncode == 0, result.stderr[-3000:]
    report = last_json(result.stdout)
    assert report == last_json(output.read_text())
    assert report["task"] == "LocoLab-Velocity-Flat-Go2" and report["num_envs"] == 8 and report["device"] == "cpu"
    assert report["iterations"] == 2
    assert report["torch"] and report["isaaclab"]
    for key in MEASURED:
        value = report[key]
        assert isinstance(value, (int, float)) and math.isfinite(value) and value > 0, (key, value)
    assert report["train_vs_stock_ratio"] == pytest.approx(
        report["train_steps_per_s"] / report["stock_train_steps_per_s"]
    )
    assert report["roa_finetune_vs_ppo_ratio"] == pytest.approx(
        report["roa_finetune_steps_per_s"] / report["train_steps_per_s"])
    assert not any(key.startswith(("ppo_rnn", "roa_train", "sac_")) for key in report)  # only the chosen trainers
    overhead = report["sim_nonfinite_guard_overhead_percent"]  # bare vs guarded steps: can be slightly negative
    assert math.isfinite(overhead) and -50.0 < overhead < 100.0
    assert report["sim_profile_vs_stock_physics_ratio"] == pytest.approx(
        report["sim_random_actions_steps_per_s"] / report["sim_stock_physics_steps_per_s"])
    assert report["sim_mujoco_c_one_thread_vs_profile_ratio"] == pytest.approx(
        report["sim_mujoco_c_one_thread_steps_per_s"] / report["sim_random_actions_steps_per_s"])
    assert report["sim_mujoco_c_vs_mujoco_warp_ratio"] == pytest.approx(
        report["sim_random_actions_steps_per_s"] / report["sim_profile_mujoco_warp_steps_per_s"])
    assert 0.0 < report["sim_physics_share"] < 1.0
    # the environment steps MuJoCo C and Isaac Lab's managers: slower than MuJoCo C alone
    assert report["sim_random_actions_steps_per_s"] < report["sim_mujoco_c_one_thread_steps_per_s"]


def test_benchmark_refuses_a_single_iteration():
    result = run_script("benchmark.py", "--iterations", "1")
    assert result.returncode == 2 and "--iterations must be at least 2" in result.stderr


def test_benchmark_reports_an_unknown_task_and_exits_non_zero():
    result = run_script("benchmark.py", "--task", "LocoLab-No-Such-Task", "--device", "cpu", "--iterations", "2")
    assert result.returncode == 1
    assert "error:" in result.stderr and "LocoLab-No-Such-Task" in result.stderr


def test_a_trainers_cpu_time_counts_the_processes_it_starts(tmp_path):
    """cores_used must see the simulation processes' CPU, not the trainer's alone: CPU time, so the machine's load
    does not change the figure (comparing two trainers' cores_used did, under the test suite's second worker)."""
    from locolab.bench.throughput import run_trainer

    burn = "import time\nwhile time.process_time() < 0.5: pass"
    parent = [sys.executable, "-c",
              f"import subprocess, sys; subprocess.run([sys.executable, '-c', {burn!r}], check=True)"]
    _, cpu_s = run_trainer(parent, tmp_path)
    assert cpu_s >= 0.5


def test_a_failing_trainer_subprocess_is_reported_with_its_stderr_tail(tmp_path):
    from locolab.bench.throughput import run_trainer

    failing = [sys.executable, "-c", "import sys; print('x' * 5000, file=sys.stderr); sys.exit('trainer broke')"]
    with pytest.raises(RuntimeError, match="exit code 1") as raised:
        run_trainer(failing, tmp_path)
    assert "trainer broke" in str(raised.value)


def test_the_async_trainer_is_timed_after_its_queue_is_drained(tmp_path):
    """Its collector fills the queue while the trainer starts: those chunks cost the clock nothing, so they are not
    counted, and the run is longer by as many iterations (the same number measured as every other trainer)."""
    from locolab.algorithms.sac_cfg import SacRunnerCfg
    from locolab.bench.throughput import trainer_commands, warmup_iterations

    args = load_script("benchmark.py").parse_args(["--iterations", "4"])
    commands = trainer_commands(args, "cpu", tmp_path / "teacher", SCRIPTS)
    argv = {name: command(tmp_path) for name, command in commands.items() if name != "stock_train"}
    iterations = {name: int(args[args.index("--max_iterations") + 1]) for name, args in argv.items()}
    warmup = warmup_iterations("sac_async_train")
    assert warmup == 1 + SacRunnerCfg().async_queue_size + 1  # first iteration, queued chunks, the one in progress
    assert iterations["sac_async_train"] - warmup == iterations["train"] - 1 == 3
    assert iterations["sac_sync_train"] == iterations["train"] == 4


def test_trainers_chooses_which_trainers_are_timed(tmp_path):
    """``--trainers train,stock_train`` times PPO and the stock trainer only (a GPU's short benchmark); the PPO-ROA
    teacher that roa_finetune needs is then not trained."""
    from locolab.bench.throughput import trainer_commands

    benchmark = load_script("benchmark.py")
    args = benchmark.parse_args(["--trainers", "train,stock_train"])
    assert list(trainer_commands(args, "cuda", None, SCRIPTS)) == ["train", "stock_train"]
    # by default every trainer the benchmark knows is timed: TRAINERS names each command, none more
    every = trainer_commands(benchmark.parse_args([]), "cpu", tmp_path / "teacher", SCRIPTS)
    assert tuple(every) == benchmark.TRAINERS


def test_every_trainers_command_is_one_train_py_accepts(tmp_path):
    """The command lines the end-to-end run does not train: each is a train.py run of the benchmark's iterations
    (plus the async collector's queued chunks) whose arguments train.py's own checks accept."""
    from locolab.bench.throughput import trainer_commands, warmup_iterations

    benchmark = load_script("benchmark.py")
    train = load_script("train.py")
    commands = trainer_commands(benchmark.parse_args(["--iterations", "3"]), "cpu", tmp_path / "teacher", SCRIPTS)
    argvs = {name: command(tmp_path) for name, command in commands.items() if name != "stock_train"}
    parsed = {name: train.parse_args(argv[2:]) for name, argv in argvs.items()}
    for name, args in parsed.items():
        assert argvs[name][1] == str(script_path("train.py")), name
        train.check_arguments(args)
        assert args.max_iterations == 3 + warmup_iterations(name) - 1, name
    assert {name: (args.agent, args.phase, args.collector) for name, args in parsed.items()} == {
        "train": ("ppo", "train", None), "ppo_rnn_train": ("ppo_rnn", "train", None),
        "roa_train": ("roa", "train", None), "roa_finetune": ("roa", "finetune", None),
        "sac_sync_train": ("sac", "train", "sync"), "sac_async_train": ("sac", "train", "async")}


def test_an_unknown_trainer_name_is_refused():
    result = run_script("benchmark.py", "--trainers", "train,ppo_fast")
    assert result.returncode == 2 and "unknown trainer(s) ppo_fast" in result.stderr


def test_the_random_action_simulation_takes_physics_overrides_on_top_of_the_profile():
    """``--trainers none --sim_override KEY=VALUE``: one physics setting timed against the profile's."""
    from locolab.bench.sim_configs import sim_cfgs

    assert load_script("benchmark.py").parse_args(["--trainers", "none"]).trainers == ()
    env_cfg, _ = sim_cfgs("LocoLab-Velocity-Flat-Go2", 8, "cpu",
                                    overrides=["env.sim.physics.solver_cfg.integrator=euler"])
    assert env_cfg.sim.physics.solver_cfg.integrator == "euler"
    assert env_cfg.sim.physics.num_substeps == CPU_PHYSICS["num_substeps"]  # the -CPU physics still
    result = run_script("benchmark.py", "--trainers", "none", "--sim_override", "env.sim.physics.solver_cfg.solvr=cg")
    assert result.returncode == 2 and "unknown key 'env.sim.physics.solver_cfg.solvr'" in result.stderr


def test_a_rough_task_reports_the_terrain_against_flat_ground():
    result = run_script("benchmark.py", "--task", "LocoLab-Velocity-Rough-Go2", "--num_envs", "8", "--device", "cpu",
                        "--sim_steps", "20", "--trainers", "none", timeout=1200)
    assert result.returncode == 0, result.stderr[-3000:]
    report = last_json(result.stdout)
    assert report["sim_flat_ground_steps_per_s"] > 0
    assert report["sim_terrain_vs_flat_ratio"] == pytest.approx(
        report["sim_random_actions_steps_per_s"] / report["sim_flat_ground_steps_per_s"])
    assert report["sim_profile_mujoco_warp_steps_per_s"] > 0  # Newton's collision pipeline on the terrain
    from argparse import Namespace

    from locolab.bench.throughput import flat_ground_figures

    assert flat_ground_figures(Namespace(task="LocoLab-Velocity-Flat-Go2"), "cpu", 1.0) == {}  # nothing on flat
