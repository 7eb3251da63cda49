"""Go2 velocity-tracking tasks on LocoLab's generated robot, with randomised dynamics and privileged observations.

Extends Isaac Lab's stock Go2 velocity configs (MDP, rewards, terrain, Newton MuJoCo-Warp physics) and changes:
- the robot: the generated USD, PD gains under which it stands, the base-height target of its own kinematics;
- the dynamics: friction, payload, CoM, motor strength and PD gains resampled per environment at every reset
  (:class:`~locolab.envs.mdp.randomize_dynamics`) and pushes every few seconds;
- the commands: a fraction may ask for turning in place (off by default;
  :class:`~locolab.envs.turn_in_place_command.TurnInPlaceVelocityCommand`);
- the observations, split by who may see them (see :class:`LocoLabObservationsCfg`);
- no cloud-hosted visuals (sky texture, MDL ground material, debug markers).
"""

from __future__ import annotations

from isaaclab.managers import EventTermCfg as EventTerm
from isaaclab.managers import ObservationGroupCfg as ObsGroup
from isaaclab.managers import ObservationTermCfg as ObsTerm
from isaaclab.managers import RewardTermCfg as RewTerm
from isaaclab.managers import SceneEntityCfg
from isaaclab.utils import configclass, replace
from isaaclab.utils.noise import UniformNoiseCfg as Unoise

from isaaclab_assets.robots.unitree import UNITREE_GO2_CFG
from isaaclab_tasks.core.velocity import mdp
from isaaclab_tasks.core.velocity.config.go2.flat_env_cfg import UnitreeGo2FlatEnvCfg
from isaaclab_tasks.core.velocity.config.go2.rough_env_cfg import UnitreeGo2Rewards, UnitreeGo2RoughEnvCfg
from isaaclab_tasks.core.velocity.velocity_env_cfg import EventsCfg

from locolab.assets import GO2_SPEC, ensure_robot_files
from locolab.envs import mdp as locolab_mdp
from locolab.envs.delayed_dc_motor import DelayedDCMotorCfg
from locolab.envs.mdp.foot_stumble import FOOT_STUMBLE_REWARD, foot_stumble_reward
from locolab.envs.mdp.gait_clock import GAIT_CLOCK_REWARD, GAIT_CLOCK_TERM, gait_clock_observation, gait_clock_reward
from locolab.envs.mdp.stall import STALLED_TERMINATION, stalled_termination
from locolab.envs.mdp.stand_still import STAND_STILL_REWARD, stand_still_reward
from locolab.envs.mdp.swing_clearance import SWING_CLEARANCE_REWARD, swing_clearance_reward
from locolab.envs.metrics import DynamicsMetricsCfg
from locolab.envs.terrain import collide_as_heightfield

