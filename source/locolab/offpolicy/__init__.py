"""Off-policy pieces beside the SAC algorithm: collectors, the replay buffer and n-step returns."""
