"""Train a LocoLab task headless with rsl_rl: PPO, its recurrent variant, PPO-ROA's two phases, or SAC.

    python scripts/train.py --task LocoLab-Velocity-Flat-Go2 --device cpu --num_envs 32 --max_iterations 3
    python scripts/train.py --agent ppo_rnn                                  # recurrent (GRU) PPO
    python scripts/train.py --agent roa                                      # ROA phase train: the teacher
    python scripts/train.py --agent roa --phase finetune --teacher logs/locolab_go2_flat_roa/<run>   # the student
    python scripts/train.py --agent sac --collector async                    # SAC, collecting while it learns (CPU)
    python scripts/train.py --frontend warp --device cuda                    # Isaac Lab's Warp frontend, captured

    python scripts/train.py env.scene.num_envs=128 agent.algorithm.learning_rate=3e-4   # Hydra-style overrides

Writes <log_root>/<experiment>/<timestamp>_<run_name>/ with model_<it>.pt checkpoints (atomic), TensorBoard
events and params/{env,agent}.yaml. --resume continues a run's iteration count, optimizers and normalisers.

Without a GPU the task's -CPU variant and its agent's CPU config are trained (tasks/go2_velocity_cpu_env_cfg.py,
the _CPU configs in agents/). On flat ground they train on past the planned iterations until the final checkpoint
passes the walking checks (locolab.runners.walking_gate; verdicts in walking_gate.json), unless --max_iterations is
given.
"""

from __future__ import annotations

import argparse
import sys

from locolab.stop_signal import stops_on_signal
from locolab.train_arguments import FRONTENDS, check_arguments

DEFAULT_TASK = "LocoLab-Velocity-Flat-Go2"
AGENTS = ("ppo", "ppo_rnn", "roa", "sac")
COLLECTORS = ("sync", "async")
PHASES = ("train", "finetune")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", default=DEFAULT_TASK, help=f"gymnasium task id (default {DEFAULT_TASK})")
    parser.add_argument("--agent", choices=AGENTS, default="ppo", help="ppo (blind baseline), ppo_rnn (its recurrent "
                        "variant: a GRU actor, agent.actor.rnn_type=lstm for an LSTM), roa (PPO-ROA) or sac "
                        "(off-policy SAC)")
    parser.add_argument("--phase", choices=PHASES, default="train", help="ROA phase: train (teacher) or finetune "
                        "(student, starts from --teacher)")
    parser.add_argument("--teacher", default=None, help="finetune: the train-phase run directory or model_<it>.pt")
    parser.add_argument("--collector", choices=COLLECTORS, default=None, help="SAC: sync (collect, then update) or "
                        "async (a thread collects while the learner updates; CPU only). Default: the agent config's")
    parser.add_argument("--num_envs", type=int, default=None, help="default: the task's (4096; 512 for -CPU tasks)")
    parser.add_argument("--device", default=None, help="cpu, cuda or cuda:N for simulator AND agent (default: cuda "
                        "if available, else cpu)")
    parser.add_argument("--max_iterations", type=int, default=None, help="default: the agent config's")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--run_name", default="", help="suffix of the run directory")
    parser.add_argument("--resume", default=None, help="run directory (latest checkpoint) or model_<it>.pt")
    parser.add_argument("--init_from", default=None, help="a new run whose networks start from this run directory's "
                        "(or model_<it>.pt's) where they fit, e.g. a rough-terrain run from a flat one (same agent)")
    parser.add_argument("--log_root", default="logs", help="root of the run directories (default logs/)")
    parser.add_argument("--sim_processes", type=int, default=None, help="CPU: simulation processes, each stepping "
                        "a slice of the robots (default: the task's, 2 for -CPU tasks)")
    parser.add_argument("--frontend", choices=FRONTENDS, default="torch", help="torch: Isaac Lab's stable managers; "
                        "warp: its Warp frontend, MDP terms as Warp kernels, captured in CUDA graphs on a GPU (flat "
                        "tasks on MuJoCo-Warp: with --no_cpu_profile on a CPU)")
    parser.add_argument("--no_cpu_profile", action="store_true", help="on a CPU, train the task as given (its "
                        "GPU-sized settings) instead of its -CPU variant")
    parser.add_argument("overrides", nargs="*", metavar="KEY=VALUE", help="Hydra-style overrides of the configs, "
                        "e.g. env.scene.num_envs=256 agent.algorithm.learning_rate=3e-4")
    return parser.parse_intermixed_args(argv)  # overrides may come before and after options


@stops_on_signal("Stopped at once by a signal; the checkpoints written before it are complete.")
def main(argv: list[str] | None = None) -> int:
    """Train. A SIGTERM is Ctrl-C here (locolab.stop_signal): the training loop's own handler finishes the iteration
    first; one during start-up, or a second during shutdown, stops at once with one line and exit code 130."""
    args = parse_args(argv)
    try:
        check_arguments(args)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    from locolab.training import train  # after the checks: importing Isaac Lab takes seconds

    return train(args)


if __name__ == "__main__":
    sys.exit(main())
