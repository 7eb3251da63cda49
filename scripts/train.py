"""Train a LocoLab task headless with rsl_rl's OnPolicyRunner: PPO, or PPO-ROA's train and finetune phases.

    python scripts/train.py --task LocoLab-Velocity-Flat-Go2 --device cpu --num_envs 32 --max_iterations 3
    python scripts/train.py --agent ppo_rnn                                  # recurrent (GRU) PPO
    python scripts/train.py --agent roa                                      # ROA phase train: the teacher
    python scripts/train.py --agent roa --phase finetune --teacher logs/locolab_go2_flat_roa/<run>   # the student
    python scripts/train.py --agent sac --collector async                    # SAC, collecting while it learns (CPU)

    python scripts/train.py env.scene.num_envs=128 agent.algorithm.learning_rate=3e-4   # Hydra-style overrides

Writes <log_root>/<experiment>/<timestamp>_<run_name>/ with model_<it>.pt checkpoints (atomic), TensorBoard
events and params/{env,agent}.yaml. --resume continues a run's iteration count, optimizers and normalisers.

On a CPU the CPU training profile (locolab.cpu_profile) is applied first and saved as params/cpu_profile.yaml;
--num_envs, --max_iterations and overrides (env.<path>=value, agent.<path>=value) are applied after it. On flat
ground the profile trains on past its planned iterations until the final checkpoint passes the walking checks
(locolab.runners.walking_gate; verdicts in walking_gate.json), unless --max_iterations is given.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from datetime import datetime
from pathlib import Path

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
    parser.add_argument("--num_envs", type=int, default=None, help="default: the task's (4096), 64 on a CPU")
    parser.add_argument("--device", default=None, help="cpu, cuda or cuda:N for simulator AND agent (default: cuda "
                        "if available, else cpu)")
    parser.add_argument("--max_iterations", type=int, default=None, help="default: the agent config's")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--run_name", default="", help="suffix of the run directory")
    parser.add_argument("--resume", default=None, help="run directory (latest checkpoint) or model_<it>.pt")
    parser.add_argument("--log_root", default="logs", help="root of the run directories (default logs/)")
    parser.add_argument("--sim_processes", type=int, default=None, help="CPU: simulation processes, each stepping "
                        "a slice of the robots (default: the CPU profile's, else 1)")
    parser.add_argument("--no_cpu_profile", action="store_true", help="on a CPU, keep the task's GPU-sized settings "
                        "(physics substeps, PPO) instead of the CPU training profile")
    parser.add_argument("overrides", nargs="*", metavar="KEY=VALUE", help="Hydra-style overrides of the configs, "
                        "e.g. env.scene.num_envs=256 agent.algorithm.learning_rate=3e-4")
    return parser.parse_intermixed_args(argv)  # overrides may come before and after options


def run_dir(log_root: str, experiment: str, run_name: str) -> str:
    stamp = datetime.now().strftime("%Y-%m-%d_%H-%M-%S")
    return os.path.abspath(os.path.join(log_root, experiment, f"{stamp}_{run_name}" if run_name else stamp))


SEED_RANGE = (0, 2**32 - 1)
"""Seeds numpy, torch and Warp accept alike."""


def check_arguments(args: argparse.Namespace) -> None:
    """Numbers in range and combinations of --agent, --phase, --teacher and --resume that make sense, else a
    ValueError saying why."""
    if args.max_iterations is not None and args.max_iterations < 1:
        raise ValueError(f"--max_iterations must be at least 1, got {args.max_iterations}.")
    if args.seed is not None and not SEED_RANGE[0] <= args.seed <= SEED_RANGE[1]:
        raise ValueError(f"--seed must be between {SEED_RANGE[0]} and {SEED_RANGE[1]}, got {args.seed}.")
    if args.agent != "roa" and (args.phase != "train" or args.teacher):
        raise ValueError("--phase finetune and --teacher belong to --agent roa.")
    if args.collector is not None and args.agent != "sac":
        raise ValueError("--collector belongs to --agent sac.")
    if args.phase == "finetune" and not (args.teacher or args.resume):
        raise ValueError("--phase finetune starts from a train-phase checkpoint: give --teacher <run dir or "
                         "model_<it>.pt> (or --resume a finetune run).")
    if args.teacher and (args.phase != "finetune" or args.resume):
        raise ValueError("--teacher starts a new finetune run: use it with --phase finetune and without --resume.")


def checked_checkpoint(path: str, agent: str, phase: str, task: str | None = None):
    """The checkpoint file ``path`` names, read once to fail before the environment is built if it is unreadable,
    was trained by another agent or in another ROA phase, or (``task`` given: a resume) on another task (a
    CheckpointError)."""
    from locolab.runners import CheckpointError, read_checkpoint, resolve_checkpoint, trained_agent

    checkpoint = resolve_checkpoint(path)
    saved = read_checkpoint(checkpoint)
    if task is not None and saved.get("task") not in (None, task):
        raise CheckpointError(f"Checkpoint '{checkpoint}' was trained on --task {saved['task']}, not --task {task}: "
                              f"give --task {saved['task']} (or start a new run without --resume).")
    saved_agent, saved_phase = trained_agent(saved)
    if saved_agent != agent:
        raise CheckpointError(f"Checkpoint '{checkpoint}' was trained with --agent {saved_agent}, not --agent {agent}.")
    if saved_phase != phase:
        raise CheckpointError(f"Checkpoint '{checkpoint}' is from ROA phase '{saved_phase}', expected phase '{phase}'.")
    return checkpoint


def main(argv: list[str] | None = None) -> int:
    """``train``, with SIGTERM stopping like Ctrl-C outside the training loop (whose own handler finishes the
    iteration first): a signal during start-up, or a second one during shutdown, stops at once with one line and exit
    code 130 instead of a traceback (SIGTERM's default would also skip stopping the simulation processes)."""
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        return train(argv)
    except KeyboardInterrupt:
        print("[LocoLab] Stopped at once by a signal; the checkpoints written before it are complete.",
              file=sys.stderr, flush=True)
        return 130


def train(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        check_arguments(args)  # before the imports below, which take seconds: a mistyped flag fails at once
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    from locolab.algorithms.sac_cfg import check_sac_cfg
    from locolab.config_overrides import apply_overrides
    from locolab.cpu_profile import CpuProfileCfg, apply_cpu_profile, effective_settings
    from locolab.envs import (MissingAssetError, check_assets_offline, check_physics_engine, load_task_cfgs,
                              open_training_env)
    from locolab.envs.mdp import check_dynamics_cfg
    from locolab.eval.periodic import check_periodic_eval_cfg, periodic_evaluation
    from locolab.runners import CheckpointError
    from locolab.runners.build import build_runner
    from locolab.runners.on_policy_runner import TrainingInterrupted
    from locolab.models.squashed_gaussian import ActionBoundsError
    from locolab.runners.nonfinite import NonFiniteUpdateError
    from locolab.runners.update_precision import check_update_precision
    from locolab.runners.walking_gate import learn_until_walking, play_checks
    from locolab.tasks import AGENT_ENTRY_POINTS

    profile = None
    try:
        env_cfg, agent_cfg = load_task_cfgs(args.task, AGENT_ENTRY_POINTS[(args.agent, args.phase)],
                                            num_envs=args.num_envs, device=args.device, seed=args.seed)
        if env_cfg.sim.device == "cpu" and not args.no_cpu_profile:
            profile = CpuProfileCfg()
            apply_cpu_profile(env_cfg, agent_cfg, profile, num_envs_given=args.num_envs is not None,
                              max_iterations_given=args.max_iterations is not None)
        if args.max_iterations is not None:
            agent_cfg.max_iterations = args.max_iterations
        if args.collector is not None:
            agent_cfg.collector = args.collector
        overridden = apply_overrides(env_cfg, agent_cfg, args.overrides)
        if args.agent == "sac":
            check_sac_cfg(agent_cfg)
        else:
            check_update_precision(agent_cfg.update_precision)
        check_dynamics_cfg(env_cfg)
        check_physics_engine(env_cfg)
        check_periodic_eval_cfg(getattr(agent_cfg, "evaluation", None))
        sim_processes = args.sim_processes or (profile.sim_processes if profile is not None else 1)
        if sim_processes > 1 and env_cfg.sim.device != "cpu":
            raise ValueError("--sim_processes applies to CPU simulation; on a GPU one process steps every robot.")
        if sim_processes < 1 or sim_processes > env_cfg.scene.num_envs:
            raise ValueError(f"--sim_processes must be between 1 and the number of environments "
                             f"({env_cfg.scene.num_envs}), got {sim_processes}.")
        check_assets_offline(env_cfg)  # again: an override may name another asset
        resume = checked_checkpoint(args.resume, args.agent, args.phase, args.task) if args.resume else None
        teacher = checked_checkpoint(args.teacher, args.agent, "train") if args.teacher else None
    except (ValueError, CheckpointError, MissingAssetError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if "agent.seed" in overridden and "env.seed" not in overridden:
        env_cfg.seed = agent_cfg.seed
    for key, value in overridden.items():
        print(f"[LocoLab] Override: {key}={value!r}")
    settings = None
    if profile is not None:
        settings = {**effective_settings(env_cfg, agent_cfg), "sim_processes": sim_processes}
        print(f"[LocoLab] CPU training profile (after flags and overrides): {json.dumps(settings)}")
    agent_cfg.run_name = args.run_name
    log_dir = run_dir(args.log_root, agent_cfg.experiment_name, args.run_name)
    env_cfg.log_dir = log_dir

    from isaaclab.utils.io import dump_yaml

    with (open_training_env(args.task, env_cfg, sim_processes, agent_cfg.clip_actions) as env,
          periodic_evaluation(args.task, env_cfg, agent_cfg) as evaluator):
        try:
            runner = build_runner(env, agent_cfg, log_dir, evaluator)
        except ActionBoundsError as error:
            print(f"error: agent.actor.{error}", file=sys.stderr)
            return 2
        try:
            if resume is not None:
                runner.load(str(resume))
                print(f"[LocoLab] Resumed from {resume} at iteration {runner.current_learning_iteration}")
                print(f"[LocoLab] Resumed state: {json.dumps(runner.training_state())}")
            if teacher is not None:
                runner.load(str(teacher), load_cfg={"teacher": True})
                print(f"[LocoLab] Finetuning the student of teacher {teacher}")
        except CheckpointError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        dump_yaml(os.path.join(log_dir, "params", "env.yaml"), env_cfg)
        dump_yaml(os.path.join(log_dir, "params", "agent.yaml"), agent_cfg)
        if settings is not None:
            dump_yaml(os.path.join(log_dir, "params", "cpu_profile.yaml"), settings)
        print(f"[LocoLab] Training {args.task} on {env_cfg.sim.device} with {env_cfg.scene.num_envs} envs: {log_dir}")
        gate = getattr(agent_cfg, "walking_gate", None)
        try:
            if gate is not None and gate.extra_iterations > 0:
                learn_until_walking(runner, agent_cfg.max_iterations, gate,
                                    play_checks(args.task, env_cfg.sim.device, Path(__file__).resolve().parent),
                                    init_at_random_ep_len=agent_cfg.init_at_random_ep_len)
            else:
                runner.learn(agent_cfg.max_iterations, init_at_random_ep_len=agent_cfg.init_at_random_ep_len)
        except TrainingInterrupted:
            return 130
        except NonFiniteUpdateError as error:
            print(f"error: {'; '.join([str(error), *getattr(error, '__notes__', [])])}. Lower "
                  "agent.algorithm.learning_rate or check the task's rewards and observations.", file=sys.stderr)
            return 1
    print(f"[LocoLab] Done: {log_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
