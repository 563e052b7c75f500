#!/usr/bin/env bash
# The test command: set up, lint, format check, type-check, run every test layer, and check that generated/ is what the compiler makes now.
#   bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export CIPHERSPEC_REQUIRE_TOOLS=1   # a test that needs QEMU, a cross compiler or nvcc fails instead of skipping
python3 -m ruff check .             # lint: rules in [tool.ruff] of pyproject.toml
python3 -m ruff format --check .    # the one code format
python3 -m mypy                     # the type check: packages and options from [tool.mypy] in pyproject.toml
python3 -m pytest tests -n 2 -p no:cacheprovider -q
bash scripts/check_generated.sh
