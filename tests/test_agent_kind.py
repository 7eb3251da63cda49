"""One way to tell what an agent is: its config's class names. Checkpoints carry the agent config they trained with;
older checkpoints, which do not, still load."""

from __future__ import annotations

import pytest
import torch

from conftest import last_json, run_script

from locolab.envs import load_task_cfgs
from locolab.envs.symmetry import compute_symmetric_states
from locolab.runners.agent_kind import agent_kind
from locolab.runners.checkpoints import AGENT_CFG_KEY, read_checkpoint, restore_agent_cfg, trained_agent
from locolab.tasks import AGENT_ENTRY_POINTS, cpu_variant

TASK = "LocoLab-Velocity-Flat-Go2"


@pytest.mark.parametrize(("agent", "phase"), list(AGENT_ENTRY_POINTS))
def test_every_registered_agent_config_says_which_agent_it_is(agent, phase):
    for task in (TASK, cpu_variant(TASK, agent, phase)):
        _, agent_cfg = load_task_cfgs(task, AGENT_ENTRY_POINTS[(agent, phase)], device="cpu")
        assert agent_kind(agent_cfg) == agent_kind(agent_cfg.to_dict()) == (agent, phase)


def test_an_algorithm_locolab_does_not_train_is_a_clear_error():
    with pytest.raises(ValueError, match="algorithm 'Distillation' is not one LocoLab trains"):
        agent_kind({"algorithm": {"class_name": "Distillation"}, "actor": {}})


def test_a_checkpoint_is_judged_by_the_agent_config_it_carries_before_its_entries():
    _, rnn = load_task_cfgs(TASK, AGENT_ENTRY_POINTS[("ppo_rnn", "train")], device="cpu")
    assert trained_agent({AGENT_CFG_KEY: rnn.to_dict(), "actor_state_dict": {}}) == ("ppo_rnn", "train")
    # checkpoints written before they carried it: SAC's and PPO-ROA's entries, an RNN's weights
    assert trained_agent({"sac": {}}) == ("sac", "train")
    assert trained_agent({"roa": {"phase": "finetune"}}) == ("roa", "finetune")
    assert trained_agent({"actor_state_dict": {"rnn.rnn.weight_hh_l0": torch.zeros(3, 1)}}) == ("ppo_rnn", "train")
    assert trained_agent({"actor_state_dict": {"mlp.0.weight": torch.zeros(3, 1)}}) == ("ppo", "train")


@pytest.mark.parametrize(("agent", "phase"), [("sac", "train"), ("ppo_rnn", "train"), ("roa", "finetune")])
def test_a_registered_config_takes_the_settings_a_checkpoint_trained_with(agent, phase):
    entry = AGENT_ENTRY_POINTS[(agent, phase)]
    _, trained = load_task_cfgs(cpu_variant(TASK, agent, phase), entry, device="cpu")
    trained.seed = 7
    if agent == "ppo_rnn":
        trained.actor.rnn_type, trained.actor.rnn_hidden_dim = "lstm", 32
    _, played = load_task_cfgs(TASK, entry, device="cpu")  # play and export load the task's GPU config
    assert played.to_dict() != trained.to_dict()
    restore_agent_cfg(played, {AGENT_CFG_KEY: trained.to_dict()})
    assert played.seed == 7 and played.max_iterations == trained.max_iterations
    assert played.actor.hidden_dims == trained.actor.hidden_dims
    if agent == "sac":
        assert played.critic.layer_norm and played.critic.hidden_dims == [256, 256]
    if agent == "ppo_rnn":
        assert (played.actor.rnn_type, played.actor.rnn_hidden_dim) == ("lstm", 32)
    if agent == "roa":
        assert played.algorithm.learning_rate == trained.algorithm.learning_rate and played.algorithm.phase == phase


def test_a_function_a_checkpoint_names_is_never_imported_the_config_keeps_its_own():
    """Untrusted files: a checkpoint's config names functions as module paths; restoring it must not import them."""
    _, trained = load_task_cfgs(cpu_variant(TASK, "ppo", "train"), device="cpu")
    saved = trained.to_dict()
    saved["algorithm"]["symmetry_cfg"]["data_augmentation_func"] = "os:system"
    _, played = load_task_cfgs(cpu_variant(TASK, "ppo", "train"), device="cpu")
    restore_agent_cfg(played, {AGENT_CFG_KEY: saved})
    assert played.algorithm.symmetry_cfg.data_augmentation_func is compute_symmetric_states


def test_the_device_stays_the_callers():
    _, trained = load_task_cfgs(TASK, device="cpu")
    trained.device = "cuda:3"
    _, played = load_task_cfgs(TASK, device="cpu")
    restore_agent_cfg(played, {AGENT_CFG_KEY: trained.to_dict()})
    assert played.device == "cpu"


@pytest.mark.slow
def test_a_training_checkpoint_carries_its_agent_config_as_plain_data(trained_run):
    path = trained_run / "model_2.pt"
    saved = torch.load(path, weights_only=True, map_location="cpu")  # nothing but data in it
    assert saved[AGENT_CFG_KEY]["algorithm"]["class_name"] == "PPO"
    assert saved[AGENT_CFG_KEY]["num_steps_per_env"] == 24  # the CPU agent's
    assert trained_agent(read_checkpoint(path)) == ("ppo", "train")


@pytest.mark.slow
def test_a_checkpoint_written_before_checkpoints_carried_their_agent_config_still_exports(trained_run, tmp_path):
    saved = read_checkpoint(trained_run / "model_2.pt")
    del saved[AGENT_CFG_KEY]
    old = tmp_path / "model_2.pt"
    torch.save(saved, old)
    result = run_script("export.py", "--checkpoint", str(old), "--steps", "10", "--num_envs", "2")
    assert result.returncode == 0, result.stderr[-3000:]
    summary = last_json(result.stdout)
    assert summary["agent"] == "ppo" and summary["max_abs_diff"] <= 1e-5
