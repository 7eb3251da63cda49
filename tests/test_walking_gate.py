"""Training until the final checkpoint walks (locolab.runners.walking_gate): the planned iterations, then checks and
more chunks of training until one passes or the cap is reached; every verdict lands in walking_gate.json."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import psutil
import pytest

from conftest import REPO, SMALL_SAC_SETTINGS, scalars_of_a_short_training

from locolab.bench.launcher import run_dirs, start_training
from locolab.runners.walking_gate import REPORT_NAME, WalkingGateCfg, learn_until_walking
from locolab.training import planned_iterations

SHORT_PLAYS = ("agent.walking_gate.play_seconds=2",)
"""Plays of 2 s instead of 20 s: the gate's sequence, not a gait, is under test (a 20 s play takes about 150 s)."""


class CountingRunner:
    """Stands in for the runner: ``learn`` runs iterations from ``current_learning_iteration`` (rsl_rl's count) and
    writes the last one's checkpoint, as the on-policy runner does."""

    def __init__(self, log_dir: Path) -> None:
        self.logger = type("Logger", (), {"log_dir": str(log_dir)})()
        self.current_learning_iteration = 0
        self.learned: list[range] = []

    def learn(self, num_learning_iterations: int, init_at_random_ep_len: bool = False) -> None:
        start = self.current_learning_iteration
        self.learned.append(range(start, start + num_learning_iterations))
        self.current_learning_iteration = max(start, start + num_learning_iterations - 1)
        (Path(self.logger.log_dir) / f"model_{self.current_learning_iteration}.pt").write_text("weights")


def walks_from(first_walking: int, played: list):
    """A stand-in for the play checks: the checkpoints from ``first_walking`` on walk."""
    def evaluate(checkpoint: Path, seed: int) -> tuple[bool, list[dict]]:
        assert checkpoint.exists()
        iteration = int(checkpoint.stem.split("_")[1])
        played.append((iteration, seed))
        walked = iteration >= first_walking
        return walked, [{"check": "forward", "failures": [] if walked else ["forward: mean_forward_velocity 0.28"]}]
    return evaluate


def test_a_run_that_walks_at_its_planned_end_is_checked_once_and_stops(tmp_path):
    runner, played = CountingRunner(tmp_path), []
    report = learn_until_walking(runner, 700, WalkingGateCfg(extra_iterations=500), walks_from(0, played))
    assert runner.learned == [range(0, 700)]
    assert played == [(699, WalkingGateCfg().play_seed)]
    assert report["walked"] and json.loads((tmp_path / REPORT_NAME).read_text()) == report


def test_a_run_that_does_not_walk_trains_on_in_chunks_continuing_the_iteration_count(tmp_path, capsys):
    runner, played = CountingRunner(tmp_path), []
    report = learn_until_walking(runner, 700, WalkingGateCfg(extra_iterations=500, chunk=50), walks_from(790, played))
    assert runner.learned == [range(0, 700), range(700, 750), range(750, 800)]
    assert [iteration for iteration, _ in played] == [699, 749, 799]
    assert report["walked"] and [e["walked"] for e in report["evaluations"]] == [False, False, True]
    assert "Walking gate, iteration 699 (0 s of plays): does not walk (forward: mean_forward_velocity 0.28)" in (
        capsys.readouterr().out)
    assert all(0.0 <= e["seconds"] < 5.0 for e in report["evaluations"])


def test_the_report_says_how_long_each_gate_played(tmp_path):
    """Training stands still while the gate plays: each verdict carries those seconds, the gate's cost."""
    import time

    plays = walks_from(0, [])

    def slow(checkpoint: Path, seed: int) -> tuple[bool, list[dict]]:
        time.sleep(0.5)
        return plays(checkpoint, seed)

    report = learn_until_walking(CountingRunner(tmp_path), 10, WalkingGateCfg(), slow)
    assert report["evaluations"][0]["seconds"] >= 0.5


def test_training_stops_at_the_cap_and_says_that_it_did_not_walk(tmp_path, capsys):
    runner, played = CountingRunner(tmp_path), []
    report = learn_until_walking(runner, 10, WalkingGateCfg(extra_iterations=25, chunk=10), walks_from(10**6, played))
    assert runner.learned == [range(0, 10), range(10, 20), range(20, 30), range(30, 35)]  # the last chunk is cut
    assert runner.current_learning_iteration == 9 + 25
    assert [iteration for iteration, _ in played] == [9, 19, 29, 34]
    assert not json.loads((tmp_path / REPORT_NAME).read_text())["walked"] and not report["walked"]
    assert "no final checkpoint walked by iteration 34 (25 past the planned ones)" in capsys.readouterr().out


