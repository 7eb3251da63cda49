"""rsl_rl agent configs for LocoLab tasks."""
