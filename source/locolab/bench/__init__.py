"""Benchmark harnesses: throughput (:mod:`.throughput`), time to walking (:mod:`.time_to_walk`), long-run soak
(:mod:`.soak`) and MuJoCo C's speed alone (:mod:`.mujoco_c_throughput`), with what they share: launching
``scripts/train.py`` (:mod:`.launcher`), reading a run's TensorBoard scalars (:mod:`.tensorboard`) and a process
tree's resources (:mod:`.processes`)."""
