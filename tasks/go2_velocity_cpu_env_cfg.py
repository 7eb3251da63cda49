"""CPU variants of the Go2 velocity tasks (``-CPU`` task ids): what a run on a laptop-class CPU trains on.

Isaac Lab's Go2 settings are sized for a GPU (4096 robots, two 2.5 ms MuJoCo-Warp substeps per 5 ms step); on 2 cores
that is hours per walking policy. These variants keep the 50 Hz control and the MDP, and change the robot count, the
physics, the reward shaping and the curricula; ``scripts/train.py`` picks them by itself where no GPU is visible.
Each value was measured on 2 cores: docs/measurements/cpu_profile.md has the runs behind it.

The agents did not train on one environment: PPO and its GRU on :class:`LocoLabGo2FlatEnvCfg_CPU`, SAC without the
noise-free share, the PPO-ROA teacher without the noise-free share (since 2026-12-03 with PPO's turn-in-place commands
and gait reward: with the sim-to-real effects the bounding teacher turned but walked forward at 0.28-0.34 m/s), its
student on arcsine dynamics draws. Each is a registered task (``tasks/__init__.py``).
"""

from __future__ import annotations

from isaaclab.managers import SceneEntityCfg
from isaaclab.managers import TerminationTermCfg as DoneTerm
from isaaclab.utils import configclass
from isaaclab_tasks.core.velocity.mdp import terrain_out_of_bounds
from isaaclab_tasks.utils.hydra import PresetCfg

from locolab.envs.mdp import robustness_curriculum_cfg
from locolab.envs.mdp.rewards import FINE_TRACKING_TERMS, TRACKING_TERMS, TROT_GAIT_TERM, fine_tracking, trot_gait
from locolab.envs.observation_noise import set_noise_free_envs
from locolab.envs.physics_settings import set_physics

from .go2_velocity_env_cfg import (
    LocoLabGo2FlatEnvCfg,
    LocoLabGo2FlatEnvCfg_PLAY,
    LocoLabGo2RoughEnvCfg,
    LocoLabGo2RoughEnvCfg_PLAY,
)

CPU_NUM_ENVS = 512
"""256 robots per simulation process: one process's throughput doubles from 64 to 256 and then saturates."""
CPU_SIM_PROCESSES = 2
"""One simulation process per core (each steps its worlds on one thread)."""
CPU_PHYSICS = {"num_substeps": 1, "dt": 0.005, "decimation": 4, "integrator": "euler", "solver_iterations": 100}
"""One 5 ms step per physics step instead of two 2.5 ms substeps (1.6-1.9x the steps/s; 10 ms steps walked worse in
play's physics), Euler with 100 solver iterations; the policy still acts every 20 ms."""
TRACKING_REWARD_SCALE = 2.0
"""The stock tracking weights, doubled: at 512 robots the stock weights left runs standing."""
FINE_TRACKING = {"weights": (2.0, 1.0), "std": 0.25}
"""Narrow tracking kernels (linear, yaw) beside the stock ones: they pay for the last 0.1-0.2 m/s of error."""
ROUGH_FINE_LIN_VEL_STD = 0.15
"""The rough tasks' narrow linear kernel [m/s]: on 5 cm cells blind PPO overshot 0.5 m/s on flat ground by 0.1 m/s
with 0.25 (docs/measurements/rough_terrain.md, seventeenth session)."""
TROT_GAIT = {"weight": 2.0, "std": 0.01}
"""Isaac Lab's gait reward on the diagonal feet, with a kernel for the Go2's short steps."""
TURN_IN_PLACE_ENVS = 0.2
"""Share of command resamples that ask for turning in place, which Isaac Lab's heading commands almost never do."""
NOISE_FREE_OBSERVATION_ENVS = 0.25
"""Share of robots whose observations carry no noise, so that the closed loop the robot ships with is trained."""
CPU_TERRAIN = {"num_rows": 10, "num_cols": 10, "border_width": 2.0}
"""The terrain grid on a CPU: 10 difficulty levels by 10 tiles of 8 m, the stock sub-terrains in their stock shares (two
columns each of stairs down, stairs up, boxes and noise, one each of slopes up and down). MuJoCo's C engine holds the
heightfield in one model per process (:data:`locolab.envs.mujoco_c.SHARED_MODEL_MIN_BYTES`): the stock 10 x 20 tiles
with a 20 m border in 5 cm cells are 9.6M heights, this grid 2.8M (a 256-robot process: 4.1 GB, 5.9 GB with a model
per world)."""
CPU_TERRAIN_CEILINGS = {"pyramid_stairs": ("step_height_range", 0.16),
                        "pyramid_stairs_inv": ("step_height_range", 0.16), "boxes": ("grid_height_range", 0.14)}
