"""What counts as walking (locolab.eval.walking): the fixed-command conditions on a play summary."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from locolab.eval.walking import WALKING_CHECKS, WalkingCheck

FLAT, ROUGH = "LocoLab-Velocity-Flat-Go2", "LocoLab-Velocity-Rough-Go2"


def summary(**values) -> dict:
    base = {"mean_forward_velocity": 0.0, "mean_lin_vel_error": 0.0, "mean_ang_vel_error": 0.0, "mean_speed": 0.0,
            "falls": 0}
    return {**base, **values}


def test_the_checks_are_forward_turn_and_stand_under_fixed_commands():
    assert [(c.name, c.command) for c in WALKING_CHECKS] == [
        ("forward", (0.5, 0.0, 0.0)), ("turn", (0.0, 0.0, 1.0)), ("stand", (0.0, 0.0, 0.0))]


def test_forward_needs_speed_tracking_and_no_fall():
    forward = WALKING_CHECKS[0]
    assert forward.failures(summary(mean_forward_velocity=0.45, mean_lin_vel_error=0.12)) == []
    assert forward.failures(summary(mean_forward_velocity=0.0, mean_lin_vel_error=0.5)) == [
        "forward: mean_forward_velocity 0.0 not >= 0.4", "forward: mean_lin_vel_error 0.5 not <= 0.15"]
    assert forward.failures(summary(mean_forward_velocity=0.5, mean_lin_vel_error=0.1, falls=1)) == [
        "forward: falls 1 not <= 0"]


def test_turn_and_stand_limits():
    turn, stand = WALKING_CHECKS[1], WALKING_CHECKS[2]
    assert turn.failures(summary(mean_ang_vel_error=0.31)) == ["turn: mean_ang_vel_error 0.31 not <= 0.3"]
    assert stand.failures(summary(mean_speed=0.1)) == ["stand: mean_speed 0.1 not < 0.1"]
    assert stand.failures(summary(mean_speed=0.05)) == []


def test_a_missing_value_fails_rather_than_passes():
    check = WalkingCheck("x", (0.0, 0.0, 0.0), max_mean_speed=0.1)
    assert check.failures({"falls": 0}) == ["x: mean_speed None not < 0.1"]


def test_time_to_walk_reads_the_newest_checkpoint_and_the_samples_per_iteration(tmp_path):
    import yaml

    from locolab.bench.time_to_walk import newest_checkpoint, samples_per_iteration

    assert newest_checkpoint(tmp_path) is None
    for iteration in (0, 25, 100, 50):
        (tmp_path / f"model_{iteration}.pt").write_bytes(b"")
    (tmp_path / ".model_125.tmp.pt").write_bytes(b"")  # a checkpoint still being written does not count
    assert newest_checkpoint(tmp_path) == (100, tmp_path / "model_100.pt")
    (tmp_path / "params").mkdir()
    (tmp_path / "params" / "env.yaml").write_text(yaml.dump({"scene": {"num_envs": 512}}))
    (tmp_path / "params" / "agent.yaml").write_text(yaml.dump({"num_steps_per_env": 24}))
    assert samples_per_iteration(tmp_path) == 512 * 24


SPIN_0_6_S = "import time\nend = time.process_time() + 0.6\nwhile time.process_time() < end: pass\n"
"""A Python program that burns 0.6 s of CPU time."""


def test_time_to_walk_counts_the_cpu_time_of_the_whole_training_process_tree():
    """A trainer's simulation processes are its children: their CPU time is the trainer's too."""
    import subprocess
    import sys
    import time

    import psutil

    from locolab.bench.processes import tree_cpu_seconds

    spin = SPIN_0_6_S + "time.sleep(30)"
    parent = subprocess.Popen([sys.executable, "-c", f"import subprocess, sys, time\n"
                               f"child = subprocess.Popen([sys.executable, '-c', {spin!r}])\n{spin}"])
    try:
        deadline = time.time() + 60  # a bound on the wait, not a speed: 1.2 s of CPU take longer on a loaded machine
        while tree_cpu_seconds(parent.pid) < 1.2 and time.time() < deadline:
            time.sleep(0.2)
        assert tree_cpu_seconds(parent.pid) >= 1.2  # 0.6 s of its own, 0.6 s of its child's
    finally:
        for child in psutil.Process(parent.pid).children(recursive=True):
            child.kill()
        parent.kill()
        parent.wait()
    assert tree_cpu_seconds(parent.pid) == 0.0


def test_time_to_walk_keeps_counting_a_child_process_after_it_has_exited():
    """Simulation processes end before the trainer does: the report polled then must still hold their CPU time."""
    import subprocess
    import sys

    from locolab.bench.processes import tree_cpu_seconds

    parent = subprocess.Popen([sys.executable, "-c", f"import subprocess, sys, time\n"
                               f"subprocess.run([sys.executable, '-c', {SPIN_0_6_S!r}])\n"
                               f"print('child done', flush=True)\ntime.sleep(30)"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout.readline().strip() == "child done"  # the child has exited and been waited for
        assert tree_cpu_seconds(parent.pid) >= 0.6
    finally:
        parent.kill()
        parent.wait()


def test_ctrl_c_during_time_to_walk_stops_training_and_still_returns_the_report(tmp_path, monkeypatch):
    """A stand-in trainer writes a run with one checkpoint and waits; Ctrl-C arrives while that checkpoint is being
    evaluated: the trainer gets SIGINT, and the report comes back marked interrupted, with its CPU figure."""
    import yaml

    import locolab.bench.time_to_walk as ttw

    trainer = tmp_path / "repo" / "scripts" / "train.py"
    trainer.parent.mkdir(parents=True)
    trainer.write_text(
        "import pathlib, signal, sys, time\n"
        "root = pathlib.Path(sys.argv[sys.argv.index('--log_root') + 1]) / 'exp' / 'run'\n"
        "(root / 'params').mkdir(parents=True)\n"
        f"(root / 'params' / 'env.yaml').write_text({yaml.dump({'scene': {'num_envs': 8}})!r})\n"
        f"(root / 'params' / 'agent.yaml').write_text({yaml.dump({'num_steps_per_env': 4})!r})\n"
        "signal.signal(signal.SIGINT, lambda *_: sys.exit(130))\n"
        "(root / 'model_0.pt').write_bytes(b'')\n"
        "time.sleep(60)\n")

    def interrupted(*_):
        raise KeyboardInterrupt

    monkeypatch.setattr(ttw, "evaluate_walking", interrupted)
    report = ttw.time_to_walk([], tmp_path / "logs", "Play", "cpu", max_minutes=1.0, scripts=trainer.parent, poll_s=0.1)
    assert report["interrupted"] is True and report["walked"] is False
    assert report["wall_minutes"] < 0.5  # the trainer stopped on SIGINT, not after max_minutes or a kill
    assert report["train_command"][0] == str(trainer) and report["cores_used"] >= 0.0


def priority_and_threads() -> dict:
    """What an evaluation process runs at (called in that process)."""
    import torch

    return {"nice": os.nice(0), "threads": os.environ.get("OMP_NUM_THREADS"), "torch_threads": torch.get_num_threads()}


def test_an_evaluation_plays_at_low_priority_on_one_thread():
    """Beside a training run, evaluations must not take the cores from the trainer's two-thread update."""
    from locolab.eval.walking import EVALUATION_NICENESS, in_evaluation_process

    summary = in_evaluation_process(priority_and_threads)
    niceness = min(os.nice(0) + EVALUATION_NICENESS, 19)  # 19 is the lowest priority: tests run niced reach it
    assert summary == {"nice": niceness, "threads": "1", "torch_threads": 1}


