"""Sim-to-sim check of an exported policy in MuJoCo's own C engine, through the deployment runtime.

    python scripts/sim2sim.py --policy logs/.../exported --seconds 10 --command 0.5 0 0 --friction 0.6 --payload 1.5
    python scripts/sim2sim.py --policy logs/.../exported --contact_time_constant 0.03   # softer ground
    python scripts/sim2sim.py --policy logs/.../exported --realism --command 0 0 1     # a real robot's effects
    python scripts/sim2sim.py --policy logs/.../exported --foot_condim 6 --latency_ms 20  # single effects
    python scripts/sim2sim.py --policy logs/.../exported --terrain stairs --step_height 0.1  # up, across, down, steered

Loads ``policy.onnx`` + ``policy.json`` with ``locolab.deploy.PolicyRuntime`` (numpy + onnxruntime), drives the
robot's generated MJCF with it at the policy's control period and a PD loop at the physics rate, and prints one JSON
line: velocity-tracking errors, distance travelled, falls and time upright. --video writes an MP4 (one frame per
control step; on a course, its first run). A fall restarts the robot standing.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import asdict
from pathlib import Path

from locolab.render import MujocoVideoRecorder  # first: it chooses a headless OpenGL backend before mujoco loads
from locolab.assets import ensure_robot_files
from locolab.deploy import PolicyRuntime
from locolab.eval.robot_effects import REALISTIC, RobotEffects, mjcf_timestep, with_overrides
from locolab.eval.sim2sim import run_sim2sim, sim2sim_course, sim2sim_walking
from locolab.eval.terrain_course import add_course_arguments, course_from_args


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--policy", required=True,
                        help="directory with policy.onnx and policy.json (scripts/export.py)")
    parser.add_argument("--seconds", type=float, default=10.0, help="simulated time (default 10)")
    parser.add_argument("--command", type=float, nargs=3, default=(0.5, 0.0, 0.0), metavar=("VX", "VY", "WZ"),
                        help="velocity command: m/s, m/s, rad/s (default 0.5 0 0)")
    parser.add_argument("--friction", type=float, default=None, help="friction of every contact (default: MJCF's)")
    parser.add_argument("--payload", type=float, default=0.0, help="mass added to the base [kg] (default 0)")
    parser.add_argument("--contact_time_constant", type=float, default=None,
                        help="MuJoCo solref time constant of every contact [s]: larger is softer ground (default: "
                             "the MJCF's, MuJoCo's 0.02; at least two physics steps, 0.01)")
    parser.add_argument("--realism", action="store_true",
                        help="every sim-to-real effect at a realistic value (locolab.eval.robot_effects.REALISTIC); "
                             "the options below override single ones")
    effects = parser.add_argument_group("sim-to-real effects (default: none, the MJCF as written)")
    effects.add_argument("--foot_condim", type=int, help="MuJoCo condim of the feet: 6 adds torsional and rolling "
                                                         "friction (default 3)")
    effects.add_argument("--foot_torsional_friction", type=float, help="the feet's torsional friction [m]")
    effects.add_argument("--foot_rolling_friction", type=float, help="the feet's rolling friction [m]")
    effects.add_argument("--joint_damping", type=float, help="viscous damping of every joint [N m s/rad]")
    effects.add_argument("--joint_friction", type=float, help="Coulomb friction loss of every joint [N m]")
    effects.add_argument("--latency_ms", type=float, help="delay of the targets [ms], whole physics steps (5 ms)")
    effects.add_argument("--motor_torque_speed", action="store_const", const=True,
                         help="the DC motors' torque falls to zero at the joints' velocity limits")
    effects.add_argument("--gyro_bias", type=float, help="offset of each gyroscope axis [rad/s]")
    effects.add_argument("--gyro_noise", type=float, help="gyroscope white noise, standard deviation [rad/s]")
    parser.add_argument("--walking_checks", action="store_true",
                        help="run the walking checks (forward 0.5 m/s, turn 1 rad/s, stand; --seconds each) instead "
                             "of one command; exit status 1 when one fails")
    add_course_arguments(parser)
    parser.add_argument("--video", default=None, help="write an MP4 of the run here")
    return parser.parse_args(argv)


def _finite_or_none(value):
    return None if isinstance(value, float) and not math.isfinite(value) else value


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    numbers = [args.seconds, args.payload, *args.command] + [
        value for value in (args.friction, args.contact_time_constant) if value is not None]
    if not all(math.isfinite(value) for value in numbers):
        print("error: --seconds, --command, --friction, --payload and --contact_time_constant take finite numbers.",
              file=sys.stderr)
        return 2
    if args.seconds <= 0 or (args.friction is not None and args.friction <= 0) or args.payload < 0:
        print("error: --seconds and --friction must be positive and --payload at least 0.", file=sys.stderr)
        return 2
    mjcf = ensure_robot_files().mjcf
    recorder = None
    try:
        course = course_from_args(args)
        if args.video:
            period = PolicyRuntime(args.policy).metadata["control_period_s"]
            recorder = MujocoVideoRecorder(mjcf, fps=1.0 / period, ground=course)
        effects = with_overrides(REALISTIC if args.realism else RobotEffects(),
                                 **{name: getattr(args, name) for name in RobotEffects.__dataclass_fields__})
        effects.check(mjcf_timestep(mjcf))  # before the policy loads: a bad value is the first error
        if course is not None:
            passed, runs = sim2sim_course(args.policy, mjcf, course, args.seconds, effects, recorder=recorder,
                                          hold_course_heading=args.hold_course_heading)
            report, status = {"passed": passed, "runs": runs, "effects": effects.as_dict()}, int(not passed)
        elif args.walking_checks:
            passed, results = sim2sim_walking(args.policy, mjcf, args.seconds, effects)
            report, status = {"passed": passed, "checks": results, "effects": effects.as_dict()}, int(not passed)
        else:
            result = run_sim2sim(args.policy, mjcf, args.seconds, tuple(args.command), args.friction, args.payload,
                                 recorder, contact_time_constant=args.contact_time_constant, effects=effects)
            report, status = {key: _finite_or_none(value) for key, value in asdict(result).items()}, 0
            report["policy"] = str(Path(args.policy).resolve())
    except (FileNotFoundError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    report["video"] = None
    if recorder is not None:
        report["video"] = str(recorder.save(Path(args.video).resolve()))
        recorder.close()
    print(json.dumps(report))
    return status


if __name__ == "__main__":
    sys.exit(main())
