"""export_onnx writes one self-contained file whose actions equal the trained (live) policy's, and refuses one that
differs: the ROA student against actor_adapt, the teacher against actor, PPO against its actor."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime
import pytest
import torch
from onnx.external_data_helper import uses_external_data
from rsl_rl.models import MLPModel

from test_ppo_roa import build, rollout

from locolab.export import ExportError, export_onnx


@pytest.fixture(scope="module")
def trained():
    """A ROA algorithm whose normalisers and weights moved away from their initial values, and its environment."""
    alg, env = build()
    for _ in range(2):
        rollout(alg, env)
        alg.update()
    alg.eval_mode()
    return alg, env


def recorded_rollout(alg, env, steps: int = 5) -> tuple[dict[str, torch.Tensor], list]:
    """Observations of a short deterministic student rollout, every group, stacked."""
    observations = []
    with torch.inference_mode():
        obs = env.get_observations()
        for _ in range(steps):
            observations.append(obs.clone())
            obs, _, _, _ = env.step(alg.actor_adapt(obs))
    return torch.cat(observations)


def numpy_inputs(obs, names: dict[str, str]) -> dict[str, np.ndarray]:
    return {name: np.ascontiguousarray(obs[group].numpy()) for name, group in names.items()}


def live_actions(model, obs) -> np.ndarray:
    with torch.inference_mode():
        return model(obs).numpy()


def test_student_file_holds_normaliser_and_adapt_ema_and_reproduces_the_live_student(trained, tmp_path):
    alg, env = trained
    obs = recorded_rollout(alg, env)
    inputs = numpy_inputs(obs, {"obs": "policy", "history": "history"})
    expected = live_actions(alg.actor_adapt, obs)
    difference = export_onnx(alg.actor_adapt.as_onnx(), tmp_path / "policy.onnx", inputs, expected)
    assert difference <= 1e-5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["policy.onnx"]  # no .onnx.data sidecar, no leftovers
    graph = onnx.load(str(tmp_path / "policy.onnx"))
    assert not any(uses_external_data(tensor) for tensor in graph.graph.initializer)
    assert [i.name for i in graph.graph.input] == ["obs", "history"]
    session = onnxruntime.InferenceSession(str(tmp_path / "policy.onnx"))
    batch = {name: np.repeat(value, 3, axis=0) for name, value in inputs.items()}  # any batch size
    actions = session.run(["actions"], batch)[0]
    assert np.abs(actions - np.repeat(expected, 3, axis=0)).max() <= 1e-5


def test_teacher_file_reproduces_the_live_teacher(trained, tmp_path):
    alg, env = trained
    obs = recorded_rollout(alg, env)
    inputs = numpy_inputs(obs, {"obs": "policy", "priv": "priv"})
    assert export_onnx(alg.actor.as_onnx(), tmp_path / "teacher.onnx", inputs, live_actions(alg.actor, obs)) <= 1e-5


def test_ppo_file_reproduces_the_live_actor(trained, tmp_path):
    _, env = trained
    obs = env.get_observations()
    actor = MLPModel(obs, {"actor": ["policy"]}, "actor", 1, hidden_dims=[16, 16], obs_normalization=True,
                     distribution_cfg={"class_name": "GaussianDistribution", "init_std": 1.0})
    actor.update_normalization(shifted(obs, 3.0))
    actor.eval()
    inputs = numpy_inputs(obs, {"obs": "policy"})
    assert export_onnx(actor.as_onnx(verbose=False), tmp_path / "ppo.onnx", inputs, live_actions(actor, obs)) <= 1e-5


def shifted(obs, scale: float):
    """Observations shifted and scaled, so that the normaliser's statistics are far from identity."""
    return obs.apply(lambda value: value * scale + 1.0)


def test_an_export_copy_without_its_normaliser_is_refused_and_nothing_is_written(trained, tmp_path):
    alg, env = trained
    obs = recorded_rollout(alg, env)
    broken = alg.actor_adapt.as_onnx()
    broken.obs_normalizer = torch.nn.Identity()  # the copy forgot the normaliser; the live student still has it
    inputs = numpy_inputs(obs, {"obs": "policy", "history": "history"})
    with pytest.raises(ExportError, match="differ from the trained policy's .* nothing was written"):
        export_onnx(broken, tmp_path / "policy.onnx", inputs, live_actions(alg.actor_adapt, obs))
    assert list(tmp_path.iterdir()) == []


def test_an_export_copy_with_the_teachers_encoder_is_refused(trained, tmp_path):
    alg, env = trained
    obs = recorded_rollout(alg, env)
    broken = alg.actor_adapt.as_onnx()
    broken.encoder = alg.adapt_module  # the raw adaptation module instead of its moving average adapt_ema
    inputs = numpy_inputs(obs, {"obs": "policy", "history": "history"})
    with pytest.raises(ExportError):
        export_onnx(broken, tmp_path / "policy.onnx", inputs, live_actions(alg.actor_adapt, obs))
