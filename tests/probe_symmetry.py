"""Builds a task and checks its mirror maps (locolab.envs.symmetry) on real observations; prints one JSON line."""

from __future__ import annotations

import argparse
import json

import torch


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--task", required=True)
    args = parser.parse_args()

    from locolab.envs import ProprioHistoryWrapper, load_task_cfgs, open_env
    from locolab.envs.mdp import parameter_names
    from locolab.envs.symmetry import compute_symmetric_states, mirror_maps
    from isaaclab_rl.rsl_rl import RslRlVecEnvWrapper

    env_cfg, _ = load_task_cfgs(args.task, num_envs=4, device="cpu", seed=0)
    with open_env(args.task, env_cfg) as env, torch.inference_mode():
        vec = ProprioHistoryWrapper(RslRlVecEnvWrapper(env), length=3)
        for _ in range(5):
            obs, _, _, _ = vec.step(2 * torch.rand(4, vec.num_actions) - 1)
        maps = mirror_maps(vec)
        unwrapped = env.unwrapped
        manager = unwrapped.observation_manager
        report = {"groups": {}}
        for group, (perm, sign) in maps.groups.items():
            width = obs[group].shape[-1]
            twice = obs[group][..., perm][..., perm] * sign[perm] * sign
            report["groups"][group] = {
                "involution": bool(torch.equal(twice, obs[group])),
                "covers_every_column": sorted(perm.tolist()) == list(range(width)),
            }
        actions = torch.rand(4, vec.num_actions)
        _, doubled = compute_symmetric_states(vec, obs=None, actions=actions)
        _, back = compute_symmetric_states(vec, obs=None, actions=doubled[4:])
        report["actions_involution"] = bool(torch.equal(back[4:], actions))

        def term_signs(group: str) -> dict:
            signs, start = {}, 0
            for term, shape in zip(manager.active_terms[group], manager.group_obs_term_dim[group]):
                size = int(torch.Size(shape).numel())
                signs[term] = maps.groups[group][1][start:start + size].tolist()
                signs[f"{term}/perm"] = (maps.groups[group][0][start:start + size] - start).tolist()
                signs[f"{term}/start"] = start
                start += size
            return signs

        policy, critic, priv = term_signs("policy"), term_signs("critic"), term_signs("priv")
        report["policy_terms"] = {t: policy[t] for t in ("base_ang_vel", "projected_gravity", "velocity_commands")}
        report["critic_base_lin_vel"] = critic["base_lin_vel"]
        names = parameter_names(list(unwrapped.scene["robot"].joint_names))
        report["dynamics_com_y_sign"] = priv["dynamics"][names.index("base_com_y")]
        report["dynamics_friction_sign"] = priv["dynamics"][names.index("friction")]
        swap = {}
        for joint in ("FL_hip_joint", "RR_calf_joint"):
            index = names.index(f"motor_strength/{joint}")
            swap[joint] = names[priv["dynamics/perm"][index]].split("/", 1)[1]
        report["motor_strength_swap"] = swap
        feet_cfg = manager._group_obs_term_cfgs["priv"][manager.active_terms["priv"].index("feet_contact")]
        sensor = unwrapped.scene.sensors[feet_cfg.params["sensor_cfg"].name]
        feet = [sensor.body_names[i] for i in feet_cfg.params["sensor_cfg"].body_ids]
        report["feet_swap"] = {foot: feet[priv["feet_contact/perm"][feet.index(foot)]]
                               for foot in ("FL_foot", "RL_foot")}
        mirrored = maps.mirror_observations(obs)
        report["history_mirrors_like_policy"] = bool(torch.equal(mirrored["history"][:, -1], mirrored["policy"]))
        if "height_scan" in critic:
            perm = critic["height_scan/perm"]
            pattern = unwrapped.scene.sensors["height_scanner"].cfg.pattern_cfg
            num_x = round(pattern.size[0] / pattern.resolution) + 1
            grid = torch.arange(len(perm)).view(-1, num_x)
            report["height_scan_rows_flipped"] = perm == grid.flip(0).flatten().tolist()
        print(json.dumps(report))


if __name__ == "__main__":
    main()
