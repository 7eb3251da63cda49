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
