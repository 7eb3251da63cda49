"""How LocoLab's task ids name their variants: a leaf that the tasks (which register the ids) and the environment
factory (which looks them up) both import, so neither imports the other for a suffix."""

PLAY_SUFFIX = "-Play"
"""Marks a task's play variant: fewer environments, no pushes or observation noise."""
CPU_SUFFIX = "-CPU"
"""Marks the task variants sized for a CPU (locolab.tasks.go2_velocity_cpu_env_cfg): their robot count stands."""
