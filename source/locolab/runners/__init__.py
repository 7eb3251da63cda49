"""Runners: rsl_rl's OnPolicyRunner with atomic checkpoints, exact resume and graceful interruption.

The package re-exports only its light checkpoint functions: importing one runner module (a config, the rollout) must
not import every runner, which import the algorithms and their configs in turn. The runners themselves are in
:mod:`.build`, :mod:`.on_policy_runner` and :mod:`.off_policy_runner`.
"""

from .checkpoints import (
    POLICY_MODULES,
    CheckpointError,
    checkpoint_policy,
    latest_checkpoint,
    read_checkpoint,
    resolve_checkpoint,
    restore_agent_cfg,
    save_atomically,
    trained_agent,
)
