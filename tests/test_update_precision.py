"""The update's number format: float32 leaves torch alone; bfloat16 runs the matrix products in bfloat16 while the
weights and their gradients stay float32; anything else is refused with the accepted values named."""

from __future__ import annotations

import pytest
import torch

from locolab.runners.update_precision import check_update_precision, update_precision


@pytest.mark.parametrize(("precision", "dtype"), [("float32", torch.float32), ("bfloat16", torch.bfloat16)])
def test_the_matrix_products_run_in_the_chosen_format_and_the_weights_stay_float32(precision, dtype):
    layer = torch.nn.Linear(8, 4)
    with update_precision(precision, "cpu"):
        output = layer(torch.randn(16, 8))
    assert output.dtype == dtype
    output.float().square().mean().backward()
    assert layer.weight.dtype == layer.weight.grad.dtype == torch.float32


def test_bfloat16_products_agree_with_float32_to_bfloat16_precision():
    layer = torch.nn.Linear(64, 64)
    inputs = torch.randn(256, 64)
    exact = layer(inputs)
    with update_precision("bfloat16", "cpu"):
        rounded = layer(inputs).float()
    assert torch.allclose(rounded, exact, rtol=2e-2, atol=2e-2) and not torch.equal(rounded, exact)


@pytest.mark.parametrize("precision", ["float16", "fp32", ""])
def test_an_unknown_precision_is_refused_with_the_accepted_values(precision):
    with pytest.raises(ValueError, match="must be one of float32, bfloat16"):
        check_update_precision(precision)
