"""Glue between LocoLab's scripts and Isaac Lab environments. Importing it sets up the offline asset root."""

from locolab.assets import use_offline_asset_root

use_offline_asset_root()  # before any Isaac Lab import reads ISAACSIM_ASSET_ROOT

from .commands import fix_velocity_command, parse_velocity_command
from .asset_check import MissingAssetError, check_assets_offline
from .factory import (
    CPU_NUM_ENVS,
    check_physics_engine,
    default_device,
    load_task_cfgs,
    open_env,
    play_variant,
    registered_tasks,
    resolve_device,
)
from .multiprocess import open_training_env
from .history import ProprioHistory, ProprioHistoryWrapper
from .observation_noise import keep_observation_noise, noisy_observation_terms