def fake_plays(monkeypatch, failing: set[str], together: tuple[str, ...] = ()) -> list[tuple[str, float, float]]:
    """Stands in for play.py: each play takes 0.3 s, records (check, start, end), and walks unless its check is in
    ``failing``. The plays of the checks in ``together`` wait for each other to start (for a minute at most): they
    run at the same time, or the one that started fails."""
    import threading
    import time

    import locolab.eval.walking as walking

    plays, lock = [], threading.Lock()
    names = {check.command: check.name for check in WALKING_CHECKS}
    meeting = threading.Barrier(len(together)) if together else None

    def play(checkpoint, command, task, device, seed, seconds, flat_ground=False):
        start = time.monotonic()
        if names[command] in together:
            meeting.wait(timeout=60.0)
        time.sleep(0.3)
        with lock:
            plays.append((names[command], start, time.monotonic()))
        fails = names[command] in failing
        return summary(mean_forward_velocity=0.0 if fails else 0.5, mean_ang_vel_error=0.5 if fails else 0.0)

    monkeypatch.setattr(walking, "play_summary", play)
    return plays


def test_checks_play_one_at_a_time_and_stop_at_the_first_failure(monkeypatch):
    from locolab.eval.walking import evaluate_walking

    plays = fake_plays(monkeypatch, failing={"turn"})
    walked, results = evaluate_walking(Path("model_9.pt"), "Play", "cpu")
    assert not walked and [r["check"] for r in results] == ["forward", "turn"]  # standing is never played
    assert results[0]["failures"] == [] and results[1]["failures"] == ["turn: mean_ang_vel_error 0.5 not <= 0.3"]
    assert plays[0][2] <= plays[1][1]  # the second play starts after the first has ended


