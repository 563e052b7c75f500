#!/usr/bin/env bash
# On the GPU machine: the family GCM object (generator/ptx/source.py's parts: a lane layout's GCM kernels compiled
# once for a spec family and linked into each member's library) against a tree without it, the libraries exactly as
# `cipherspec build` makes them, loaded side by side in one process, every output checked against the C library:
# CTR and ECB (ctr_ab.py: the round keys' head words move every kernel's offsets), the GCM routes hashed on the
# tensor cores (gcm_tc_ab.py) and the fused ones (gcm_fused_ab.py); then each library's per-kernel registers --
# keyorder.sh with the tensor-core routes too.
#   bash bench/gpu/gcm_family.sh base=.ab/base family=.        (an arm: NAME=TREE, a checkout or a `git archive`)
AB_SCRIPTS="ctr_ab gcm_tc_ab gcm_fused_ab" exec bash "$(dirname "$0")/keyorder.sh" "$@"
