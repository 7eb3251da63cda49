"""How LocoLab's task ids name their variants: a leaf that the tasks (which register the ids) and the environment
factory (which looks them up) both import, so neither imports the other for a suffix."""

import re

PLAY_SUFFIX = "-Play"
"""Marks a task's play variant: fewer environments, no pushes or observation noise."""
CPU_SUFFIX = "-CPU"
"""Marks the task variants sized for a CPU (locolab.tasks.go2_velocity_cpu_env_cfg): their robot count stands."""
CPU_TRAINING_TASK = re.compile(r"-(?:[A-Za-z]+-)?CPU$")
"""A CPU training variant's ending: ``-CPU``, or an agent's own such as ``-RoaFinetune-CPU``."""


def base_task(task: str) -> str:
    """The task a CPU training variant was derived from (``LocoLab-Velocity-Flat-Go2-Roa-CPU`` ->
    ``LocoLab-Velocity-Flat-Go2``); any other id unchanged."""
    return CPU_TRAINING_TASK.sub("", task)
