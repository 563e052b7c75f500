#!/usr/bin/env bash
# generated/neon: the NEON kernels (.S) and headers of every shipped cipher under its default schedule.
# Deterministic text only (no objects), so CI can diff it.   bash scripts/regenerate_neon.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-generated}/neon"
rm -rf "$out"
python3 -c "
import sys
from pathlib import Path
from cipherspec.registry import Registry
from generator.neon.build import build
reg = Registry()
build(reg, reg.names(), None, Path(sys.argv[1]), None, library=False)
" "$out"
echo "generated/neon: $(ls "$out" | wc -l) files"
