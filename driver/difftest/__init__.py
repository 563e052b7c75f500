"""``cipherspec test``: differential testing of any spec on every target this machine has.

cases    the inputs: keys, IVs and data from a seed; lane-group and block boundaries, counter carries
modes    one check per mode against the interpreter (ECB, CBC, CTR; an AEAD mode is one more class)
targets  what runs a cipher (c_targets, backend_targets; units: what they are made of): c (every ISA variant), c-memcheck, neon, c-aarch64, c-s390x, cuda,
         openssl-provider; each says what to install when its tools are missing
locate   a traced C build of the failing block's IR: the first value that differs, and its spec location
session  the run: results, reproducers, the per-unit lines;  junit  the XML report

from driver.difftest.session import Options, Session
results = Session(Options(specs=["examples/ciphers/sm4.cs"], targets=["c"]), sys.stdout).run()
"""