def test_checks_play_together_in_groups_and_stop_after_the_group_with_a_failure(monkeypatch):
    """Two at a time (train.py's gate on 2 cores): forward and turning play together, standing only after both pass.
    That the two run together is shown by their meeting (:func:`fake_plays`), not by timing them."""
    from locolab.eval.walking import evaluate_walking

    plays = fake_plays(monkeypatch, failing={"forward"}, together=("forward", "turn"))
    walked, results = evaluate_walking(Path("model_9.pt"), "Play", "cpu", plays_at_once=2)
    assert not walked and [r["check"] for r in results] == ["forward", "turn"]
    assert results[0]["failures"] and results[1]["failures"] == []

    plays = fake_plays(monkeypatch, failing=set(), together=("forward", "turn"))
    walked, results = evaluate_walking(Path("model_9.pt"), "Play", "cpu", plays_at_once=2)
    assert walked and [r["check"] for r in results] == ["forward", "turn", "stand"]
    stand = next(play for play in plays if play[0] == "stand")
    assert all(end <= stand[1] for name, _, end in plays if name != "stand")


def fake_finished_run(run_dir, checkpoints: tuple[int, ...], seconds_per_iteration: float, iterations: int,
                      first: int = 0, gate: dict | None = None, task: str | None = f"{FLAT}-CPU"):
    """A run directory as train.py leaves it: params (``gate``: its agent's walking gate), checkpoints that hold only
    the task they trained on (``None``: none recorded), and
    TensorBoard events that log iteration ``first + i``'s ``Perf/total_fps`` ``5 + i * seconds_per_iteration`` seconds
    after the writer's first event."""
    import time

    import yaml
    from torch.utils.tensorboard import SummaryWriter

    (run_dir / "params").mkdir(parents=True)
    (run_dir / "params" / "env.yaml").write_text(yaml.dump({"scene": {"num_envs": 4096}}))
    (run_dir / "params" / "agent.yaml").write_text(yaml.dump({"num_steps_per_env": 24, "walking_gate": gate}))
    for iteration in checkpoints:
        torch.save({"iter": iteration, **({} if task is None else {"task": task})}, run_dir / f"model_{iteration}.pt")
    writer = SummaryWriter(str(run_dir))  # its first event carries the current time
    start = time.time()
    for i in range(iterations):
        writer.add_scalar("Perf/total_fps", 1.0, first + i, walltime=start + 5 + i * seconds_per_iteration)
    writer.close()


