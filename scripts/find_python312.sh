#!/usr/bin/env bash
# Prints the path of a CPython 3.12 interpreter (Isaac Lab 3.0 installs on 3.12 only).
# Order: $PYTHON312, a working `python3.12` on PATH, pyenv's 3.12.x installs, uv's managed 3.12.
set -euo pipefail
candidates=()
[[ -n "${PYTHON312:-}" ]] && candidates+=("$PYTHON312")
command -v python3.12 >/dev/null 2>&1 && candidates+=("$(command -v python3.12)")
pyenv_root="${PYENV_ROOT:-$HOME/.pyenv}"
for path in "$pyenv_root"/versions/3.12*/bin/python3.12; do [[ -x "$path" ]] && candidates+=("$path"); done
command -v uv >/dev/null 2>&1 && candidates+=("$(uv python find 3.12 2>/dev/null || true)")
for python in "${candidates[@]}"; do
  # a pyenv shim answers `command -v` but fails when 3.12 is not the selected version: run it to be sure
  if [[ -n "$python" ]] && "$python" -c 'import sys; assert sys.version_info[:2] == (3, 12)' >/dev/null 2>&1; then
    echo "$python"; exit 0
  fi
done
echo "No Python 3.12 found. Install CPython 3.12 (e.g. 'pyenv install 3.12') or set PYTHON312=/path/to/python3.12." >&2
exit 1