def test_a_resumed_run_trains_the_rest_of_its_plan_then_meets_the_gate(tmp_path):
    runner, played = CountingRunner(tmp_path), []
    runner.current_learning_iteration = 300  # loading model_299.pt of a 635-iteration plan sets the next iteration
    iterations = planned_iterations(runner, 635, resumed=True)
    learn_until_walking(runner, iterations, WalkingGateCfg(extra_iterations=500), walks_from(0, played),
                        planned_last=634)
    assert runner.learned == [range(300, 635)] and played == [(634, WalkingGateCfg().play_seed)]
    assert planned_iterations(runner, 635, resumed=True, more=635) == 635  # --max_iterations N: N more
    assert planned_iterations(runner, 635, resumed=False) == 635


def test_a_run_resumed_during_its_chunks_keeps_the_plans_budget(tmp_path):
    runner, played = CountingRunner(tmp_path), []
    runner.current_learning_iteration = 700  # model_699.pt: the plan ended at 634, the gate's chunks had reached 699
    iterations = planned_iterations(runner, 635, resumed=True)
    report = learn_until_walking(runner, iterations, WalkingGateCfg(extra_iterations=500, chunk=200),
                                 walks_from(10**6, played), planned_last=634)
    assert iterations == 0 and [iteration for iteration, _ in played] == [699, 899, 1099, 1134]
    assert not report["walked"] and runner.current_learning_iteration == 634 + 500


@pytest.mark.slow
def test_train_py_plays_its_final_checkpoints_and_trains_on_while_they_do_not_walk(tmp_path):
    run, events = scalars_of_a_short_training(tmp_path, "agent.walking_gate.extra_iterations=2",
                                              "agent.walking_gate.chunk=2", *SHORT_PLAYS)
    report = json.loads((run / REPORT_NAME).read_text())
    # a policy of 3 iterations does not walk: played at its planned end (2), trained 2 more, played again (4)
    assert not report["walked"] and [e["iteration"] for e in report["evaluations"]] == [2, 4]
    # forward fails; the checks played beside it, one per core, are reported too
    checks = report["evaluations"][0]["checks"]
    assert checks[0]["check"] == "forward" and checks[0]["failures"]
    assert [check["check"] for check in checks] == ["forward", "turn", "stand"][:min(os.cpu_count(), 3)]
    assert [event.step for event in events.Scalars("Loss/surrogate")] == [0, 1, 2, 3, 4]
    assert (run / "model_4.pt").is_file()


@pytest.mark.slow
def test_sac_trains_on_in_chunks_with_its_replay_buffer_while_its_final_checkpoints_do_not_walk(tmp_path):
    run, events = scalars_of_a_short_training(tmp_path, *SMALL_SAC_SETTINGS, "--collector", "async",
                                              "agent.walking_gate.extra_iterations=2", "agent.walking_gate.chunk=2",
                                              *SHORT_PLAYS)
    report = json.loads((run / REPORT_NAME).read_text())
    assert not report["walked"] and [e["iteration"] for e in report["evaluations"]] == [2, 4]
    added = events.Scalars("SAC/buffer_transitions")
    assert [event.step for event in added] == [0, 1, 2, 3, 4]
    # each chunk starts a new collector, but the replay buffer (and the transitions in it) carries over
    assert all(later.value > earlier.value for earlier, later in zip(added, added[1:]))
    assert (run / "model_4.pt").is_file()


def plays_of(trainer: psutil.Process, log_root: Path, timeout: float = 600.0) -> list[psutil.Process]:
    """The trainer's gate plays (spawned processes; one simulation process trains in the trainer's own), once they run
    and its final checkpoint (under ``log_root``) is written."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and trainer.is_running():
        plays = [child for child in trainer.children() if "spawn_main" in " ".join(child.cmdline())]
        if plays and any(run.joinpath("model_1.pt").is_file() for run in run_dirs(log_root)):
            return plays
        time.sleep(0.5)
    raise AssertionError(f"no gate play started within {timeout:.0f} s (or train.py ended: see its log)")


@pytest.mark.slow
def test_a_signal_during_the_gate_stops_at_once_and_leaves_no_play_running(tmp_path):
    """SIGTERM while the gate plays ends the plays' processes instead of waiting for them: a 20 s play takes a minute
    or two (the stop waited that long until 2026-12-07)."""
    arguments = ["--device", "cpu", "--num_envs", "8", "--max_iterations", "2", "--sim_processes", "1",
                 "--log_root", str(tmp_path), "agent.walking_gate.extra_iterations=2"]
    process = start_training(REPO / "scripts", arguments, tmp_path / "train.log")  # a file: a pipe could fill
    try:
        plays_of(psutil.Process(process.pid), tmp_path)
        time.sleep(2.0)  # the plays (forward and turning side by side on 2 cores) are building their environments
        plays = plays_of(psutil.Process(process.pid), tmp_path)
        signalled = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=300)
        stopped_after = time.monotonic() - signalled
    finally:
        if process.poll() is None:
            process.kill()
    output = (tmp_path / "train.log").read_text()
    assert process.returncode == 130, output[-2000:]
    assert stopped_after < 30.0, f"the stop took {stopped_after:.0f} s: it waited for the plays"
    assert "Traceback" not in output
    _, alive = psutil.wait_procs(plays, timeout=5.0)
    assert not alive
