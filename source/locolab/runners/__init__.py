"""Runners: rsl_rl's OnPolicyRunner with atomic checkpoints, exact resume and graceful interruption."""

from .checkpoints import (
    POLICY_MODULES,
    CheckpointError,
    checkpoint_policy,
    latest_checkpoint,
    read_checkpoint,
    resolve_checkpoint,
    save_atomically,
    trained_agent,
)
from .build import build_runner, load_policy
from .on_policy_runner import LocoLabOnPolicyRunner, TrainingInterrupted
