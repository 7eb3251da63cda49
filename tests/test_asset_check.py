"""Every asset an environment config names must be a local file: remote URLs and missing files fail up front."""

from __future__ import annotations

import pytest

from locolab.envs import MissingAssetError, check_assets_offline
from locolab.tasks.go2_velocity_env_cfg import LocoLabGo2FlatEnvCfg


def test_locolab_task_config_names_only_local_files():
    check_assets_offline(LocoLabGo2FlatEnvCfg())


def test_remote_url_is_refused_with_the_field_named():
    cfg = LocoLabGo2FlatEnvCfg()
    cfg.scene.robot.spawn.usd_path = "https://example.invalid/Robots/go2.usd"
    with pytest.raises(MissingAssetError, match=r"env_cfg\.scene\.robot\.spawn\.usd_path.*remote asset"):
        check_assets_offline(cfg)


def test_missing_local_file_is_refused_with_the_file_named(tmp_path):
    cfg = LocoLabGo2FlatEnvCfg()
    cfg.scene.robot.spawn.usd_path = str(tmp_path / "nowhere.usd")
    with pytest.raises(MissingAssetError, match="nowhere.usd"):
        check_assets_offline(cfg)
