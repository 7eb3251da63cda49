"""Export of trained policies for robots: a self-contained, parity-checked ONNX file and its metadata."""

from .metadata import policy_metadata
from .onnx_policy import PARITY_TOLERANCE, ExportError, export_onnx, recurrent_description
