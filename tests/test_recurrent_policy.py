"""Recurrent policies end to end: memory reset per environment at episode ends in evaluation, the export with its
memory as explicit ONNX inputs and outputs (checked over a recorded sequence that crosses episode ends, never step by
step from a zero state), training through rsl_rl's runner, play.py, the robot runtime, and a clear error for an MLP
checkpoint."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnxruntime
import pytest
import torch
from rsl_rl.models import RNNModel
from tensordict import TensorDict

from conftest import last_json, run_dirs, run_main, run_script

from locolab.eval.evaluate import recurrent_memory
from locolab.export import ExportError, export_onnx
from locolab.export.onnx_policy import recurrent_state_names, run_recurrent
from locolab.runners import latest_checkpoint, read_checkpoint, trained_agent

NUM_ENVS, STEPS, OBS_DIM, NUM_ACTIONS = 4, 200, 7, 3


def recurrent_policy(rnn_type: str) -> RNNModel:
    torch.manual_seed(0)
    obs = TensorDict({"policy": torch.zeros(NUM_ENVS, OBS_DIM)}, batch_size=[NUM_ENVS])
    model = RNNModel(obs, {"actor": ["policy"]}, "actor", NUM_ACTIONS, hidden_dims=[32], obs_normalization=True,
                     distribution_cfg={"class_name": "GaussianDistribution", "init_std": 1.0}, rnn_type=rnn_type,
                     rnn_hidden_dim=16, rnn_num_layers=2)
    model.update_normalization(TensorDict({"policy": torch.randn(64, OBS_DIM) * 3 + 1}, batch_size=[64]))
    return model.eval()


def recorded_sequence(model: RNNModel) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Observations, dones (two environments end an episode mid-sequence, one twice) and the live model's actions,
    with its memory reset at each done as rollouts reset it."""
    generator = torch.Generator().manual_seed(1)
    observations = torch.randn(STEPS, NUM_ENVS, OBS_DIM, generator=generator)
    dones = torch.zeros(STEPS, NUM_ENVS)
    dones[60, 0] = dones[150, 0] = dones[99, 2] = 1.0
    actions = []
    model.reset()
    with torch.inference_mode():
        for observation, done in zip(observations, dones):
            actions.append(model(TensorDict({"policy": observation}, batch_size=[NUM_ENVS])))
            model.reset(done)
    return observations.numpy(), dones.numpy(), torch.stack(actions).numpy()


@pytest.mark.parametrize("rnn_type", ["gru", "lstm"])
def test_export_reproduces_the_live_recurrent_policy_over_a_sequence_with_resets(rnn_type, tmp_path):
    model = recurrent_policy(rnn_type)
    observations, dones, actions = recorded_sequence(model)
    onnx_model = model.as_onnx(verbose=False)
    difference = export_onnx(onnx_model, tmp_path / "policy.onnx", {"obs": observations}, actions, dones=dones)
    assert difference <= 1e-5
    session = onnxruntime.InferenceSession(str(tmp_path / "policy.onnx"), providers=["CPUExecutionProvider"])
    states = recurrent_state_names(onnx_model)
    assert [i.name for i in session.get_inputs()] == ["obs", *states]
    assert [o.name for o in session.get_outputs()] == ["actions", *states.values()]
    # the resets matter: carrying the memory across the episode ends gives other actions
    carried = run_recurrent(session, states, observations, np.zeros_like(dones), (2, 16))
    assert np.abs(carried[61:, 0] - actions[61:, 0]).max() > 1e-3
    assert np.abs(carried[:60] - actions[:60]).max() <= 1e-5


def test_a_recurrent_export_without_its_sequence_dones_is_refused(tmp_path):
    model = recurrent_policy("gru")
    observations, _, actions = recorded_sequence(model)
    with pytest.raises(ExportError, match="recorded sequence"):
        export_onnx(model.as_onnx(verbose=False), tmp_path / "policy.onnx", {"obs": observations}, actions)
    assert not (tmp_path / "policy.onnx").exists()


