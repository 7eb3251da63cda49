"""Hydra-style overrides (env.<path>=value, agent.<path>=value): applied key by key, bad ones a one-line error."""

from __future__ import annotations

import pytest

from isaaclab.utils import configclass

from locolab.config_overrides import OverrideError, apply_overrides, parse_override


@configclass
class PushCfg:
    interval_s: tuple = (2.5, 3.5)
    params: dict = {"velocity_range": {"x": (-0.5, 0.5)}}


@configclass
class SceneCfg:
    num_envs: int = 4096
    env_spacing: float = 2.5


@configclass
class EnvCfg:
    scene: SceneCfg = SceneCfg()
    push_robot: PushCfg | None = PushCfg()
    debug: bool = False
    name: str = "flat"


@configclass
class AlgorithmCfg:
    learning_rate: float = 1.0e-3
    num_mini_batches: int = 4


@configclass
class AgentCfg:
    algorithm: AlgorithmCfg = AlgorithmCfg()
    hidden_dims: list = [128, 128]


def configs():
    return EnvCfg(), AgentCfg()


def test_values_are_parsed_with_hydra_grammar_and_set_in_the_value_type():
    env, agent = configs()
    applied = apply_overrides(env, agent, [
        "env.scene.num_envs=256", "agent.algorithm.learning_rate=3e-4", "env.scene.env_spacing=2",
        "agent.hidden_dims=[64,32]", "env.push_robot.interval_s=[10,15]", "env.debug=true", "env.name=rough",
        "env.push_robot.params.velocity_range={x:[-1,1]}",
    ])
    assert env.scene.num_envs == 256 and isinstance(env.scene.num_envs, int)
    assert agent.algorithm.learning_rate == pytest.approx(3e-4)
    assert env.scene.env_spacing == 2.0 and isinstance(env.scene.env_spacing, float)  # int widened to float
    assert agent.hidden_dims == [64, 32]
    assert env.push_robot.interval_s == (10, 15) and isinstance(env.push_robot.interval_s, tuple)
    assert env.debug is True and env.name == "rough"
    assert applied["env.scene.num_envs"] == 256


def test_null_disables_a_term_and_later_overrides_win():
    env, agent = configs()
    apply_overrides(env, agent, ["env.push_robot=null", "env.scene.num_envs=8", "env.scene.num_envs=16"])
    assert env.push_robot is None and env.scene.num_envs == 16


@pytest.mark.parametrize(("override", "message"), [
    ("env.scene.num_env=3", "unknown key 'env.scene.num_env'. Did you mean env.scene.num_envs?"),
    ("agent.algorithm.learning_rate=fast", "'agent.algorithm.learning_rate' takes a float"),
    ("env.scene.num_envs=1.5", "'env.scene.num_envs' takes a int"),
    ("env.debug=1", "'env.debug' takes a bool"),
    ("env.scene=3", "'env.scene' is a group of settings, not a value"),
    ("scene.num_envs=3", "a key starts with 'env.' or 'agent.'"),
    ("env.scene.num_envs", "has no '='"),
    ("env.scene.num_envs=[1,", "is not valid override syntax"),
    ("+env.scene.extra=1", "'+', '++' and '~' are not supported"),
])
def test_bad_overrides_are_errors_naming_the_key(override, message):
    env, agent = configs()
    with pytest.raises(OverrideError) as raised:
        apply_overrides(env, agent, [override])
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)  # one line


def test_a_disabled_term_has_no_fields_to_set():
    env, agent = configs()
    with pytest.raises(OverrideError, match="'env.push_robot' is None"):
        apply_overrides(env, agent, ["env.push_robot=null", "env.push_robot.interval_s=[1,2]"])


def test_parse_override_returns_key_and_typed_value():
    assert parse_override("agent.algorithm.learning_rate=1e-3") == ("agent.algorithm.learning_rate", 1e-3)
    assert parse_override("env.scene.num_envs=64") == ("env.scene.num_envs", 64)


VALID_OVERRIDES = ("env.scene.num_envs=8", "agent.algorithm.learning_rate=3e-4", "env.events.push_robot=null",
                   "env.commands.base_velocity.ranges.lin_vel_x=[-0.5,0.5]", "env.sim.physics.solver_cfg.iterations=3",
                   "env.events.dynamics.params.ranges.contact_time_constant=[0.01,0.02]")


def isaac_lab_resolved(task: str, overrides: list[str]):
    from isaaclab_tasks.utils import resolve_task_config

    import locolab.tasks  # noqa: F401  (registers the tasks)

    return resolve_task_config(task, "rsl_rl_cfg_entry_point", overrides=overrides)


def test_isaac_labs_own_override_path_and_locolabs_set_the_same_values_on_a_cpu_task():
    """The -CPU tasks are plain registered configs: Isaac Lab's Hydra path (what ``isaaclab train`` runs) applies the
    same overrides to them as train.py does, the CPU settings included."""
    from locolab.envs import load_task_cfgs

    task = "LocoLab-Velocity-Flat-Go2-CPU"
    stock_env, stock_agent = isaac_lab_resolved(task, list(VALID_OVERRIDES))
    env_cfg, agent_cfg = load_task_cfgs(task, device="cpu")
    apply_overrides(env_cfg, agent_cfg, VALID_OVERRIDES)
    for key in VALID_OVERRIDES:
        path = key.split("=")[0].split(".")
        ours, theirs = (env_cfg, agent_cfg)[path[0] == "agent"], (stock_env, stock_agent)[path[0] == "agent"]
        for name in path[1:]:
            ours, theirs = (ours[name], theirs[name]) if isinstance(ours, dict) else (getattr(ours, name),
                                                                                      getattr(theirs, name))
        assert ours == theirs or list(ours) == list(theirs), key
    assert stock_env.sim.physics.num_substeps == env_cfg.sim.physics.num_substeps == 1  # the CPU physics


def test_why_train_py_checks_overrides_itself_isaac_labs_path_accepts_a_mistyped_key_and_value():
    """Measured (Isaac Lab 3.0.0): its Hydra path sets an unknown key and a wrongly typed value without a word, to
    fail later inside the simulation or the algorithm; train.py refuses both before anything is built."""
    bad = ["env.scene.num_env=8", "agent.algorithm.learning_rate=fast"]
    stock_env, stock_agent = isaac_lab_resolved("LocoLab-Velocity-Flat-Go2-CPU", bad)
    assert stock_env.scene.num_env == 8 and stock_agent.algorithm.learning_rate == "fast"
    from locolab.envs import load_task_cfgs

    env_cfg, agent_cfg = load_task_cfgs("LocoLab-Velocity-Flat-Go2-CPU", device="cpu")
    for override in bad:
        with pytest.raises(OverrideError):
            apply_overrides(env_cfg, agent_cfg, [override])
