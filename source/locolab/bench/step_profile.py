"""Where an environment step's time goes, stage by stage (``benchmark.py``'s ``sim_profile``).

cProfile's per-call cost inflates Python-heavy stages (Warp's launch code) several fold; this wraps only the stages'
entry points in wall-clock timers, so the figures add up to the step's own time. The stages do not overlap: each is
timed where it is entered from the stage above it, and what a stage's parent spends outside its children is
reported as the parent's ``_other`` share.
"""

from __future__ import annotations

import contextlib
import time
from collections import defaultdict
from collections.abc import Callable, Iterator

import mujoco
import torch
from isaaclab_rl.rsl_rl import RslRlVecEnvWrapper

from locolab.envs import open_env

from .sim_configs import sim_cfgs

_MISSING = object()
STAGES = {
    "physics": ("sim", "step"),
    "physics.actuators": ("manager", "_adapter.step"),
    "physics.newton_to_mujoco": ("solver", "_apply_mjc_control", "_update_mjc_data"),
    "physics.solver": ("solver", "_mujoco_warp_step"),
    "physics.solver.mj_step": (mujoco, "mj_step"),
    "physics.mujoco_to_newton": ("solver", "_update_newton_state"),
    "physics.contacts": ("manager", "_update_sensors"),
    "actions": ("env", "action_manager.process_action", "action_manager.apply_action"),
    "scene": ("env", "scene.write_data_to_sim", "scene.update"),
    "terminations": ("env", "termination_manager.compute"),
    "rewards": ("env", "reward_manager.compute"),
    "resets": ("env", "_reset_idx"),
    "commands": ("env", "command_manager.compute"),
    "events": ("env", "event_manager.apply"),
    "observations": ("env", "observation_manager.compute"),
}
"""Each stage: where its entry points live (the environment, its simulation context, its physics manager class, that
manager's solver, or a module) and their dotted names there. A dotted stage name nests under its parent."""


class StageTimer:
    """Accumulated wall-clock seconds per stage while its entry points are patched (see :data:`STAGES`)."""

    def __init__(self):
        self.seconds: dict[str, float] = defaultdict(float)

    def wrap(self, stage: str, function: Callable) -> Callable:
        seconds = self.seconds

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                seconds[stage] += time.perf_counter() - start

        return timed

    @contextlib.contextmanager
    def patched(self, env) -> Iterator[None]:
        """Patch every stage's entry points of ``env`` (an unwrapped Isaac Lab environment), then restore them."""
        undo = []
        manager = env.sim.physics_manager
        owners = {"env": env, "sim": env.sim, "manager": manager, "solver": manager._solver}
        for stage, (owner, *names) in STAGES.items():
            owner = owners.get(owner, owner)
            for dotted in names:
                *path, name = dotted.split(".")
                target = owner
                for part in path:
                    target = getattr(target, part)
                if target is None:  # e.g. no actuator adapter
                    continue
                undo.append((target, name, vars(target).get(name, _MISSING)))
                setattr(target, name, self.wrap(stage, getattr(target, name)))
        try:
            yield
        finally:
            for target, name, original in reversed(undo):
                if original is _MISSING:
                    delattr(target, name)  # the instance's own patch: its class's method shows again
                else:
                    setattr(target, name, original)

    def report(self, total: float, steps: int) -> dict[str, float]:
        """Milliseconds per env step for each stage and each parent's ``_other`` share, and ``total``."""
        ms = {stage: 1e3 * value / steps for stage, value in self.seconds.items()}
        report = dict(sorted(ms.items()))
        for stage in list(ms) + ["step"]:
            children = [child for child in ms if child.rsplit(".", 1)[0] == stage and "." in child] if stage != "step" \
                else [child for child in ms if "." not in child]
            if children:
                own = (1e3 * total / steps) if stage == "step" else ms[stage]
                report[f"{stage}._other"] = own - sum(ms[child] for child in children)
        report["step"] = 1e3 * total / steps
        return report


def step_profile(task: str, num_envs: int, device: str, steps: int, warmup: int = 20,
                 overrides: list[str] = ()) -> dict[str, float]:
    """Milliseconds per env step of each stage (:data:`STAGES`) of ``task``'s environment (the CPU profile's configs
    on a CPU) under uniform random actions, with the timers' own cost included in the stages they wrap."""
    env_cfg, _ = sim_cfgs(task, num_envs, device, overrides=list(overrides))
    with open_env(task, env_cfg) as env, torch.inference_mode():
        vec = RslRlVecEnvWrapper(env)
        vec.reset()
        for _ in range(warmup):
            vec.step(2 * torch.rand(num_envs, vec.num_actions, device=device) - 1)
        timer = StageTimer()
        with timer.patched(env.unwrapped):
            start = time.perf_counter()
            for _ in range(steps):
                vec.step(2 * torch.rand(num_envs, vec.num_actions, device=device) - 1)
            total = time.perf_counter() - start
        return timer.report(total, steps)