def test_time_to_walk_of_a_finished_run_plays_its_checkpoints_in_order_until_one_walks(tmp_path, monkeypatch):
    """A run trained elsewhere (a lent GPU) is measured afterwards: checkpoints from --first_iteration on, in order;
    the minutes are its training time from the TensorBoard events, the samples (iteration + 1) x envs x steps."""
    import locolab.bench.time_to_walk as ttw

    run = tmp_path / "run"
    fake_finished_run(run, (0, 20, 40, 60, 80, 85), seconds_per_iteration=1.2, iterations=86)
    played = []

    def walks_from_60(checkpoint, task, device, seed=0):
        played.append(checkpoint.name)
        return checkpoint.name in ("model_60.pt", "model_80.pt"), [{"check": "forward"}]

    monkeypatch.setattr(ttw, "evaluate_walking", walks_from_60)
    report = ttw.time_to_walk_of_run(run, FLAT, "cpu", first_iteration=20)
    assert played == ["model_20.pt", "model_40.pt", "model_60.pt"]
    assert report["walked"] is True and report["iteration"] == 60 and report["checkpoint"] == str(run / "model_60.pt")
    assert report["samples_to_walk"] == 61 * 4096 * 24
    assert abs(report["minutes_to_walk"] - (5 + 60 * 1.2) / 60) < 0.02
    assert [e["walked"] for e in report["evaluations"]] == [False, False, True]


def test_time_to_walk_of_a_run_that_never_walks_plays_every_checkpoint(tmp_path, monkeypatch):
    import locolab.bench.time_to_walk as ttw

    run = tmp_path / "run"
    fake_finished_run(run, (0, 20, 21), seconds_per_iteration=1.0, iterations=21)  # 21: saved on SIGINT, not logged
    monkeypatch.setattr(ttw, "evaluate_walking", lambda *args, **kwargs: (False, []))
    report = ttw.time_to_walk_of_run(run, None, "cpu")
    assert report["walked"] is False and "minutes_to_walk" not in report
    assert [e["iteration"] for e in report["evaluations"]] == [0, 20, 21]
    assert report["evaluations"][-1]["minutes"] == report["evaluations"][-2]["minutes"]  # the last logged minute


def test_a_resumed_rough_run_is_judged_by_its_own_gate_across_its_directories(tmp_path, monkeypatch):
    """docs/benchmarks.md: RUN,RESUMED_RUN; the rough gate's tiles and play seed come from the run's saved config;
    the resume's minutes continue the first part's (its start-up counted, the gap between them not)."""
    import locolab.bench.time_to_walk as ttw

    gate = {"play_seed": 3, "play_seconds": 20.0, "terrain_tiles": [["stairs_up", 0.1]], "terrain_min_success": 0.9}
    first, resumed = tmp_path / "first", tmp_path / "resumed"
    fake_finished_run(first, (0, 20, 25), seconds_per_iteration=1.0, iterations=26, gate=gate, task=f"{ROUGH}-CPU")
    fake_finished_run(resumed, (40, 60), seconds_per_iteration=2.0, iterations=40, first=21, gate=gate,
                      task=f"{ROUGH}-CPU")
    built, played = [], []

    def gate_checks(task, device, seconds, tiles, *, terrain_min_success):
        built.append((task, seconds, tiles, terrain_min_success))
        return lambda checkpoint, seed: (played.append((checkpoint.name, seed)) or checkpoint.name == "model_60.pt",
                                         [])

    monkeypatch.setattr(ttw, "play_checks", gate_checks)
    monkeypatch.setattr(ttw, "evaluate_walking", lambda *args, **kwargs: pytest.fail("the flat checks were played"))
    report = ttw.time_to_walk_of_run([first, resumed], None, "cpu", first_iteration=20)  # the task its checkpoints say
    assert built == [(f"{ROUGH}-Play", 20.0, (("stairs_up", 0.1),), 0.9)]
    assert played == [("model_20.pt", 3), ("model_25.pt", 3), ("model_40.pt", 3), ("model_60.pt", 3)]
    # iteration 20 at 5 + 20 s; the resume logs 21 (redone) at 5 s of its own writer and 60 39 iterations later
    expected = (5 + 20 * 1.0 + 5 + 39 * 2.0) / 60
    assert report["walked"] and report["iteration"] == 60 and abs(report["minutes_to_walk"] - expected) < 0.02


