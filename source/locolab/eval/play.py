"""Playing a trained policy headless: what ``scripts/play.py`` runs and the walking checks call (in a process of their
own, :mod:`locolab.eval.walking`), so both read the same summary.

The policy's mean action runs under ``torch.inference_mode`` through :func:`locolab.eval.evaluate.evaluate_policy`;
env 0 can be drawn to an MP4 by MuJoCo's offscreen renderer (:mod:`locolab.render`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from locolab.assets import ensure_robot_files
from locolab.envs import fix_velocity_command, keep_observation_noise, noisy_observation_terms, parse_velocity_command
from locolab.envs.mdp import hold_dynamics, parse_held_dynamics, read_back_held
from locolab.envs.metrics import DYNAMICS_METRICS
from locolab.envs.terrain import flat_ground as use_flat_ground

from .evaluate import evaluate_policy, play_summary
from .policy import open_policy


def play(task: str, checkpoint: str | Path | None = None, run: str | Path | None = None, device: str | None = None,
         policy: str | None = None, num_envs: int | None = None, steps: int = 500, seed: int | None = None,
         video_length: int | None = None, video_path: str | Path | None = None, dynamics: list[str] = (),
         observation_noise: bool = False, command: list[str] | None = None, flat_ground: bool = False,
         echo: Callable[[str], None] | None = print) -> dict:
    """Play ``checkpoint`` (or ``run``'s latest) on ``task``'s ``-Play`` variant for ``steps`` steps (at least
    ``video_length`` when a video is recorded) and return the summary; ``echo`` receives the progress and episode
    lines (None: silent); ``flat_ground`` plays a rough task on a plane. A ValueError, CheckpointError or
    MissingAssetError says what cannot be played."""
    if video_length is not None and video_path is not None:
        check_video_path(Path(video_path))
    if video_length is not None:
        # chooses MUJOCO_GL (osmesa/egl); must precede the environment, whose physics imports mujoco
        from locolab.render import MujocoVideoRecorder, newton_terrain
        from isaaclab_newton.physics.newton_manager import NewtonManager  # noqa: I001  (after MUJOCO_GL is chosen)
    echo = echo or (lambda line: None)
    fixed = parse_velocity_command(command) if command is not None else None
    held = parse_held_dynamics(dynamics)

    def configure(env_cfg) -> None:
        if fixed is not None:
            fix_velocity_command(env_cfg, fixed)
        if observation_noise:
            keep_observation_noise(env_cfg)
        if flat_ground:
            use_flat_ground(env_cfg)

    total_steps = max(steps, video_length) if video_length is not None else steps
    with open_policy(checkpoint or run, task, device, requested=policy, num_envs=num_envs, seed=seed,
                     configure=configure, latest_of_run=run is not None) as opened:
        if opened.task != task:
            echo(f"[LocoLab] Playing {opened.task} (the play variant of {task})")
        unwrapped = opened.env.unwrapped
        num_envs = unwrapped.num_envs
        if held:
            hold_dynamics(unwrapped, held)  # a value the simulator cannot take is a ValueError
        iteration = opened.saved["iter"]
        if video_length is not None:
            video_path = Path(video_path or opened.checkpoint.parent / "videos" / f"play_{iteration}.mp4").resolve()
        echo(f"[LocoLab] Playing {opened.checkpoint} (iteration {iteration}, {opened.agent} {opened.policy_name}) on "
             f"{opened.task}, {opened.agent_cfg.device}, {num_envs} envs, {total_steps} steps")
        capture = None
        if video_length is not None:
            recorder = MujocoVideoRecorder(ensure_robot_files().mjcf, fps=1.0 / unwrapped.step_dt,
                                           ground=newton_terrain(NewtonManager.get_model()))

            def capture() -> None:
                if len(recorder.frames) < video_length:
                    recorder.capture(unwrapped, env_id=0)
                    if len(recorder.frames) == video_length:
                        recorder.save(video_path)
                        recorder.close()
                        echo(f"[LocoLab] Video: {video_path} ({video_length} frames)")

        evaluation = evaluate_policy(opened.runner.env, opened.policy, total_steps, alg=opened.runner.alg,
                                     log_episodes=True, record_steps=True, before_step=capture)
        noisy_observations = noisy_observation_terms(opened.env)
        held_in_solver = read_back_held(unwrapped, held) if held else {}  # the physics', not what was written
    for number, episode in enumerate(evaluation.episodes(), start=1):
        echo(episode_line(number, episode))
    summary = play_summary(evaluation, total_steps)
    summary.update({
        "command": list(fixed) if fixed is not None else None,
        "dynamics": held,
        "dynamics_read_back": held_in_solver,
        "noisy_observations": noisy_observations,
        "num_envs": num_envs,
        "task": opened.task,
        "agent": opened.agent,
        "policy": opened.policy_name,
        "checkpoint": str(opened.checkpoint),
        "video": str(video_path) if video_length is not None else None,
    })
    return summary


def check_video_path(path: Path) -> None:
    """A ValueError unless ``path`` names a new or existing ``.mp4`` file in a folder that exists: a mistyped folder is
    a one-line error before anything is built, never a tree of folders created wherever the path points."""
    if path.is_dir():
        raise ValueError(f"--video_path '{path}' is a folder: name the .mp4 file to write in it.")
    if path.suffix.lower() != ".mp4":
        raise ValueError(f"--video_path '{path}' must name an .mp4 file.")
    if not path.parent.is_dir():
        raise ValueError(f"--video_path's folder '{path.parent}' does not exist: create it first, or leave "
                         "--video_path out to write into the checkpoint's videos/ folder.")


def episode_line(number: int, episode: dict) -> str:
    """One episode in words: length, return, tracking errors, how it ended and the dynamics its robot had."""
    end = "cut" if episode["cut"] else "fall" if episode["fall"] else "time_out" if episode["time_out"] \
        else "terminated"
    robot = "".join(f", {name} {episode[name]:.3f}" for name in DYNAMICS_METRICS if name in episode)
    return (f"[LocoLab] episode {number} (env {int(episode['env'])}): {int(episode['length'])} steps, return "
            f"{episode['return']:.3f}, lin_vel_error {episode['lin_vel_error']:.3f} m/s, ang_vel_error "
            f"{episode['ang_vel_error']:.3f} rad/s, end: {end}{robot}")
