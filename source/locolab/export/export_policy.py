"""Exporting a checkpoint's policy for a robot: record its inputs in the task's -Play environment, write the ONNX file
once onnxruntime reproduces the torch actions on them, and write ``policy.json`` beside it (``scripts/export.py``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import torch

from locolab.atomic_files import write_atomically
from locolab.eval.evaluate import recurrent_memory
from locolab.eval.policy import open_policy
from locolab.runners.rollout import rollout

from .metadata import policy_metadata
from .onnx_policy import PARITY_TOLERANCE, export_onnx, recurrent_description

ONNX_FILE = "policy.onnx"


def export_policy(checkpoint: str | Path, out: str | Path | None = None, which: str | None = None,
                  task: str | None = None, device: str = "cpu", num_envs: int = 8, steps: int = 50) -> dict:
    """Export ``checkpoint``'s policy (PPO-ROA: the student unless ``which``) to ``out`` (default: ``exported/`` beside
    it) from a ``steps``-step recording; returns the summary. An ExportError when the ONNX file disagrees; a
    ValueError, CheckpointError or MissingAssetError when the checkpoint cannot be run."""
    with open_policy(checkpoint, task, device, requested=which, roa_default="student", num_envs=num_envs, seed=0,
                     announce=_warn_about_a_train_phase_student) as opened:
        out = Path(out or opened.checkpoint.parent / "exported").resolve()
        out.mkdir(parents=True, exist_ok=True)
        onnx_model = opened.policy.as_onnx(verbose=False)
        recorded, live_actions, dones = record_inputs(opened.runner, opened.policy, onnx_model, steps)
        recurrent = recurrent_description(onnx_model)
        difference = export_onnx(onnx_model, out / ONNX_FILE, recorded, live_actions,
                                 dones=dones if recurrent else None)
        samples = live_actions[..., 0].size  # steps x environments
        metadata = policy_metadata(
            opened.env.unwrapped,
            task=opened.trained_task,
            inputs={name: list(batch.shape[2 if recurrent else 1:]) for name, batch in recorded.items()},
            recurrent=recurrent,
            policy={"agent": opened.agent, "phase": opened.phase, "policy": opened.policy_name},
            checkpoint=opened.checkpoint,
            iteration=opened.saved["iter"],
            parity={"max_abs_diff": difference, "samples": samples, "tolerance": PARITY_TOLERANCE},
            onnx_file=out / ONNX_FILE,
            action_clip=opened.agent_cfg.clip_actions,
            observation_groups=tuple(opened.policy.obs_groups),
        )
    write_atomically(out / "policy.json", lambda tmp: tmp.write_text(json.dumps(metadata, indent=2) + "\n"))
    return {"onnx": str(out / ONNX_FILE), "metadata": str(out / "policy.json"), "agent": opened.agent,
            "policy": opened.policy_name, "max_abs_diff": difference, "samples": samples}


def _warn_about_a_train_phase_student(checkpoint: Path, phase: str, which: str) -> None:
    if (which, phase) == ("student", "train"):
        print(f"warning: '{checkpoint}' is a train-phase checkpoint: its student was distilled but not finetuned "
              "(scripts/train.py --agent roa --phase finetune --teacher ...).", file=sys.stderr)


def record_inputs(runner, model, onnx_model, steps: int):
    """Run ``model`` deterministically in the runner's environment; keep every input the ONNX graph will see, the
    live model's actions on them (what the exported file must reproduce) and the dones. Half of the environments end
    their episode halfway through, so the recording crosses a reset (a recurrent model's memory is reset there).
    Inputs are ``[T * N, ...]`` batches, or ``[T, N, ...]`` sequences for a recurrent model."""
    selectors = {"obs": model.obs_groups}
    if hasattr(model, "encoder"):
        selectors[model.encoder.obs_set] = model.encoder.obs_groups
    env = runner.env
    ending = env.episode_length_buf.clone()
    ending[: max(1, env.num_envs // 2)] = max(0, int(env.max_episode_length) - steps // 2)
    env.episode_length_buf = ending
    recorded = {name: [] for name in selectors}
    actions, dones = [], []

    def act(obs):
        for name in recorded:
            recorded[name].append(torch.cat([obs[group] for group in selectors[name]], dim=-1).cpu())
        actions.append(model(obs))  # the live module, in evaluation mode: its deterministic mean
        return actions[-1]

    with torch.inference_mode(), recurrent_memory(model, fresh=True) as reset_memory:
        def on_step(obs, rewards, step_dones, extras):
            dones.append(step_dones.cpu())
            if reset_memory is not None:
                reset_memory(obs, rewards, step_dones, extras)

        rollout(env, act, steps, env.get_observations(), on_step=on_step)
    join = torch.stack if getattr(model, "is_recurrent", False) else torch.cat
    inputs = {name: np.ascontiguousarray(join(batches).numpy()) for name, batches in recorded.items()}
    return inputs, np.ascontiguousarray(join(actions).cpu().numpy()), torch.stack(dones).numpy()