def test_evaluation_starts_from_an_empty_memory_resets_it_at_dones_and_gives_the_trainers_memory_back():
    model = recurrent_policy("gru")
    with torch.inference_mode():
        model(TensorDict({"policy": torch.randn(NUM_ENVS, OBS_DIM)}, batch_size=[NUM_ENVS]))  # a training rollout's
        training_memory = model.get_hidden_state().clone()
        with recurrent_memory(model, fresh=True) as on_step:
            assert model.get_hidden_state() is None  # every evaluation episode starts with zeros
            model(TensorDict({"policy": torch.randn(2, OBS_DIM)}, batch_size=[2]))
            on_step(None, None, torch.tensor([1.0, 0.0]), None)
            memory = model.get_hidden_state()
            assert memory[:, 0].abs().max() == 0 and memory[:, 1].abs().max() > 0
        assert torch.equal(model.get_hidden_state(), training_memory)


def test_feed_forward_policies_have_no_memory_to_manage():
    with recurrent_memory(lambda obs: obs, fresh=True) as on_step:
        assert on_step is None


@pytest.mark.parametrize("rnn_type", ["gru", "lstm"])
def test_a_recurrent_checkpoint_sets_the_rnn_type_size_and_depth_of_the_config_it_is_loaded_with(rnn_type):
    from locolab.envs import load_task_cfgs
    from locolab.runners.checkpoints import fit_recurrent_actor
    from locolab.tasks import AGENT_ENTRY_POINTS

    _, agent_cfg = load_task_cfgs("LocoLab-Velocity-Flat-Go2", AGENT_ENTRY_POINTS[("ppo_rnn", "train")], device="cpu")
    fit_recurrent_actor(agent_cfg, {"actor_state_dict": recurrent_policy(rnn_type).state_dict()})
    actor = agent_cfg.actor
    assert (actor.rnn_type, actor.rnn_hidden_dim, actor.rnn_num_layers) == (rnn_type, 16, 2)


RNN_RUN = ("--agent", "ppo_rnn", "--device", "cpu", "--num_envs", "8", "--max_iterations", "2", "--seed", "5")


@pytest.fixture(scope="module")
def rnn_run(tmp_path_factory) -> Path:
    """A 2-iteration recurrent PPO run of the flat Go2 task, through train.py and rsl_rl's runner."""
    logs = tmp_path_factory.mktemp("rnn_logs")
    result = run_script("train.py", *RNN_RUN, "--log_root", str(logs))
    assert result.returncode == 0, result.stderr[-3000:]
    (run,) = run_dirs(logs)
    return run


@pytest.mark.slow
def test_the_recurrent_agent_trains_through_rsl_rls_runner_with_a_gru_actor(rnn_run):
    assert rnn_run.parent.name == "locolab_go2_flat_rnn"
    saved = read_checkpoint(latest_checkpoint(rnn_run))
    assert saved["iter"] == 1 and trained_agent(saved) == ("ppo_rnn", "train")
    assert saved["actor_state_dict"]["rnn.rnn.weight_hh_l0"].shape == (3 * 128, 128)  # GRU: 3 gates
    agent = (rnn_run / "params" / "agent.yaml").read_text()
    assert "class_name: RNNModel" in agent and "symmetry_cfg: null" in agent  # rsl_rl mirrors no sequences


@pytest.mark.slow
def test_play_runs_the_recurrent_policy(rnn_run):
    result = run_script("play.py", "--run", str(rnn_run), "--device", "cpu", "--num_envs", "4", "--steps", "60",
                        "--command", "0.5", "0", "0")
    assert result.returncode == 0, result.stderr[-3000:]
    summary = last_json(result.stdout)
    assert summary["agent"] == "ppo_rnn" and summary["steps"] == 60


@pytest.mark.slow
def test_export_and_runtime_carry_the_memory_over_a_200_step_sequence_with_a_reset(rnn_run, tmp_path):
    out = tmp_path / "exported"
    result = run_script("export.py", "--checkpoint", str(rnn_run), "--out", str(out), "--steps", "200",
                        "--num_envs", "4")
    assert result.returncode == 0, result.stderr[-3000:]
    summary = last_json(result.stdout)
    assert summary["max_abs_diff"] <= 1e-5 and summary["samples"] == 200 * 4
    metadata = json.loads((out / "policy.json").read_text())
    assert metadata["inputs"] == {"obs": [45]}
    assert metadata["recurrent"]["state"] == {"h_in": {"output": "h_out", "shape": [1, 1, 128]}}
    assert metadata["recurrent"]["init"] == "zeros"
    probe = run_script("tests/probe_recurrent_runtime.py", "--checkpoint", str(latest_checkpoint(rnn_run)),
                       "--policy", str(out), "--steps", "200")
    assert probe.returncode == 0, probe.stderr[-3000:]
    report = last_json(probe.stdout)
    assert report["resets"] >= 1 and report["memory_inputs"] == ["h_in"]
    assert report["memory_after_reset"] == 0.0
    assert report["max_abs_target_error"] <= 1e-5


