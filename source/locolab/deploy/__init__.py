"""Deployment runtime for exported LocoLab policies: needs only numpy and onnxruntime."""

from .runtime import FORMAT, METADATA_FILE, PolicyRuntime, RobotState, gravity_in_base_frame