GO2_STIFFNESS = 50.0
"""PD stiffness [N m/rad]. The stock 25 lets a 15 kg Go2 sag to 0.27 m (18 % under nominal, measured); 50 holds
0.30 m, which is also within the range of gains used on the real robot."""
GO2_DAMPING = 1.0
"""PD damping [N m s/rad]."""
MAX_ACTION_DELAY_STEPS = 4
"""Longest delay of the motors' targets [physics steps]: one control period (the dynamics event draws 0 to 4)."""
PLAY_NUM_ENVS = 32
GROUND_FRICTION = 0.0
"""MuJoCo takes the larger friction of two touching shapes: a frictionless ground lets the robot's randomised
friction decide every contact (with the stock ground of 1.0, robot frictions below 1.0 would have no effect)."""
PUSH_INTERVAL_S = (2.5, 3.5)
"""Seconds between pushes (ROA pushes every 3 s)."""
PUSH_VELOCITY = {"x": (-0.5, 0.5), "y": (-0.5, 0.5)}
"""Base velocity a push sets [m/s] (ROA: up to 0.5 m/s)."""
TURN_IN_PLACE_ENVS = 0.0
"""Fraction of velocity commands that ask for turning in place: off, since at 0.1 it did not make the PPO-ROA teacher
turn in place (measured: :mod:`locolab.envs.mdp.commands`), and the PPO recipe's verification ran without it."""
EXTRA_SOLVER_ROWS = 6 * 4 + 2 * 12
"""Constraint rows a world needs beyond its contacts' condim-3 cones (4 rows each, pyramidal): the feet's condim-6
cones (6 more each) and a friction-loss and a limit row per joint. MuJoCo C's rows are copied into MuJoCo-Warp's
``njmax``-sized buffers; Isaac Lab's Go2 holds 65, sized for neither effect, and the PPO-ROA teacher with the
sim-to-real effects crashed at iteration 304 on a fallen robot's 76 rows (2026-12-03)."""
GAIT_CLOCK = {"frequency_hz": 2.0, "weight": 2.0}
"""The rough tasks' gait clock (:mod:`locolab.envs.mdp.gait_clock`): a 0.5 s trot period (each diagonal pair 0.25 s in
the air), its stepping reward's weight. Without it the rough runs' mean action stood under commands below 0.5 m/s."""
SWING_CLEARANCE = {"target_height": 0.08, "weight": 1.0}
"""The rough tasks' swing-clearance term (:mod:`locolab.envs.mdp.swing_clearance`): the clock's swing feet paid up to
8 cm above the ground below them. From a fresh start (with the CPU's harder top rows) it took stairs up and down 10 cm,
slopes and rough ground to 100 % of the gate's robots and boxes 10 cm to 88 % at iteration 634; weight 2 with a 12 cm
target crossed boxes with every robot but stalled on stairs up (6 %) and pushed turning and standing onto their bars;
a 10 cm target (with :data:`STAND_STILL` on) walked forward slower (0.42-0.43 m/s at 884-934), crossed stairs up and
boxes with 56-62 %; on 5 cm cells without it, a 10 cm target kept stairs up (100 %) but not boxes (62 %), stairs down
(69 %) or standing (0.104 m/s) at 634 (docs/measurements/rough_terrain.md, eighth to eleventh and 21st sessions)."""
STAND_STILL = {"weight": 0.0, "standing_share": 0.02}
"""The rough tasks' standing practice: the stand-still penalty's weight (:mod:`locolab.envs.mdp.stand_still`, the
joints' summed distance from their defaults under a standing command; off at 0) and the share of commands that ask
to stand (Isaac Lab's 0.02). At -0.5 with a 0.1 share (and a 10 cm swing target) the gate's standing robots drifted
at 0.069-0.077 m/s instead of 0.098-0.108 (bar 0.10); with the 8 cm target, the penalty and the share (or the share
alone) held 0.081-0.090 but crossed the gate's stairs up with 56-69 % of the robots (100 % without them), and the
penalty alone (0.02 share) held 0.080 but fell on stairs down, slopes down and boxes (62-88 %), so it stays off
(``env.rewards.stand_still.weight=-0.5 env.commands.base_velocity.rel_standing_envs=0.1`` turns it on;
docs/measurements/rough_terrain.md, eleventh to thirteenth sessions)."""
FOOT_STUMBLE = {"weight": 0.0, "ratio": 1.0}
"""The rough tasks' foot-stumble penalty (:mod:`locolab.envs.mdp.foot_stumble`: the feet's contact normals leaning
past ``ratio``, horizontal over vertical, in units of the robot's weight; off at 0), a lever against the robots that
stop in front of a box side. At -5 from a fresh start it slowed the curriculum (mean level 4.16 at 600 against
4.78-4.86), missed the flat forward check at 634 and 684 and crossed stairs up 10 cm with no robot and boxes 10 cm with
44 %, so it stays off (``env.rewards.foot_stumble.weight=-5.0`` turns it on; docs/measurements/rough_terrain.md,
twenty-third session)."""
STALLED = {"seconds": 0.0, "distance": 0.1, "min_speed": 0.2}
"""The rough tasks' end for stalled robots (:mod:`locolab.envs.mdp.stall`: under a linear command above ``min_speed``
[m/s], less than ``distance`` [m] covered in ``seconds``; a time-out; off at 0 s): a lever against the robots that stay
stopped in front of a box side for the rest of their episode (``env.terminations.stalled.params.seconds=3.0`` turns it
on)."""
HISTORY_LENGTH = 50
"""Steps of the proprioceptive history (``policy`` observations, oldest first) that ROA's adaptation module reads:
1 s at 50 Hz."""


