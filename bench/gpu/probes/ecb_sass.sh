#!/usr/bin/env bash
# Probe (device): the ECB kernels' SASS of two trees side by side -- instruction count and constant loads of each
# ecb_enc/ecb_dec kernel, and the decrypt kernel's registers and constant bank, for AES-256 as `cipherspec build`
# makes it.  Made for the family GCM object's one open cost (bench/results/device-2026-11-27i/README.md: AES ECB
# decrypt 3-5% slower while its PTX differs only in round-key offsets).   bash bench/gpu/probes/ecb_sass.sh
# (from the repository root, main's export in .ab/base, the lark wheel in .whl)
. bench/gpu/device_env.sh
. bench/gpu/arms.sh
cs_ab_start aes256
cs_build_arm base "$PWD/.ab/base" aes256
cs_build_arm family "$PWD" aes256
wait
for a in base family; do
  cuobjdump -sass "$OUT"/arms/$a/lib*.so > "/tmp/$a.sass"
  python3 - "/tmp/$a.sass" $a <<'PY'
import collections
import re
import sys

text = open(sys.argv[1]).read()
for m in re.finditer(r"Function : (\S+)\n(.*?)(?=\n\s*Function : |\Z)", text, re.S):
    if "ecb_dec" in m.group(1) or "ecb_enc" in m.group(1):
        ops = re.findall(r"/\*[0-9a-f]{4}\*/\s+(?:@!?P\d+\s+)?([A-Z][A-Z0-9_.]*)", m.group(2))
        kinds = collections.Counter(o.split(".")[0] for o in ops)
        ldc = collections.Counter(o for o in ops if o.startswith("LDC"))
        name = "ecb_dec" if "ecb_dec" in m.group(1) else "ecb_enc"
        print(sys.argv[2], name, len(ops), dict(ldc), {k: kinds[k] for k in ("LOP3", "IMAD", "BRA", "STL", "LDL")})
PY
  cuobjdump -res-usage "$OUT"/arms/$a/lib*.so | grep -A1 ecb_dec | tail -1
done
