# LocoLab: `make train` and `make test` each set up everything they need on a fresh machine, then run.
SHELL := /bin/bash
VENV ?= .venv
PYTHON := $(VENV)/bin/python
INSTALLED := $(VENV)/.locolab-installed
TRAIN_ARGS ?=
PYTEST_ARGS ?=
TEST_WORKERS ?= 2

.PHONY: train test install system-deps clean-logs

train: install
	$(PYTHON) scripts/train.py $(TRAIN_ARGS)

# Two pytest workers, a test file each at a time: most tests wait on one simulation process (Warp steps the CPU
# physics on one thread), so two run side by side on 2 cores. TEST_WORKERS=0 runs them one after another.
test: install
	$(PYTHON) -m pytest -n $(TEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

install: $(INSTALLED) system-deps

$(PYTHON):
	python312="$$(scripts/find_python312.sh)" && "$$python312" -m venv $(VENV)

# isaaclab==3.0.0 pins torch 2.11, warp-lang 1.17, newton 1.6.1, rsl-rl-lib 5.5.1 (about 8 GB, 5 minutes).
$(INSTALLED): setup.py | $(PYTHON)
	$(PYTHON) -m pip install --quiet --upgrade pip
	$(PYTHON) -m pip install --quiet -e '.[test]'
	touch $(INSTALLED)

# MuJoCo renders play.py's videos offscreen; on a CPU-only machine that needs the OSMesa library.
system-deps:
	@if ldconfig -p | grep -q libOSMesa.so; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq libosmesa6 >/dev/null; \
	elif command -v sudo >/dev/null; then sudo apt-get update -qq && sudo apt-get install -y -qq libosmesa6 >/dev/null; \
	else echo "warning: libosmesa6 is missing and cannot be installed here; CPU video rendering will fail" >&2; fi

clean-logs:
	rm -rf logs