def test_a_finished_run_plays_on_the_task_it_trained_on_and_refuses_another(tmp_path, monkeypatch):
    """benchmark.py --time_to_walk --run <rough run> without --task plays the rough task; a --task that is not the
    run's, or a run whose checkpoints do not say and no --task, is a one-line error before anything plays."""
    import locolab.bench.time_to_walk as ttw
    from conftest import run_main

    rough, unnamed = tmp_path / "rough", tmp_path / "unnamed"
    fake_finished_run(rough, (0, 20), seconds_per_iteration=1.0, iterations=21, task=f"{ROUGH}-CPU")
    fake_finished_run(unnamed, (0,), seconds_per_iteration=1.0, iterations=1, task=None)
    judged = []
    monkeypatch.setattr(ttw, "run_judge", lambda run, task, device: judged.append(task) or (lambda c: (False, [])))
    assert ttw.time_to_walk_of_run(rough, None, "cpu")["task"] == ROUGH and judged == [f"{ROUGH}-Play"]
    assert ttw.time_to_walk_of_run(unnamed, FLAT, "cpu")["task"] == FLAT  # an older run: --task tells
    for run, task, said in ((rough, FLAT, f"was trained on --task {ROUGH}, not --task {FLAT}: give --task {ROUGH}"),
                            (unnamed, None, "does not record its task: give --task")):
        result = run_main("benchmark.py", "--time_to_walk", "--device", "cpu", "--run", str(run),
                          *(("--task", task) if task else ()))
        assert result.returncode == 2 and said in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    assert judged == [f"{ROUGH}-Play", f"{FLAT}-Play"]  # the refused runs played nothing


def test_benchmark_refuses_a_run_that_is_not_one_or_run_without_time_to_walk(tmp_path):
    from conftest import run_main, run_script

    result = run_script("benchmark.py", "--time_to_walk", "--device", "cpu", "--run", str(tmp_path), timeout=120)
    assert result.returncode == 2 and "is not a run directory (no params/ in it)" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    result = run_main("benchmark.py", "--device", "cpu", "--run", str(tmp_path))
    assert result.returncode == 2 and "add --time_to_walk" in result.stderr


def test_the_gate_tiles_play_in_groups_side_by_side_and_keep_their_order(monkeypatch):
    """A rough gate on 2 cores plays its tiles in two evaluation processes at once (each play's physics is one thread);
    the verdicts come back in the tiles' order. That the two run together is shown by their meeting at a barrier."""
    import threading

    import locolab.eval.walking as walking

    tiles = (("stairs_up", 0.10), ("stairs_down", 0.10), ("slope_up", 0.3), ("slope_down", 0.3), ("boxes", 0.10),
             ("rough", 0.06))
    assert walking.tile_groups(tiles, 2) == [tiles[:3], tiles[3:]]
    assert walking.tile_groups(tiles[:1], 2) == [tiles[:1]] and walking.tile_groups(tiles, 1) == [tiles]
    assert [len(group) for group in walking.tile_groups(tiles, 4)] == [1, 2, 1, 2]
    played, meeting = [], threading.Barrier(2)

    def evaluation(function, checkpoints, planned, device, seed, policy, seconds):
        meeting.wait(timeout=60.0)  # the other group plays at the same time, or this one fails
        played.append([(tile.kind, tile.value) for tile in planned])
        return [{"terrain": tile.kind, "value": tile.value, "success": 0.5 if tile.kind == "boxes" else 1.0,
                 "fall": 0.0} for tile in planned]

    monkeypatch.setattr(walking, "in_evaluation_process", evaluation)
    monkeypatch.setattr(walking, "resolve_checkpoint", lambda checkpoint: checkpoint)
    monkeypatch.setattr(walking, "read_checkpoint", lambda checkpoint: {})
    monkeypatch.setattr(walking, "checkpoint_policy", lambda checkpoint, policy: ("ppo", None, None))
    checks = walking.terrain_checks(Path("model_9.pt"), "cpu", 1, tiles, 0.9, plays_at_once=2)
    assert sorted(played) == sorted([list(tiles[:3]), list(tiles[3:])])
    assert [check["check"] for check in checks] == [f"terrain {kind} {value:g}" for kind, value in tiles]
    assert [check["failures"] for check in checks] == [[]] * 4 + [["terrain boxes 0.1: success 0.50 not >= 0.9"], []]
