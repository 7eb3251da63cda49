"""Deployment runtime for exported LocoLab policies: needs only numpy and onnxruntime."""

from .policy_file import FORMAT, METADATA_FILE, PolicyFileError, PolicyFileWarning, read_policy_file
from .runtime import PolicyRuntime, RobotState, gravity_in_base_frame
from .overhead import safety_overhead
from .safety import INTERVENTIONS, SafetyLayer
