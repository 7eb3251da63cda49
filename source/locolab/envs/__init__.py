"""Glue between LocoLab's scripts and Isaac Lab environments."""

from .asset_check import MissingAssetError, check_assets_offline
from .factory import CPU_NUM_ENVS, default_device, load_task_cfgs, open_env, registered_tasks, resolve_device
from .history import ProprioHistory, ProprioHistoryWrapper
