"""The flat and rough Go2 task configs: LocoLab's fields replace Isaac Lab's on both terrains, train and play."""

import pytest

from locolab.envs.metrics import VelocityMetricsCfg
from locolab.tasks import go2_velocity_env_cfg as tasks


@pytest.mark.parametrize("cfg_class", [tasks.LocoLabGo2FlatEnvCfg, tasks.LocoLabGo2FlatEnvCfg_PLAY,
                                       tasks.LocoLabGo2RoughEnvCfg, tasks.LocoLabGo2RoughEnvCfg_PLAY])
def test_both_terrains_hold_locolabs_observations_events_rewards_and_metrics(cfg_class):
    cfg = cfg_class()
    assert isinstance(cfg.observations, tasks.LocoLabObservationsCfg)
    assert isinstance(cfg.events, tasks.LocoLabEventsCfg) and cfg.events.physics_material is None
    assert isinstance(cfg.rewards, tasks.LocoLabRewardsCfg) and cfg.rewards.termination_penalty.weight < 0
    assert isinstance(cfg.metrics, VelocityMetricsCfg)
    assert cfg.history_length == tasks.HISTORY_LENGTH
    assert cfg.scene.terrain.physics_material.static_friction == tasks.GROUND_FRICTION  # use_locolab_go2 ran


def test_only_the_rough_critic_sees_the_terrain():
    assert tasks.LocoLabGo2FlatEnvCfg().observations.critic.height_scan is None
    assert tasks.LocoLabGo2RoughEnvCfg().observations.critic.height_scan is not None
