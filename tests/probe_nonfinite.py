"""Trains a real task for a few iterations with non-finite values planted (nonfinite_plants) and, optionally, one
update made non-finite; prints one JSON line with what the guard counted and whether everything stayed finite."""

from __future__ import annotations

import argparse
import json
import math

import torch


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agent", choices=("ppo", "roa"), default="ppo")
    parser.add_argument("--sim_processes", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=4)
    parser.add_argument("--plant_steps", type=int, nargs=3, default=(-1, -1, -1), metavar=("OBS", "REWARD", "STATE"),
                        help="policy steps of the planted NaN observation, Inf reward and NaN joint state")
    parser.add_argument("--nan_update", type=int, nargs="*", default=[], help="iterations whose update goes NaN")
    parser.add_argument("--max_restores", type=int, default=3)
    parser.add_argument("--log_dir", required=True)
    args = parser.parse_args()

    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from locolab.envs import load_task_cfgs, open_training_env
    from locolab.runners.build import build_runner
    from locolab.runners.nonfinite import NonFiniteUpdateError, nonfinite_parameters
    from locolab.tasks import AGENT_ENTRY_POINTS
    from nonfinite_plants import plant_nonfinite

    task = "LocoLab-Velocity-Flat-Go2"
    env_cfg, agent_cfg = load_task_cfgs(task, AGENT_ENTRY_POINTS[(args.agent, "train")], num_envs=8, device="cpu",
                                        seed=3)
    env_cfg.sim.physics.num_substeps = 1
    plant_nonfinite(env_cfg, *args.plant_steps)
    agent_cfg.num_steps_per_env = 24
    agent_cfg.save_interval = 1
    agent_cfg.nonfinite.max_restores = args.max_restores
    report = {}
    with open_training_env(task, env_cfg, args.sim_processes, agent_cfg.clip_actions) as env:
        runner = build_runner(env, agent_cfg, args.log_dir)
        update = runner.alg.update
        updates = []

        def update_with_planted_nan():
            losses = update()
            if len(updates) in args.nan_update:
                next(runner.alg.get_policy().parameters()).data.fill_(float("nan"))
            updates.append(runner.alg.learning_rate)
            return losses

        runner.alg.update = update_with_planted_nan
        try:
            runner.learn(args.iterations)
            report["stopped"] = None
        except NonFiniteUpdateError as error:
            report["stopped"] = "; ".join([str(error), *getattr(error, "__notes__", [])])
        report["learning_rates"] = updates  # after each update, as the adaptive schedule left it
        report["final_learning_rate"] = runner.alg.learning_rate
        report["iteration"] = runner.current_learning_iteration
        report["nonfinite_parameters"] = nonfinite_parameters(runner.alg)
        report["finite_observations"] = all(bool(torch.isfinite(value).all())
                                            for value in runner.env.get_observations().values())
    events = EventAccumulator(args.log_dir).Reload()
    report["scalars"] = {tag: [event.value for event in events.Scalars(tag)]
                         for tag in events.Tags()["scalars"] if tag.startswith("NonFinite/")}
    report["losses_finite"] = all(math.isfinite(event.value) for tag in events.Tags()["scalars"]
                                  if tag.startswith("Loss/") for event in events.Scalars(tag))
    print(json.dumps(report))


if __name__ == "__main__":
    main()