def locolab_go2_articulation(prim_path: str = "{ENV_REGEX_NS}/Robot"):
    """Isaac Lab's Go2 articulation config pointed at the generated USD, with limits and pose from the spec; its
    DC motors (torque falling linearly to zero at the joint's velocity limit, Unitree's published Go2 limits) take
    their targets up to :data:`MAX_ACTION_DELAY_STEPS` late."""
    spec = GO2_SPEC
    usd = ensure_robot_files(spec).usd
    # motor limits depend on the joint type only (front and rear thighs share a motor)
    motors = {f".*_{part}_joint": spec.joint("FL", part) for part in ("hip", "thigh", "calf")}
    effort = {name: joint.effort_limit for name, joint in motors.items()}
    velocity = {name: joint.velocity_limit for name, joint in motors.items()}
    stock = UNITREE_GO2_CFG.actuators["base_legs"]
    legs = DelayedDCMotorCfg(
        joint_names_expr=stock.joint_names_expr,
        stiffness=GO2_STIFFNESS,
        damping=GO2_DAMPING,
        friction=stock.friction,
        actuator_effort_limit=effort,
        saturation_effort=effort,
        actuator_velocity_limit=velocity,
        max_delay=MAX_ACTION_DELAY_STEPS,
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


@configclass
class ProprioceptionCfg(ObsGroup):
    """What the robot itself measures (IMU, joint encoders), its command and its last action; noisy in training, the
    gyroscope offset by a randomised, drifting bias."""

    base_ang_vel = ObsTerm(func=locolab_mdp.gyro_with_bias, params={"event_name": "dynamics"},
                           noise=Unoise(n_min=-0.2, n_max=0.2))
    projected_gravity = ObsTerm(func=mdp.projected_gravity, noise=Unoise(n_min=-0.05, n_max=0.05))
    velocity_commands = ObsTerm(func=mdp.generated_commands, params={"command_name": "base_velocity"})
    joint_pos = ObsTerm(func=mdp.joint_pos_rel, noise=Unoise(n_min=-0.01, n_max=0.01))
    joint_vel = ObsTerm(func=mdp.joint_vel_rel, noise=Unoise(n_min=-1.5, n_max=1.5))
    actions = ObsTerm(func=mdp.last_action)

    def __post_init__(self):
        self.enable_corruption = True
        self.concatenate_terms = True


BASE_LIN_VEL = ObsTerm(func=mdp.base_lin_vel)
DYNAMICS = ObsTerm(func=locolab_mdp.dynamics_params, params={"event_name": "dynamics"})
FEET_CONTACT = ObsTerm(
    func=locolab_mdp.feet_contact,
    params={"sensor_cfg": SceneEntityCfg("contact_forces", body_names=".*_foot"), "threshold": 1.0},
)
HEIGHT_SCAN = ObsTerm(func=mdp.height_scan, params={"sensor_cfg": SceneEntityCfg("height_scanner")}, clip=(-1.0, 1.0))
"""The terrain's heights around the base (Isaac Lab's 1.6 x 1.0 m grid, 0.1 m apart) below the scanner, less 0.5 m."""


@configclass
class PrivilegedCfg(ObsGroup):
    """What only the simulator knows (``priv``, ROA's teacher encoder input): base velocity, the randomised
    dynamics mapped to [-1, 1], and foot contacts; on rough terrain the height scan too, so that the teacher's latent
    carries the ground under its feet, which the blind student must infer from its history."""

    base_lin_vel = BASE_LIN_VEL
    dynamics = DYNAMICS
    feet_contact = FEET_CONTACT

    def __post_init__(self):
        self.enable_corruption = False
        self.concatenate_terms = True


@configclass
class CriticCfg(ProprioceptionCfg):
    """The asymmetric critic's view: noise-free, unbiased proprioception, the privileged terms and the terrain
    heights."""

    base_ang_vel = ObsTerm(func=mdp.base_ang_vel)
    base_lin_vel = BASE_LIN_VEL
    dynamics = DYNAMICS
    feet_contact = FEET_CONTACT
    height_scan = HEIGHT_SCAN

    def __post_init__(self):
        self.enable_corruption = False
        self.concatenate_terms = True


@configclass
class HeightScanCfg(ObsGroup):
    """The height scan as a robot's depth sensor or elevation map would give it, with Isaac Lab's rough-task noise
    (``scan``, rough terrain only). No default actor reads it (LocoLab's policies are blind); an actor told to
    (``agent.obs_groups.actor=[policy,scan]``: :data:`SIGHTED_ACTOR_GROUPS`) sees the terrain as Isaac Lab's stock
    rough policy does."""

    height_scan = ObsTerm(func=mdp.height_scan, params={"sensor_cfg": SceneEntityCfg("height_scanner")},
                          noise=Unoise(n_min=-0.1, n_max=0.1), clip=(-1.0, 1.0))

    def __post_init__(self):
        self.enable_corruption = True
        self.concatenate_terms = True


SIGHTED_ACTOR_GROUPS = ["policy", "scan"]
"""An actor's observation groups for a robot with a terrain sensor: proprioception, then the height scan."""


@configclass
class LocoLabObservationsCfg:
    """Observation groups, by who may see them.

    - ``policy``: proprioception only, what a real robot measures (the deployed student sees this and its history);
    - ``critic``: ``policy`` without noise, plus the privileged terms (and the height scan on rough terrain);
    - ``priv``: the privileged terms alone (ROA's teacher encoder);
    - ``scan``: on rough terrain, the noisy height scan, for an actor configured to see the terrain.
    The proprioceptive history is built from ``policy`` by :class:`locolab.envs.ProprioHistoryWrapper`.
    """

    policy: ProprioceptionCfg = ProprioceptionCfg()
    critic: CriticCfg = CriticCfg()
    priv: PrivilegedCfg = PrivilegedCfg()
    scan: HeightScanCfg | None = None


@configclass
class LocoLabRewardsCfg(UnitreeGo2Rewards):
    """The stock Go2 rewards plus Isaac Lab's termination penalty (as its humanoid velocity tasks use).

    Every stock per-step term but tracking is a penalty, and pushes and randomised dynamics make them larger: without
    a price on falling, a slowly learning policy finds that ending the episode early maximises its return (measured
    on a 64-environment CPU run: episodes grew to 296 steps by iteration 38, then collapsed to 17 steps, every one
    ending in a base contact, and stayed there).
    """

    termination_penalty = RewTerm(func=mdp.is_terminated, weight=-200.0)


@configclass
class LocoLabEventsCfg(EventsCfg):
    """The stock events with the startup friction/mass/CoM draws replaced by per-reset, recorded dynamics."""

    physics_material = None
    add_base_mass = None
    base_com = None
    dynamics = EventTerm(
        func=locolab_mdp.randomize_dynamics,
        mode="reset",
        params={
            "asset_cfg": SceneEntityCfg("robot", body_names="base"),
            "ranges": locolab_mdp.DynamicsRandomizationCfg(),
        },
    )


def use_locolab_go2(cfg) -> None:
    """Apply LocoLab's robot, dynamics, observations and offline visuals to a stock Go2 velocity config, in place."""
    cfg.scene.robot = locolab_go2_articulation()
    ground = replace(cfg.scene.terrain.physics_material, static_friction=GROUND_FRICTION,
                     dynamic_friction=GROUND_FRICTION)
    cfg.scene.terrain.physics_material = cfg.sim.physics_material = ground
    cfg.events.push_robot.interval_range_s = PUSH_INTERVAL_S
    cfg.events.push_robot.params["velocity_range"] = PUSH_VELOCITY
    cfg.scene.terrain.visual_material = None
    cfg.scene.sky_light.spawn.texture_file = None
    cfg.commands.base_velocity = locolab_mdp.with_turn_in_place(cfg.commands.base_velocity, TURN_IN_PLACE_ENVS)
    cfg.commands.base_velocity.debug_vis = False
    cfg.rewards.base_height_l2.params["target_height"] = GO2_SPEC.standing_height()
    physics = cfg.sim.physics  # a preset until resolved: its MuJoCo-Warp choices, each its own copy
    for choice in (physics, getattr(physics, "newton_mjwarp", None), getattr(physics, "default", None)):
        solver = getattr(choice, "solver_cfg", None)
        if hasattr(solver, "njmax"):
            solver.njmax = max(solver.njmax, 4 * solver.nconmax + EXTRA_SOLVER_ROWS)


def use_play_mode(cfg) -> None:
    """Fewer environments, no pushes, no terrain curriculum, no observation noise."""
    cfg.play_mode()
    cfg.scene.num_envs = PLAY_NUM_ENVS
    cfg.curriculum.terrain_levels = None


@configclass
class LocoLabGo2Cfg:
    """What LocoLab's flat and rough configs add to Isaac Lab's Go2 configs. A mixin: listed before the stock config
    among a task config's bases, so that its fields win over the stock ones of the same name."""

    observations: LocoLabObservationsCfg = LocoLabObservationsCfg()
    events: LocoLabEventsCfg = LocoLabEventsCfg()
    rewards: LocoLabRewardsCfg = LocoLabRewardsCfg()
    history_length: int = HISTORY_LENGTH
    """Length of the ``history`` observation (built from ``policy`` by locolab.envs.ProprioHistoryWrapper)."""
    metrics: DynamicsMetricsCfg = DynamicsMetricsCfg()
    """Episode metrics of training, evaluation, play.py and eval.py (locolab.envs.metrics)."""
    skip_absent_passive_forces: bool = False
    """Skip MuJoCo-Warp's passive-force stage and Euler's implicit damping while the robot has no passive forces, on a
    CPU (locolab.envs.passive_forces): the same physics, cheaper. The -CPU tasks turn it on."""
    sim_processes: int = 1
    """Simulation processes, each stepping a slice of the robots on one CPU thread (CPU only; a GPU steps all in
    one)."""
    physics_engine: str = "mujoco_warp"
    """What steps the worlds: ``mujoco_warp`` (Isaac Lab's Newton/MuJoCo-Warp, any device) or ``mujoco_c`` (MuJoCo's
    C engine under the same Newton model and managers, CPU only: locolab.envs.mujoco_c). The -CPU tasks train on
    ``mujoco_c``; play.py and evaluation keep MuJoCo-Warp, a simulator the policy did not train in."""

    def __post_init__(self):
        super().__post_init__()
        use_locolab_go2(self)


@configclass
class LocoLabGo2RoughEnvCfg(LocoLabGo2Cfg, UnitreeGo2RoughEnvCfg):
    """Rough terrain (stock sub-terrains scaled for a small robot) with the terrain-level curriculum, collided as a
    heightfield in every engine (:mod:`locolab.envs.terrain`), and a gait clock (:data:`GAIT_CLOCK`)."""

    def __post_init__(self):
        super().__post_init__()
        collide_as_heightfield(self.scene.terrain.terrain_generator)
        self.observations.priv.height_scan = HEIGHT_SCAN
        self.observations.scan = HeightScanCfg()
        self.curriculum.terrain_levels.func = locolab_mdp.terrain_levels_by_type
        self.curriculum.terrain_levels.params["promote_falls"] = True  # Isaac Lab's rule; overridable
        self.curriculum.terrain_levels.params["promote_distance"] = {}  # half a tile on every type; overridable
        for group in (self.observations.policy, self.observations.critic):  # last in each group
            setattr(group, GAIT_CLOCK_TERM, gait_clock_observation(GAIT_CLOCK["frequency_hz"]))
        setattr(self.rewards, GAIT_CLOCK_REWARD, gait_clock_reward(GAIT_CLOCK["frequency_hz"], GAIT_CLOCK["weight"]))
        swing = swing_clearance_reward(GAIT_CLOCK["frequency_hz"], SWING_CLEARANCE["target_height"],
                                       GO2_SPEC.foot_radius, SWING_CLEARANCE["weight"])
        setattr(self.rewards, SWING_CLEARANCE_REWARD, swing)
        setattr(self.rewards, STAND_STILL_REWARD, stand_still_reward(STAND_STILL["weight"]))
        stumble = foot_stumble_reward(FOOT_STUMBLE["weight"], FOOT_STUMBLE["ratio"], GO2_SPEC.total_mass())
        setattr(self.rewards, FOOT_STUMBLE_REWARD, stumble)
        setattr(self.terminations, STALLED_TERMINATION, stalled_termination(**STALLED))
        self.commands.base_velocity.rel_standing_envs = STAND_STILL["standing_share"]


@configclass
class LocoLabGo2RoughEnvCfg_PLAY(LocoLabGo2RoughEnvCfg):
    def __post_init__(self):
        super().__post_init__()
        use_play_mode(self)


@configclass
class LocoLabGo2FlatEnvCfg(LocoLabGo2Cfg, UnitreeGo2FlatEnvCfg):
    """Flat ground plane (no height scan)."""

    def __post_init__(self):
        super().__post_init__()
        self.observations.critic.height_scan = None


@configclass
class LocoLabGo2FlatEnvCfg_PLAY(LocoLabGo2FlatEnvCfg):
    def __post_init__(self):
        super().__post_init__()
        use_play_mode(self)
