"""Go2 velocity-tracking tasks on LocoLab's generated robot.

Extends Isaac Lab's stock Go2 velocity configs (MDP, rewards, terrain, Newton MuJoCo-Warp physics) and changes only
what our robot and offline machines need: the generated USD, PD gains under which it stands, the base-height target
of its own kinematics, and no cloud-hosted visuals (sky texture, MDL ground material, debug markers).
"""

from __future__ import annotations

from isaaclab.utils import configclass, replace

from isaaclab_assets.robots.unitree import UNITREE_GO2_CFG
from isaaclab_tasks.core.velocity.config.go2.flat_env_cfg import UnitreeGo2FlatEnvCfg
from isaaclab_tasks.core.velocity.config.go2.rough_env_cfg import UnitreeGo2RoughEnvCfg

from locolab.assets import GO2_SPEC, ensure_robot_files

GO2_STIFFNESS = 50.0
"""PD stiffness [N m/rad]. The stock 25 lets a 15 kg Go2 sag to 0.27 m (18 % under nominal, measured); 50 holds
0.30 m, which is also within the range of gains used on the real robot."""
GO2_DAMPING = 1.0
"""PD damping [N m s/rad]."""
PLAY_NUM_ENVS = 32


def locolab_go2_articulation(prim_path: str = "{ENV_REGEX_NS}/Robot"):
    """Isaac Lab's Go2 articulation config pointed at the generated USD, with limits and pose from the spec."""
    spec = GO2_SPEC
    usd = ensure_robot_files(spec).usd
    # motor limits depend on the joint type only (front and rear thighs share a motor)
    motors = {f".*_{part}_joint": spec.joint("FL", part) for part in ("hip", "thigh", "calf")}
    effort = {name: joint.effort_limit for name, joint in motors.items()}
    velocity = {name: joint.velocity_limit for name, joint in motors.items()}
    legs = replace(
        UNITREE_GO2_CFG.actuators["base_legs"],
        stiffness=GO2_STIFFNESS,
        damping=GO2_DAMPING,
        actuator_effort_limit=effort,
        saturation_effort=effort,
        actuator_velocity_limit=velocity,
    )
    init_state = replace(
        UNITREE_GO2_CFG.init_state,
        pos=(0.0, 0.0, spec.standing_height() + 0.05),
        joint_pos=spec.default_joint_pos(),
    )
    return replace(
        UNITREE_GO2_CFG,
        prim_path=prim_path,
        spawn=replace(UNITREE_GO2_CFG.spawn, usd_path=str(usd)),
        init_state=init_state,
        actuators={"base_legs": legs},
    )


def use_locolab_go2(cfg) -> None:
    """Apply LocoLab's robot and offline visuals to a stock Go2 velocity config, in place."""
    cfg.scene.robot = locolab_go2_articulation()
    cfg.scene.terrain.visual_material = None
    cfg.scene.sky_light.spawn.texture_file = None
    cfg.commands.base_velocity.debug_vis = False
    cfg.rewards.base_height_l2.params["target_height"] = GO2_SPEC.standing_height()


def use_play_mode(cfg) -> None:
    """Fewer environments, no pushes, no terrain curriculum, no observation noise."""
    cfg.play_mode()
    cfg.scene.num_envs = PLAY_NUM_ENVS
    cfg.curriculum.terrain_levels = None


@configclass
class LocoLabGo2RoughEnvCfg(UnitreeGo2RoughEnvCfg):
    """Rough terrain (stock sub-terrains scaled for a small robot) with the terrain-level curriculum."""

    def __post_init__(self):
        super().__post_init__()
        use_locolab_go2(self)


@configclass
class LocoLabGo2RoughEnvCfg_PLAY(LocoLabGo2RoughEnvCfg):
    def __post_init__(self):
        super().__post_init__()
        use_play_mode(self)


@configclass
class LocoLabGo2FlatEnvCfg(UnitreeGo2FlatEnvCfg):
    """Flat ground plane."""

    def __post_init__(self):
        super().__post_init__()
        use_locolab_go2(self)


@configclass
class LocoLabGo2FlatEnvCfg_PLAY(LocoLabGo2FlatEnvCfg):
    def __post_init__(self):
        super().__post_init__()
        use_play_mode(self)
