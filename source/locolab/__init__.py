"""LocoLab: massively parallel legged-robot locomotion training on Isaac Lab 3 (Newton) and rsl_rl.

The package itself imports nothing heavy, so that :mod:`locolab.deploy` runs on a robot with only numpy and
onnxruntime. The Isaac Lab glue (:mod:`locolab.envs`, :mod:`locolab.tasks`) points Isaac Lab's asset root at
LocoLab's generated offline assets when it is imported (:func:`locolab.assets.use_offline_asset_root`).
"""
