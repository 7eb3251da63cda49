"""Warm start (locolab.runners.warm_start): a network with more inputs and wider layers computes exactly the old
one's function from the old one's weights; a normaliser that grew restarts its statistics; what cannot fit is a
one-line error. The end-to-end start of a rough run from a flat one is in test_train.py (slow)."""

from __future__ import annotations

import pytest
import torch
from rsl_rl.modules import EmpiricalNormalization
from rsl_rl.modules.mlp import MLP

from locolab.runners.warm_start import WarmStartError, grown_state


class Critic(torch.nn.Module):
    """rsl_rl's layout: a normaliser, then an MLP."""

    def __init__(self, inputs: int, hidden: list[int]) -> None:
        super().__init__()
        self.obs_normalizer = EmpiricalNormalization(inputs)
        self.mlp = MLP(inputs, 1, hidden)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mlp(self.obs_normalizer(x))


def test_a_network_with_more_inputs_and_units_computes_the_old_function():
    torch.manual_seed(0)
    flat, rough = Critic(6, [16, 8]), Critic(6 + 5, [32, 8])  # 5 height-scan inputs, the first layer twice as wide
    flat.obs_normalizer.train()
    flat.obs_normalizer.update(torch.randn(4000, 6) * 3 + 1)
    state, grown = grown_state(flat.state_dict(), rough.state_dict(), "flat")
    rough.load_state_dict(state)
    assert {"mlp.0.weight", "mlp.0.bias", "mlp.2.weight", "obs_normalizer._mean"} <= set(grown)
    assert "mlp.4.weight" not in grown  # the output layer kept its shape: copied as it was
    x = torch.randn(64, 11)
    with torch.no_grad():
        # the old inputs normalised by the old statistics, the new inputs anything: the old output
        normalized = torch.cat([flat.obs_normalizer(x[:, :6]), 10 * torch.randn(64, 5)], dim=1)
        assert torch.allclose(rough.mlp(normalized), flat.mlp(flat.obs_normalizer(x[:, :6])), atol=1e-6)
    assert int(rough.obs_normalizer.count) == 0  # grown: restarts, so the first rollout sets all its statistics
    assert torch.equal(rough.obs_normalizer._mean[0, :6], flat.obs_normalizer._mean[0])
    # the new weights train: the zeroed ones get a gradient once the input reaches them
    rough.mlp(torch.randn(8, 11)).sum().backward()
    assert rough.mlp[0].weight.grad[:, 6:].abs().sum() > 0


def test_a_normaliser_of_the_same_size_keeps_its_count():
    old = EmpiricalNormalization(4)
    old.train()
    old.update(torch.randn(100, 4))
    state, grown = grown_state(old.state_dict(), EmpiricalNormalization(4).state_dict(), "flat")
    assert grown == [] and int(state["count"]) == 100


@pytest.mark.parametrize("new, message", [
    (Critic(4, [16, 8]), "'obs_normalizer._mean' is (1, 6), this run's (1, 4): a warm start can only add inputs"),
    (torch.nn.Sequential(torch.nn.Linear(6, 3)), "has no '0.weight': it is another network"),
])
def test_what_cannot_grow_is_a_one_line_error(new, message):
    with pytest.raises(WarmStartError) as error:
        grown_state(Critic(6, [16, 8]).state_dict(), new.state_dict(), "Checkpoint 'x.pt'")
    assert message in str(error.value) and "\n" not in str(error.value)


def test_a_recurrent_layer_cannot_grow():
    old, new = torch.nn.GRU(4, 8), torch.nn.GRU(4, 16)
    prefix = lambda module: {f"rnn.{name}": value for name, value in module.state_dict().items()}  # noqa: E731
    with pytest.raises(WarmStartError, match="recurrent layer 'rnn.weight_ih_l0' is"):
        grown_state(prefix(old), prefix(new), "Checkpoint 'x.pt'")