"""The hardest row's risers and box heights [m] (stock: 12 and 10 cm): on the stock ceilings the curriculum sat at its
ceiling, 43 % of the stairs-down robots in rows 7-9 (9-12 cm), while the gate's 10 cm tiles were crossed by half; with
these the levels peak inside the grid (docs/measurements/rough_terrain.md, sixth and eighth sessions)."""
OUT_OF_BOUNDS_BUFFER = 1.0
"""A robot this close to the grid's edge [m] ends its episode as a time-out (the small border has nothing beyond)."""
ROA_FINETUNE_DYNAMICS_CONCENTRATION = 0.5
"""The student's dynamics draws: Beta(0.5, 0.5) over the same ranges, so it meets the ranges' ends more often."""


@configclass
class CpuPhysicsCfg:
    """Mixin (listed before a Go2 task config): the CPU physics on MuJoCo's C engine, as training runs it."""

    def __post_init__(self):
        super().__post_init__()
        if isinstance(self.sim.physics, PresetCfg):  # a CPU runs Newton's default model: no backend to choose
            self.sim.physics = self.sim.physics.default
        set_physics(self, CPU_PHYSICS["num_substeps"], CPU_PHYSICS["dt"], CPU_PHYSICS["decimation"],
                    CPU_PHYSICS["integrator"], CPU_PHYSICS["solver_iterations"])
        self.skip_absent_passive_forces = True
        self.physics_engine = "mujoco_c"


@configclass
class CpuTrainingCfg(CpuPhysicsCfg):
    """Mixin: the CPU physics, robot count and processes, tracking rewards and the robustness curriculum (the
    randomised dynamics and pushes widen from the nominal robot as tracking improves)."""

    def __post_init__(self):
        super().__post_init__()
        self.scene.num_envs = CPU_NUM_ENVS
        self.sim_processes = CPU_SIM_PROCESSES
        for term in TRACKING_TERMS:
            getattr(self.rewards, term).weight *= TRACKING_REWARD_SCALE
        for (name, stock), weight in zip(FINE_TRACKING_TERMS.items(), FINE_TRACKING["weights"]):
            setattr(self.rewards, name, fine_tracking(getattr(self.rewards, stock), weight, FINE_TRACKING["std"]))
        self.curriculum.robustness = robustness_curriculum_cfg()


@configclass
class CpuTerrainCfg:
    """Mixin (listed before :class:`CpuTrainingCfg`): the CPU's terrain grid (:data:`CPU_TERRAIN`,
    :data:`CPU_TERRAIN_CEILINGS`), an end for robots that reach its edge, the narrower linear fine-tracking kernel
    (:data:`ROUGH_FINE_LIN_VEL_STD`), and one command per episode: with the stock resample at 10 s, a robot that stalls
    at a drop under its first command and walks down under its second is still promoted, and the first rough runs kept
    stalling at drops at 0.5 m/s (docs/measurements/rough_terrain.md); held for the episode, a stall costs the level."""

    def __post_init__(self):
        super().__post_init__()
        self.commands.base_velocity.resampling_time_range = (self.episode_length_s, self.episode_length_s)
        generator = self.scene.terrain.terrain_generator
        for name, value in CPU_TERRAIN.items():
            setattr(generator, name, value)
        for name, (field, ceiling) in CPU_TERRAIN_CEILINGS.items():
            sub_terrain = generator.sub_terrains[name]
            setattr(sub_terrain, field, (getattr(sub_terrain, field)[0], ceiling))
        self.terminations.terrain_out_of_bounds = DoneTerm(
            func=terrain_out_of_bounds, time_out=True,
            params={"asset_cfg": SceneEntityCfg("robot"), "distance_buffer": OUT_OF_BOUNDS_BUFFER})
        self.rewards.track_lin_vel_xy_fine.params["std"] = ROUGH_FINE_LIN_VEL_STD  # CpuTrainingCfg's term


