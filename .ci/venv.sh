#!/usr/bin/env bash
# Create a virtual environment at $1 and install Cadence into it (editable), with extras $2 (e.g. "test").
# torch's CPU build goes in first when torch is missing, so the install never pulls a multi-GB CUDA build.
set -euo pipefail
venv="${1:?usage: .ci/venv.sh VENV_DIR [EXTRAS]}"
extras="${2:-}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
if ! "$venv/bin/python" -c "import torch" 2>/dev/null; then
  # On this machine type torch 2.13.0 is a CPU build on local disk. Elsewhere, install a CPU wheel of
  # torch into the venv before running this script (pip then keeps it: pyproject asks for torch>=2.3).
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "torch==2.13.0"
fi
target="$here"
[ -n "$extras" ] && target="$here[$extras]"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$target"
