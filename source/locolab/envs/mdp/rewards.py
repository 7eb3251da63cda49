"""Reward terms LocoLab's CPU training adds to Isaac Lab's Go2 rewards: a fine tracking kernel and a trot gait.

Both are Isaac Lab's own functions with other parameters (its tracking exponentials with a narrower kernel, its Spot
task's ``GaitReward`` on the Go2's diagonal feet); only their configs are built here.
"""

from __future__ import annotations

from isaaclab.managers import RewardTermCfg, SceneEntityCfg
from isaaclab.utils import replace
from isaaclab_tasks.contrib.velocity.config.spot.mdp import GaitReward

from locolab.envs.metrics import DIAGONAL_PAIRS, FEET

TRACKING_TERMS = ("track_lin_vel_xy_exp", "track_ang_vel_z_exp")
"""Isaac Lab's velocity-tracking rewards (linear, yaw)."""
FINE_TRACKING_TERMS = dict(zip(("track_lin_vel_xy_fine", "track_ang_vel_z_fine"), TRACKING_TERMS))
"""The fine tracking rewards and the stock terms they copy."""
TROT_GAIT_TERM = "trot_gait"
TRAINING_ONLY_REWARDS = (*FINE_TRACKING_TERMS, TROT_GAIT_TERM)
"""Reward terms of CPU training only: evaluation and play.py run the -Play tasks without them."""


def fine_tracking(stock: RewardTermCfg, weight: float, std: float) -> RewardTermCfg:
    """A copy of a stock tracking term with kernel width ``std``: it keeps paying for errors the stock width no
    longer tells apart."""
    return replace(stock, weight=weight, params={**stock.params, "std": std})


def trot_gait(weight: float, std: float) -> RewardTermCfg:
    """Isaac Lab's gait reward favouring a trot: the diagonal foot pairs of the gait metrics move together; ``std``
    scales its kernel on squared time differences [s^2]."""
    pairs = tuple(tuple(f"{FEET[foot]}_foot" for foot in pair) for pair in DIAGONAL_PAIRS)
    return RewardTermCfg(func=GaitReward, weight=weight, params={
        "std": std, "max_err": 0.2, "velocity_threshold": 0.5, "synced_feet_pair_names": pairs,
        "asset_cfg": SceneEntityCfg("robot"), "sensor_cfg": SceneEntityCfg("contact_forces")})
