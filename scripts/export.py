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


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.steps < 1 or args.num_envs < 1:
        print("error: --steps and --num_envs must be at least 1.", file=sys.stderr)
        return 2
    from locolab.envs import MissingAssetError
    from locolab.export import ExportError
    from locolab.export.export_policy import export_policy
    from locolab.runners import CheckpointError

    try:
        summary = export_policy(args.checkpoint, args.out, args.which, args.task, args.device, args.num_envs,
                                args.steps)
    except (ValueError, CheckpointError, MissingAssetError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except ExportError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
