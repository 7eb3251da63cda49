"""Offscreen MuJoCo video of one simulated environment, rendered on the CPU.

Isaac Lab's cameras and viewport recorders need Omniverse Kit and an RTX GPU; LocoLab runs kit-less (Newton
physics), often on machines without either. LocoLab already generates an MJCF of the very robot it simulates
(:func:`locolab.assets.ensure_robot_files`), so a video is made by copying one environment's state (base pose
and joint angles) into that MJCF each step and drawing it with MuJoCo's offscreen renderer (OSMesa on a CPU,
EGL on a GPU machine). No physics runs in MuJoCo: it only draws the pose Isaac Lab computed.

The ground is the MJCF's flat floor, the simulation's rough terrain (the robot then drawn where it stands in the
world) or a sim-to-sim course (:mod:`locolab.render.terrain`); the robot is drawn with the MJCF's simple shapes.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path


def _cuda_available() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except Exception:  # noqa: BLE001  (no torch or a broken driver: treat as no GPU)
        return False


def configure_mujoco_gl() -> str:
    """Pick MuJoCo's OpenGL backend from ``MUJOCO_GL``: ``osmesa`` (software) without CUDA, else ``egl``.

    MuJoCo reads ``MUJOCO_GL`` once, when ``mujoco`` is first imported, and its default (GLFW) needs a display.
    Newton imports ``mujoco`` when an environment is built, so this must run before that: it runs when this module
    is imported, and scripts import :mod:`locolab.render` before building environments. A value the user set wins.
    """
    if not os.environ.get("MUJOCO_GL"):
        if "mujoco" in sys.modules:
            warnings.warn(
                "mujoco was imported before locolab.render chose a headless OpenGL backend; offscreen rendering may "
                "need a display. Import locolab.render first, or set MUJOCO_GL=osmesa (or egl).",
                RuntimeWarning,
                stacklevel=2,
            )
        os.environ["MUJOCO_GL"] = "egl" if _cuda_available() else "osmesa"
    return os.environ["MUJOCO_GL"]


MUJOCO_GL = configure_mujoco_gl()
"""The backend in effect for this process."""

import imageio.v2 as imageio  # noqa: E402
import mujoco  # noqa: E402  (after MUJOCO_GL is set)
import numpy as np  # noqa: E402

from .terrain import TerrainHeights, model_with_ground  # noqa: E402


class MujocoVideoRecorder:
    """Draws one environment of an Isaac Lab articulation with MuJoCo and collects the frames into an MP4.

    Usage::

        recorder = MujocoVideoRecorder(ensure_robot_files().mjcf, fps=1 / env.unwrapped.step_dt)
        recorder.capture(env.unwrapped, env_id=0)   # once per step
        recorder.save("play.mp4")
    """

    def __init__(
        self,
        mjcf: str | os.PathLike,
        width: int = 640,
        height: int = 480,
        fps: float = 50.0,
        asset_name: str = "robot",
        base_body: str = "base",
        distance: float = 1.6,
        azimuth: float = 135.0,
        elevation: float = -20.0,
        ground=None,
    ) -> None:
        """Load the MJCF and an offscreen renderer.

        Args:
            mjcf: The robot's MJCF (free joint on ``base_body``, hinge joints named like the Isaac Lab joints).
            width, height: Frame size in pixels (multiples of 16 keep the MP4 encoder from resizing).
            fps: Frame rate of the written video; one frame per environment step gives real time at ``1/step_dt``.
            asset_name: The articulation's name in the Isaac Lab scene.
            base_body: The MJCF body the tracking camera follows.
            distance, azimuth, elevation: Camera placement relative to the tracked body [m, deg, deg].
            ground: What to draw instead of the flat floor: a :class:`~locolab.render.terrain.TerrainHeights` (the
                robot is then posed in world coordinates, on it) or anything else with ``add_to(spec)`` (a
                sim-to-sim :class:`~locolab.eval.terrain_course.TerrainCourse`).
        """
        self.world_frame = isinstance(ground, TerrainHeights)
        """Pose the robot at its world position (on the drawn terrain), not relative to its environment origin."""
        self.model = model_with_ground(mjcf, ground)
        self.model.vis.global_.offwidth = max(self.model.vis.global_.offwidth, width)
        self.model.vis.global_.offheight = max(self.model.vis.global_.offheight, height)
        self.data = mujoco.MjData(self.model)
        self.fps = fps
        self.asset_name = asset_name
        self.frames: list[np.ndarray] = []
        self._joint_map: tuple[np.ndarray, np.ndarray] | None = None

        free = [j for j in range(self.model.njnt) if self.model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE]
        if len(free) != 1:
            raise ValueError(f"'{mjcf}' must have exactly one free joint, found {len(free)}.")
        self._free_qpos = int(self.model.jnt_qposadr[free[0]])

        base_id = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_BODY, base_body)
        if base_id < 0:
            raise ValueError(f"'{mjcf}' has no body '{base_body}' for the camera to follow.")
        self.camera = mujoco.MjvCamera()
        self.camera.type = mujoco.mjtCamera.mjCAMERA_TRACKING
        self.camera.trackbodyid = base_id
        self.camera.distance = distance
        self.camera.azimuth = azimuth
        self.camera.elevation = elevation
        self.renderer = mujoco.Renderer(self.model, height=height, width=width)

    # ----------------------------------------------------------------------------------------------------------------
    def _map_joints(self, joint_names: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Isaac Lab joint index -> MuJoCo qpos address, matched by joint name (the two orders need not agree)."""
        sim_idx, qpos_adr, missing = [], [], []
        for i, name in enumerate(joint_names):
            j = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_JOINT, name)
            if j < 0:
                missing.append(name)
                continue
            sim_idx.append(i)
            qpos_adr.append(int(self.model.jnt_qposadr[j]))
        if missing:
            raise ValueError(f"The MJCF has no joints named {missing}: it does not describe the simulated robot.")
        return np.asarray(sim_idx), np.asarray(qpos_adr)

    def set_state(
        self,
        base_pos: np.ndarray,
        base_quat_xyzw: np.ndarray,
        joint_pos: np.ndarray,
        joint_names: list[str],
    ) -> None:
        """Pose the MuJoCo model.

        Args:
            base_pos: Base position relative to the environment's origin (in the world on drawn terrain) [m], (3,).
            base_quat_xyzw: Base orientation as Isaac Lab 3 stores it, (x, y, z, w); MuJoCo wants (w, x, y, z).
            joint_pos: Joint angles in Isaac Lab's joint order, shape (num_joints,).
            joint_names: Isaac Lab's joint names, in that order.
        """
        if self._joint_map is None:
            self._joint_map = self._map_joints(list(joint_names))
        sim_idx, qpos_adr = self._joint_map
        qpos = self.data.qpos
        a = self._free_qpos
        qpos[a : a + 3] = base_pos
        x, y, z, w = (float(v) for v in base_quat_xyzw)
        qpos[a + 3 : a + 7] = (w, x, y, z)
        qpos[qpos_adr] = np.asarray(joint_pos)[sim_idx]
        self.data.qvel[:] = 0.0
        mujoco.mj_forward(self.model, self.data)

    def set_from_env(self, env, env_id: int = 0) -> None:
        """Pose the model from environment ``env_id`` of an Isaac Lab ``ManagerBasedRLEnv`` (or a wrapper of one)."""
        env = env.unwrapped
        robot = env.scene[self.asset_name]
        origin = 0.0 if self.world_frame else env.scene.env_origins[env_id]
        self.set_state(
            base_pos=(robot.data.root_pos_w.torch[env_id] - origin).detach().cpu().numpy(),
            base_quat_xyzw=robot.data.root_quat_w.torch[env_id].detach().cpu().numpy(),
            joint_pos=robot.data.joint_pos.torch[env_id].detach().cpu().numpy(),
            joint_names=robot.joint_names,
        )

    def render_qpos(self, qpos: np.ndarray) -> np.ndarray:
        """Render the pose ``qpos`` of a MuJoCo simulation of the same MJCF (sim-to-sim)."""
        self.data.qpos[:] = qpos
        mujoco.mj_forward(self.model, self.data)
        return self.render()

    def render(self) -> np.ndarray:
        """The current pose as an RGB image, shape (height, width, 3), uint8."""
        self.renderer.update_scene(self.data, camera=self.camera)
        return self.renderer.render().copy()

    def capture(self, env, env_id: int = 0) -> np.ndarray:
        """Pose from the environment, render, and keep the frame for :meth:`save`."""
        self.set_from_env(env, env_id)
        frame = self.render()
        self.frames.append(frame)
        return frame

    def save(self, path: str | os.PathLike) -> Path:
        """Write the collected frames as an H.264 MP4 (imageio + ffmpeg); creates the parent folder."""
        if not self.frames:
            raise ValueError("No frames were captured.")
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        with imageio.get_writer(str(path), fps=self.fps, codec="libx264", quality=7, macro_block_size=16) as writer:
            for frame in self.frames:
                writer.append_data(frame)
        return path

    def close(self) -> None:
        """Free the renderer's OpenGL context."""
        self.renderer.close()

    def __enter__(self) -> "MujocoVideoRecorder":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