@pytest.mark.slow
def test_an_mlp_checkpoint_given_to_the_recurrent_agent_is_a_clear_error(trained_run, tmp_path):
    result = run_main("train.py", *RNN_RUN, "--resume", str(trained_run), "--log_root", str(tmp_path))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1].startswith("error: ")
    assert "trained with --agent ppo, not --agent ppo_rnn" in result.stderr


class MemoryRecordingRuntime:
    """A :class:`~locolab.deploy.PolicyRuntime` whose network calls are recorded: the memory fed in and returned."""

    def __init__(self, policy_dir: Path) -> None:
        from locolab.deploy import PolicyRuntime

        self.runtime = PolicyRuntime(policy_dir)
        self.calls: list = []  # ("reset", largest memory entry before it) or (memory fed, memory returned)
        assert self.runtime.state_outputs == {"h_in": "h_out"}
        session = self.runtime.session

        class Session:
            def run(_, names, feeds):
                outputs = session.run(names, feeds)
                self.calls.append((feeds["h_in"].copy(), outputs[names.index("h_out")].copy()))
                return outputs

        self.runtime.session = Session()

    def __getattr__(self, name):
        return getattr(self.runtime, name)

    def reset(self) -> None:
        self.calls.append(("reset", float(np.abs(self.runtime.state["h_in"]).max())))
        self.runtime.reset()

    def step(self, state):
        return self.runtime.step(state)


@pytest.mark.slow
def test_sim2sim_runs_a_recurrent_export_carrying_its_memory_and_zeroing_it_at_each_start(rnn_run, tmp_path):
    """docs/agents.md and docs/deployment.md: PolicyRuntime carries the state between ``step`` calls and zeroes it in
    ``reset()``, so ``sim2sim.py`` runs recurrent policies unchanged."""
    out = tmp_path / "exported"
    exported = run_script("export.py", "--checkpoint", str(rnn_run), "--out", str(out), "--steps", "50",
                          "--num_envs", "2")
    assert exported.returncode == 0, exported.stderr[-3000:]
    result = run_script("sim2sim.py", "--policy", str(out), "--seconds", "2", "--command", "0.5", "0", "0")
    assert result.returncode == 0, result.stderr[-3000:]
    report = last_json(result.stdout)
    assert report["time_upright"] > 0 and all(np.isfinite(report[key]) for key in ("distance", "time_upright"))
    assert_sim2sim_carries_the_memory(out)


def assert_sim2sim_carries_the_memory(policy_dir: Path) -> None:
    """sim2sim's loop twice with one runtime of a GRU export: each step is fed the memory the previous one returned,
    and every start (a reset) zeroes it."""
    from locolab.assets import ensure_robot_files
    from locolab.eval.sim2sim import run_sim2sim

    runtime = MemoryRecordingRuntime(policy_dir)
    mjcf = ensure_robot_files().mjcf
    for _ in range(2):
        run_sim2sim(runtime, mjcf, seconds=1.0, command=(0.5, 0.0, 0.0))
    resets = [call for call in runtime.calls if isinstance(call[0], str)]
    assert len(resets) >= 2 and isinstance(runtime.calls[0][0], str)
    assert max(memory for _, memory in resets) > 0  # a reset met a memory (the first run's at least) and cleared it
    previous = None
    for call in runtime.calls:
        if isinstance(call[0], str):  # a reset
            previous = np.zeros((1, 1, 128), dtype=np.float32)
            continue
        fed, returned = call
        assert np.array_equal(fed, previous)  # each step is fed the memory the previous one returned
        previous = returned
    assert len(runtime.calls) - len(resets) >= 100  # 2 x 1 s at 50 Hz
