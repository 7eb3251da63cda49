"""export_onnx writes one self-contained file that onnxruntime runs like torch, and refuses one that differs."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime
import pytest
import torch
from onnx.external_data_helper import uses_external_data

from test_ppo_roa import build, rollout

from locolab.export import ExportError, export_onnx


@pytest.fixture(scope="module")
def student():
    """A ROA student whose normalisers and weights moved away from their initial values."""
    alg, env = build()
    for _ in range(2):
        rollout(alg, env)
        alg.update()
    return alg.actor_adapt.as_onnx(), env


def recorded(env) -> dict[str, np.ndarray]:
    obs = env.get_observations()
    return {"obs": obs["policy"].numpy(), "history": obs["history"].numpy()}


def test_student_graph_holds_normaliser_and_adapt_ema_in_one_file_that_matches_torch(student, tmp_path):
    model, env = student
    inputs = recorded(env)
    difference = export_onnx(model, tmp_path / "policy.onnx", inputs)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["policy.onnx"]  # no .onnx.data sidecar, no leftovers
    graph = onnx.load(str(tmp_path / "policy.onnx"))
    assert not any(uses_external_data(tensor) for tensor in graph.graph.initializer)
    assert [i.name for i in graph.graph.input] == ["obs", "history"]
    session = onnxruntime.InferenceSession(str(tmp_path / "policy.onnx"))
    batch = {name: np.repeat(value, 3, axis=0) for name, value in inputs.items()}  # any batch size
    actions = session.run(["actions"], batch)[0]
    with torch.inference_mode():
        expected = model(torch.from_numpy(batch["obs"]), torch.from_numpy(batch["history"])).numpy()
    assert np.abs(actions - expected).max() <= 1e-5 and difference <= 1e-5


def test_an_export_that_disagrees_is_refused_and_nothing_is_written(student, tmp_path):
    model, env = student
    with pytest.raises(ExportError, match="differ from torch's .* nothing was written"):
        export_onnx(model, tmp_path / "policy.onnx", recorded(env), tolerance=-1.0)
    assert list(tmp_path.iterdir()) == []
