#!/usr/bin/env bash
# generated/openssl-provider: the OpenSSL provider's generated glue and openssl.cnf for every shipped
# cipher (`cipherspec build --all --target openssl-provider` writes the same two files; its C library
# sources are generated/c's, and the module itself is a build product that stays out of git).
#   bash scripts/regenerate_openssl.sh OUT      (writes OUT/openssl-provider/{src/cipherspec_provider.c,openssl.cnf})
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: regenerate_openssl.sh OUT}"
rm -rf "$out/openssl-provider"
python3 - "$out/openssl-provider" <<'PY'
import sys
from pathlib import Path

from cipherspec.registry import Registry
from generator.openssl.build import provider_entries
from generator.openssl.source import provider_files

reg = Registry()
for rel, text in provider_files(provider_entries(reg, reg.names(), None)).items():
    path = Path(sys.argv[1]) / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
PY
