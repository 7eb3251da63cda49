"""Fails fast, with the file named, when an environment config refers to an asset that is not on this machine.

Isaac Lab resolves a missing asset by asking the cloud, which stalls about 60 s on an offline machine before a
deep FileNotFoundError. LocoLab walks the config before the environment is built and refuses remote URLs and
missing local files up front.
"""

from __future__ import annotations

import dataclasses
import os

ASSET_FIELDS = ("usd_path", "mdl_path", "texture_file", "network_file", "file_path")
"""Config fields that name a file Isaac Lab would load or download."""


class MissingAssetError(FileNotFoundError):
    """An asset named by the environment config is remote or absent."""


def _is_remote(path: str) -> bool:
    return "://" in path


def _walk(node, where: str):
    """Yield (config path, value) for every asset field below ``node``."""
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        for field in dataclasses.fields(node):
            if field.name.endswith("visualizer_cfg") and getattr(node, "debug_vis", None) is False:
                continue  # debug markers are spawned only when debug_vis is on
            value = getattr(node, field.name, None)
            if field.name in ASSET_FIELDS and isinstance(value, str):
                yield f"{where}.{field.name}", value
            else:
                yield from _walk(value, f"{where}.{field.name}")
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _walk(value, f"{where}[{key!r}]")
    elif isinstance(node, (list, tuple)):
        for index, value in enumerate(node):
            yield from _walk(value, f"{where}[{index}]")


def referenced_assets(env_cfg) -> list[tuple[str, str]]:
    """Every (config path, file) the environment will load, including the implicit default ground plane."""
    assets = list(_walk(env_cfg, "env_cfg"))
    terrain = getattr(env_cfg.scene, "terrain", None)
    if terrain is not None and terrain.terrain_type == "plane":
        from isaaclab.sim import GroundPlaneCfg

        assets.append(("env_cfg.scene.terrain (plane: GroundPlaneCfg.usd_path)", GroundPlaneCfg().usd_path))
    return assets


def check_assets_offline(env_cfg) -> None:
    """Raise :class:`MissingAssetError` naming the first remote or missing asset in ``env_cfg``."""
    for where, path in referenced_assets(env_cfg):
        if _is_remote(path):
            raise MissingAssetError(
                f"{where} refers to the remote asset '{path}', and LocoLab runs offline. Point it at a local file "
                f"(LocoLab's generated assets live under $ISAACSIM_ASSET_ROOT="
                f"{os.environ.get('ISAACSIM_ASSET_ROOT')}) or set the field to None."
            )
        if not os.path.isfile(path):
            raise MissingAssetError(
                f"Asset file not found: '{path}' (named by {where}). Generated robot files are rebuilt when "
                f"locolab.envs is imported; for other assets, put the file there or fix the path."
            )
