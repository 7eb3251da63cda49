"""Warp twin of LocoLab's randomised dynamics event (:class:`locolab.envs.mdp.dynamics.randomize_dynamics`).

Isaac Lab's Warp event manager calls reset terms as ``func(env, env_mask)`` (a boolean mask over the environments,
never index lists) and draws from ``env.rng_state_wp``, one Warp generator per environment. This twin draws the
masked environments' table in one launch (uniform, or Beta(c, c) by Jöhnk's method for ``sample_concentration``
c != 1) and maps it to the ranges in a second with the torch term's arithmetic (:func:`.dynamics.values_from_unit`).
The values then reach the physics through the torch term's own :meth:`~randomize_dynamics.apply`: the articulation's
index-based setters, Newton's actuator parameters and ``add_model_change``, as Isaac Lab's own Warp CoM event does
(``isaaclab_experimental.envs.mdp.randomize_rigid_body_com``); so, like that one, it is not CUDA-graph capturable
(``_warp_capturable = False``: the event manager then runs uncaptured; observations, rewards, terminations and
actions stay captured). ``tests/test_warp_twins.py`` holds it to the torch term: the same values from the same draws,
the same law of draws, the masked rows alone changed.
"""

from __future__ import annotations

import torch
import warp as wp
from isaaclab_experimental.managers import ManagerTermBase as WarpManagerTermBase

from .dynamics import DynamicsRandomizationCfg
from .dynamics import randomize_dynamics as TorchRandomizeDynamics

MAX_BETA_TRIES = wp.constant(1000)
"""Jöhnk's method keeps a pair with probability Γ(c+1)² / Γ(2c+1): 0.5 at c = 1, 0.79 at c = 0.5, 0.05 at c = 3;
past this many rejections the last candidate is taken (at c = 3 once in 1e22 draws)."""


@wp.kernel
def _unit_draws_kernel(env_mask: wp.array(dtype=wp.bool), rng_state: wp.array(dtype=wp.uint32),
                       concentration: float, unit: wp.array(dtype=wp.float32, ndim=2)):
    env = wp.tid()
    if not env_mask[env]:
        return
    state = rng_state[env]
    for column in range(unit.shape[1]):
        value = float(0.0)
        if concentration == 1.0:
            value = wp.randf(state)
        else:
            # Jöhnk: X = U^(1/c), Y = V^(1/c), kept when X + Y <= 1; X / (X + Y) ~ Beta(c, c). In logs: no underflow.
            for _ in range(MAX_BETA_TRIES):
                log_x = wp.log(wp.max(wp.randf(state), 1.0e-30)) / concentration
                log_y = wp.log(wp.max(wp.randf(state), 1.0e-30)) / concentration
                top = wp.max(log_x, log_y)
                x = wp.exp(log_x - top)
                total = x + wp.exp(log_y - top)
                value = x / total
                if wp.log(total) + top <= 0.0:
                    break
        unit[env, column] = value
    rng_state[env] = state


@wp.kernel
def _values_from_unit_kernel(env_mask: wp.array(dtype=wp.bool), unit: wp.array(dtype=wp.float32, ndim=2),
                             low: wp.array(dtype=wp.float32), high: wp.array(dtype=wp.float32),
                             integer: wp.array(dtype=wp.bool), range_scale: float,
                             values: wp.array(dtype=wp.float32, ndim=2)):
    env, column = wp.tid()
    if not env_mask[env]:
        return
    lo = low[column]
    hi = high[column]
    widen = wp.where(integer[column], 0.5, 0.0)
    sample = lo - widen + (hi - lo + 2.0 * widen) * unit[env, column]
    middle = (lo + hi) / 2.0
    value = middle + range_scale * (sample - middle)
    if integer[column]:
        value = wp.rint(value)  # half to even, as torch.round
    values[env, column] = wp.min(wp.max(value, lo), hi)


class randomize_dynamics(TorchRandomizeDynamics, WarpManagerTermBase):  # noqa: N801  (as Isaac Lab names terms)
    """The dynamics event on Isaac Lab's Warp event manager: mask in, draws from the environments' Warp generators,
    values written by the torch term's :meth:`apply` (so :attr:`values`, :meth:`normalized`, :meth:`fix`,
    :meth:`read_back` and the curriculum's :attr:`range_scale` are the torch term's)."""

    _warp_capturable = False
    """Applying goes through index-based setters and Newton's ``add_model_change`` (see the module's docstring)."""

    def __init__(self, cfg, env) -> None:
        super().__init__(cfg, env)
        rows, columns = self.values.shape
        self.unit = wp.zeros((rows, columns), dtype=wp.float32, device=str(self.device))
        """The last draws in [0, 1], one row per environment (the masked rows rewritten at each call)."""
        self.sampled = wp.zeros((rows, columns), dtype=wp.float32, device=str(self.device))
        """The values of :attr:`unit`, before :attr:`fixed` values replace some."""
        self._low, self._high = wp.from_torch(self.low.contiguous()), wp.from_torch(self.high.contiguous())
        self._integer_wp = wp.from_torch(self._integer.contiguous(), dtype=wp.bool)

    def __call__(self, env, env_mask: wp.array, asset_cfg, ranges: DynamicsRandomizationCfg) -> None:
        self.draw(env_mask, env.rng_state_wp)
        self.values_from_unit(env_mask)
        env_ids = torch.nonzero(wp.to_torch(env_mask), as_tuple=False).squeeze(-1).to(self.values.device)
        if len(env_ids) > 0:
            self.apply(env_ids, wp.to_torch(self.sampled)[env_ids])

    def draw(self, env_mask: wp.array, rng_state: wp.array) -> None:
        """Fresh draws in [0, 1] into the masked rows of :attr:`unit` (Beta(c, c), c: ``sample_concentration``)."""
        wp.launch(_unit_draws_kernel, dim=self.unit.shape[0], device=self.unit.device,
                  inputs=[env_mask, rng_state, float(self.concentration), self.unit])

    def values_from_unit(self, env_mask: wp.array) -> None:
        """The masked rows of :attr:`unit` mapped to the ranges into :attr:`sampled`:
        :func:`~locolab.envs.mdp.dynamics.values_from_unit`'s arithmetic, in Warp."""
        wp.launch(_values_from_unit_kernel, dim=self.unit.shape, device=self.unit.device,
                  inputs=[env_mask, self.unit, self._low, self._high, self._integer_wp, float(self.range_scale),
                          self.sampled])

    def reset(self, env_mask: wp.array | None = None) -> None:
        """Nothing to reset: the event itself runs at every reset."""
        return None
