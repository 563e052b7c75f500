"""The toolchain: compilers, the build cache and the emulator, and nothing of cipherspec above them.

A leaf package: it imports only the standard library, so every layer may use it and it never
reaches back up.

    toolchain.cc       any C compiler driver (cc, clang --target, aarch64 gcc): compile, cached by content
    toolchain.nvcc     find and run nvcc, read ptxas's resource report, build CUDA shared libraries
    toolchain.aarch64  the aarch64 cross compiler and qemu-aarch64: static harnesses, run under QEMU
    toolchain.cache    where cached builds live ($CIPHERSPEC_CACHE, else ~/.cache/cipherspec)
    toolchain.errors   ToolError: a tool is missing or failed (one line for the user, no traceback)
"""
