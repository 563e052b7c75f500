"""The runtime: thin loaders that call built code from Python with the cipher-object interface
(cipherspec.blockcipher): nothing here generates or compiles a cipher (generator/ does, through
toolchain/), and nothing imports generator/.

    runtime.c_target.CCipher        a host C library through ctypes (c_drbg: its CTR_DRBG)
    runtime.neon_target.NeonCipher  AArch64 kernels in a static harness under qemu-aarch64
    runtime.cuda_target.CudaCipher  a CUDA library through ctypes (GPU machines)
    runtime.c_abi                   the C libraries' error codes (rendered into their headers)
"""