@configclass
class TurnAndTrotCfg:
    """Mixin: a share of commands that ask to turn in place, and the trot gait reward (every agent)."""

    def __post_init__(self):
        super().__post_init__()
        self.commands.base_velocity.rel_turn_in_place_envs = TURN_IN_PLACE_ENVS
        setattr(self.rewards, TROT_GAIT_TERM, trot_gait(TROT_GAIT["weight"], TROT_GAIT["std"]))


@configclass
class NoiseFreeShareCfg:
    """Mixin: a share of the robots without observation noise (PPO and its GRU)."""

    def __post_init__(self):
        super().__post_init__()
        set_noise_free_envs(self, NOISE_FREE_OBSERVATION_ENVS)


@configclass
class StudentDynamicsCfg:
    """Mixin: the PPO-ROA student's arcsine dynamics draws."""

    def __post_init__(self):
        super().__post_init__()
        self.events.dynamics.params["ranges"].sample_concentration = ROA_FINETUNE_DYNAMICS_CONCENTRATION


@configclass
class LocoLabGo2FlatEnvCfg_CPU(NoiseFreeShareCfg, TurnAndTrotCfg, CpuTrainingCfg, LocoLabGo2FlatEnvCfg):
    """PPO's and the GRU's CPU training on flat ground."""


@configclass
class LocoLabGo2FlatSacEnvCfg_CPU(TurnAndTrotCfg, CpuTrainingCfg, LocoLabGo2FlatEnvCfg):
    """SAC's CPU training on flat ground."""


@configclass
class LocoLabGo2FlatRoaEnvCfg_CPU(TurnAndTrotCfg, CpuTrainingCfg, LocoLabGo2FlatEnvCfg):
    """The PPO-ROA teacher's CPU training on flat ground."""


@configclass
class LocoLabGo2FlatRoaFinetuneEnvCfg_CPU(StudentDynamicsCfg, LocoLabGo2FlatRoaEnvCfg_CPU):
    """The PPO-ROA student's CPU finetuning on flat ground."""


@configclass
class LocoLabGo2FlatEnvCfg_CPU_PLAY(CpuPhysicsCfg, LocoLabGo2FlatEnvCfg_PLAY):
    """Playback in the CPU training's physics (periodic evaluation's view); play.py keeps the stock -Play."""


@configclass
class LocoLabGo2RoughEnvCfg_CPU(NoiseFreeShareCfg, TurnAndTrotCfg, CpuTerrainCfg, CpuTrainingCfg,
                                LocoLabGo2RoughEnvCfg):
    """PPO's and the GRU's CPU training on rough terrain."""


@configclass
class LocoLabGo2RoughSacEnvCfg_CPU(TurnAndTrotCfg, CpuTerrainCfg, CpuTrainingCfg, LocoLabGo2RoughEnvCfg):
    """SAC's CPU training on rough terrain."""


@configclass
class LocoLabGo2RoughRoaEnvCfg_CPU(TurnAndTrotCfg, CpuTerrainCfg, CpuTrainingCfg, LocoLabGo2RoughEnvCfg):
    """The PPO-ROA teacher's CPU training on rough terrain."""


@configclass
class LocoLabGo2RoughRoaFinetuneEnvCfg_CPU(StudentDynamicsCfg, LocoLabGo2RoughRoaEnvCfg_CPU):
    """The PPO-ROA student's CPU finetuning on rough terrain."""


@configclass
class LocoLabGo2RoughEnvCfg_CPU_PLAY(CpuPhysicsCfg, LocoLabGo2RoughEnvCfg_PLAY):
    """Playback in the CPU training's physics on rough terrain."""
