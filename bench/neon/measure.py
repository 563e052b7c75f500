"""Measurements without ARM hardware: executed instructions (unicorn = QEMU's TCG with a code hook) and
llvm-mca cycle estimates.

    img = link(objs=[Path("k.o")], work)               -> Image: flat bytes at BASE + symbol addresses
    count(img, "aria128_neon_b16_il1_ecb_encrypt", args) -> instructions executed by one call
    mca(asm_lines, "neoverse-v2")                       -> estimated cycles per iteration of the lines
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

BASE = 0x400000
STACK = 0x7F000000
DATA = 0x10000000
STOP = 0x3FF000  # return address: a mapped page we never execute


@dataclass
class Image:
    blob: bytes
    symbols: dict[str, int]


def link(objs: list[Path], work: Path) -> Image:
    elf = work / "image.elf"
    subprocess.run(
        ["aarch64-linux-gnu-ld", "-static", "-e", "0", f"-Ttext=0x{BASE:x}", "-o", str(elf)] + [str(o) for o in objs],
        check=True,
        capture_output=True,
    )
    binf = work / "image.bin"
    subprocess.run(["aarch64-linux-gnu-objcopy", "-O", "binary", str(elf), str(binf)], check=True)
    syms = {}
    out = subprocess.run(["aarch64-linux-gnu-nm", str(elf)], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3:
            syms[parts[2]] = int(parts[0], 16)
    return Image(binf.read_bytes(), syms)


def count(img: Image, symbol: str, buffers: list[bytes], scalars: dict[int, int]) -> tuple[int, list[bytes]]:
    """Runs symbol(x0.. = buffers' addresses, then scalars by register index); returns the number of
    instructions executed and the buffers' contents afterwards."""
    from unicorn import UC_ARCH_ARM64, UC_HOOK_CODE, UC_MODE_ARM, Uc
    from unicorn import arm64_const as A

    mu = Uc(UC_ARCH_ARM64, UC_MODE_ARM)
    mu.ctl_set_cpu_model(A.UC_CPU_ARM64_MAX)  # AES and SHA3 (EOR3/BCAX) instructions
    size = (len(img.blob) + 0xFFFF) & ~0xFFFF
    mu.mem_map(STOP & ~0xFFF, 0x1000)
    mu.mem_map(BASE, size)
    mu.mem_write(BASE, img.blob)
    mu.mem_map(STACK - 0x100000, 0x100000)
    total = sum((len(b) + 0xFFF) & ~0xFFF for b in buffers) + 0x1000 * (len(buffers) + 1)
    mu.mem_map(DATA, (total + 0xFFFF) & ~0xFFFF)
    addr = DATA
    where = []
    regs = [A.UC_ARM64_REG_X0 + i for i in range(8)]
    for i, b in enumerate(buffers):
        mu.mem_write(addr, b)
        mu.reg_write(regs[i], addr)
        where.append((addr, len(b)))
        addr += ((len(b) + 0xFFF) & ~0xFFF) + 0x1000
    for i, v in scalars.items():
        mu.reg_write(regs[i], v)
    mu.reg_write(A.UC_ARM64_REG_CPACR_EL1, 3 << 20)  # FP/SIMD on
    mu.reg_write(A.UC_ARM64_REG_SP, STACK - 0x1000)
    mu.reg_write(A.UC_ARM64_REG_LR, STOP)
    n = [0]

    def hook(uc, address, size, user):
        n[0] += 1

    mu.hook_add(UC_HOOK_CODE, hook)
    mu.emu_start(img.symbols[symbol], STOP)
    return n[0], [bytes(mu.mem_read(a, k)) for a, k in where]


def mca_tool() -> str | None:
    return (
        shutil.which("llvm-mca-19")
        or (Path("/usr/lib/llvm-19/bin/llvm-mca").exists() and "/usr/lib/llvm-19/bin/llvm-mca")
        or None
    )


def mca(lines: list[str], cpu: str, iterations: int = 200) -> float:
    """Estimated cycles per iteration of a straight-line block (llvm-mca's steady state)."""
    tool = mca_tool()
    text = "\n".join(line.split("//")[0] for line in lines) + "\n"
    r = subprocess.run(
        [tool, "-mtriple=aarch64-linux-gnu", f"-mcpu={cpu}", "-mattr=+aes,+sha3", f"-iterations={iterations}"],
        input=text,
        capture_output=True,
        text=True,
    )
    if r.returncode:
        raise RuntimeError(r.stderr[-2000:])
    m = re.search(r"Total Cycles:\s+(\d+)", r.stdout)
    return int(m.group(1)) / iterations


def loop_body(asm: str, symbol: str) -> list[str]:
    """The lines of a kernel's main loop (between its '1:' label and 'b.ne 1b')."""
    text = asm.split(f"\n{symbol}:\n", 1)[1]
    body = text.split("\n1:\n", 1)[1].split("b.ne 1b", 1)[0]
    return [line for line in body.splitlines() if line.strip()]  # the branch itself: mca cannot take labels
