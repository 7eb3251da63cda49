"""Convert a checkpoint you trust into one LocoLab loads as data (numpy arrays -> tensors, numpy scalars -> numbers).

    python scripts/convert_checkpoint.py logs/<experiment>/<run>/model_500.pt          # -> model_500_data.pt

LocoLab loads checkpoints with torch's ``weights_only=True``: nothing in a file runs. A file that holds more (numpy
objects from an older tool, or a payload) is refused with a line naming what it holds. This script unpickles the
file with code allowed to run: give it only files you trust. The source is not changed.
"""

from __future__ import annotations

import argparse
import sys

from locolab.runners.checkpoint_conversion import convert_checkpoint
from locolab.runners.checkpoints import CheckpointError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint", help="the model_<it>.pt to convert")
    parser.add_argument("--out", default=None, help="where to write it (default: <stem>_data.pt beside it)")
    args = parser.parse_args(argv)
    try:
        written = convert_checkpoint(args.checkpoint, args.out)
    except CheckpointError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"[LocoLab] Converted {args.checkpoint} -> {written} (loads as data)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
