"""Export a trained policy for a robot: one self-contained ``policy.onnx`` and its ``policy.json``.

    python scripts/export.py --checkpoint logs/locolab_go2_flat_roa_finetune/<run> [--out DIR] [--which student]

A recurrent policy (``--agent ppo_rnn``) exports with its memory as explicit inputs and outputs (``h_in`` -> ``h_out``,
an LSTM's ``c_in`` -> ``c_out``; shapes and reset rule in ``policy.json``'s ``recurrent``), checked over the recorded
sequence with the memory carried between steps and zeroed at each episode end (use ``--steps 200`` or more).

For PPO-ROA the default is the student (``--which student``): actions from the proprioceptive observation and its
history, with the observation normaliser and adapt_ema inside the graph. ``--which teacher`` exports the privileged
teacher (inputs ``obs`` and ``priv``: for simulation only). A PPO checkpoint exports its policy (input ``obs``).

The policy runs in the task's -Play environment for --steps steps to record real inputs; the ONNX file is written
only if onnxruntime reproduces the torch actions on all of them within 1e-5. ``policy.json`` holds what a robot
loop needs (joint order, default pose, action scale, PD gains, control period, observation terms, history layout,
command ranges, source checkpoint, package versions); ``locolab.deploy.PolicyRuntime`` reads both files.
The last line of stdout is a JSON summary.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ONNX_FILE = "policy.onnx"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checkpoint", required=True, help="a model_<it>.pt file or a run directory (its latest)")
    parser.add_argument("--out", default=None, help="output directory (default: <checkpoint dir>/exported)")
    parser.add_argument("--which", choices=("student", "teacher"), default=None,
                        help="PPO-ROA checkpoints: the student (default) or the teacher")
    parser.add_argument("--task", default=None, help="default: the task the checkpoint was trained on")
    parser.add_argument("--device", default="cpu", help="device of the recording run (default cpu)")
    parser.add_argument("--num_envs", type=int, default=8, help="environments of the recording run (default 8)")
    parser.add_argument("--steps", type=int, default=50, help="steps of the recording run (default 50)")
    return parser.parse_args(argv)


def record_inputs(runner, model, onnx_model, steps: int):
    """Run ``model`` deterministically in the runner's environment; keep every input the ONNX graph will see, the
    live model's actions on them (what the exported file must reproduce) and the dones. Half of the environments end
    their episode halfway through, so the recording crosses a reset (a recurrent model's memory is reset there).
    Inputs are ``[T * N, ...]`` batches, or ``[T, N, ...]`` sequences for a recurrent model."""
    import numpy as np
    import torch

    from locolab.eval.evaluate import recurrent_memory
    from locolab.runners.rollout import rollout

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


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.steps < 1 or args.num_envs < 1:
        print("error: --steps and --num_envs must be at least 1.", file=sys.stderr)
        return 2
    from locolab.envs import MissingAssetError, load_task_cfgs, open_env, play_variant
    from locolab.runners import CheckpointError, checkpoint_policy, read_checkpoint, resolve_checkpoint
    from locolab.runners.build import load_policy
    from locolab.tasks import AGENT_ENTRY_POINTS

    try:
        checkpoint = resolve_checkpoint(args.checkpoint).resolve()
        saved = read_checkpoint(checkpoint)
        agent, phase, which = checkpoint_policy(saved, args.which, roa_default="student")
        trained_task = args.task or saved.get("task")
        if trained_task is None:
            raise ValueError(f"'{checkpoint}' does not record its task: give --task.")
        task = play_variant(trained_task)
        env_cfg, agent_cfg = load_task_cfgs(task, AGENT_ENTRY_POINTS[(agent, phase)], num_envs=args.num_envs,
                                            device=args.device, seed=0)
    except (ValueError, CheckpointError, MissingAssetError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if (which, phase) == ("student", "train"):
        print(f"warning: '{checkpoint}' is a train-phase checkpoint: its student was distilled but not finetuned "
              "(scripts/train.py --agent roa --phase finetune --teacher ...).", file=sys.stderr)
    out = Path(args.out or checkpoint.parent / "exported").resolve()
    out.mkdir(parents=True, exist_ok=True)

    from locolab.atomic_files import write_atomically
    from locolab.export import PARITY_TOLERANCE, ExportError, export_onnx, policy_metadata, recurrent_description

    with open_env(task, env_cfg) as env:
        try:
            runner, model = load_policy(env, agent_cfg, checkpoint, which)
        except CheckpointError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        onnx_model = model.as_onnx(verbose=False)
        recorded, live_actions, dones = record_inputs(runner, model, onnx_model, args.steps)
        recurrent = recurrent_description(onnx_model)
        try:
            difference = export_onnx(onnx_model, out / ONNX_FILE, recorded, live_actions,
                                     dones=dones if recurrent else None)
        except ExportError as error:
            print(f"error: {error}", file=sys.stderr)
            return 1
        samples = live_actions[..., 0].size  # steps x environments
        metadata = policy_metadata(
            env.unwrapped,
            task=trained_task,
            inputs={name: list(batch.shape[2 if recurrent else 1:]) for name, batch in recorded.items()},
            recurrent=recurrent,
            policy={"agent": agent, "phase": phase, "policy": which},
            checkpoint=checkpoint,
            iteration=saved["iter"],
            parity={"max_abs_diff": difference, "samples": samples, "tolerance": PARITY_TOLERANCE},
            onnx_file=ONNX_FILE,
            action_clip=agent_cfg.clip_actions,
        )
    write_atomically(out / "policy.json", lambda tmp: tmp.write_text(json.dumps(metadata, indent=2) + "\n"))
    print(json.dumps({"onnx": str(out / ONNX_FILE), "metadata": str(out / "policy.json"), "agent": agent,
                      "policy": which, "max_abs_diff": difference, "samples": samples}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
