"""Installs LocoLab: the library from source/locolab, task and agent configs as locolab.tasks / locolab.agents."""

from setuptools import find_packages, setup

setup(
    name="locolab",
    version="0.1.0",
    description="Massively parallel legged-robot locomotion training on Isaac Lab 3 (Newton) and rsl_rl.",
    python_requires=">=3.12,<3.13",
    packages=["locolab", *(f"locolab.{name}" for name in find_packages("source/locolab")), "locolab.tasks",
              "locolab.agents"],
    package_dir={"locolab": "source/locolab", "locolab.tasks": "tasks", "locolab.agents": "agents"},
    install_requires=[
        "isaaclab==3.0.0",
        "rsl-rl-lib==5.5.1",
        "tensorboard",
        "imageio",
        "imageio-ffmpeg",
        "mujoco",
        "filelock",
        "onnxruntime",
        "matplotlib",
        "psutil",
    ],
    extras_require={"test": ["pytest", "pytest-xdist", "pytest-timeout"]},
)
