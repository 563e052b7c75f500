"""Where the start-up of `cipherspec encrypt` goes: fresh processes that stop at successive points of the
quickload path, and the steps that run in the process timed in place.

    python3 bench/cli/startup.py [--reps 15] [--cipher lea128]

Each figure is the MINIMUM wall time over --reps fresh processes (the least disturbed run: the machine
is shared), run as the command runs (this interpreter, PYTHONPATH = this checkout, the inherited
environment), once as inherited and once with bytecode cached in a temporary PYTHONPYCACHEPREFIX (as an
installed package has it).  Prints a table; nothing is written.  The command is the bench's
(bench/cli/bench.py): empty input, CTR, the key from a file.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from driver.quickload import load_cipher  # noqa: E402

STREAMING = "import driver.streaming, driver.quickload, cipherspec.chunked, driver.pump, driver.fileio"
IN_PROCESS = """
import time
t0 = time.perf_counter()
from driver import cli, quickload
t1 = time.perf_counter()
k = quickload.fingerprint([], CIPHER, None, "c", None)
t2 = time.perf_counter()
c = quickload._hit(k, CIPHER, None)
t3 = time.perf_counter()
cli.build_parser("encrypt")
t4 = time.perf_counter()
c.expand_key(bytes(c.key_bytes))
t5 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4)
"""
STEPS = (
    "import driver.cli, driver.quickload",
    "the key (fingerprint: read + hash the compiler)",
    "the hit (library digest, dlopen, symbols)",
    "the encrypt parser",
    "set_key",
)


def best(argv: list[str], env: dict, reps: int) -> float:
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        subprocess.run(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True, cwd=ROOT)
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--cipher", default="lea128")
    a = ap.parse_args()
    c = load_cipher([], a.cipher)  # builds the library and its entry if needed
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        keyfile = os.path.join(tmp, "key")
        Path(keyfile).write_bytes(bytes(c.key_bytes))
        command = [py, "-m", "driver", "encrypt", a.cipher, "--mode", "ctr", "--key-file", keyfile]
        command += ["--iv", bytes(c.block_bytes).hex()]
        stages = [
            ("interpreter and site (python -c pass)", [py, "-c", "pass"]),
            ("+ the command line (import driver.cli)", [py, "-c", "import driver.cli"]),
            ("+ the streaming path's imports", [py, "-c", STREAMING]),
            ("the whole command on empty input", command),
        ]
        inherited = dict(os.environ, PYTHONPATH=str(ROOT))
        cached = dict(inherited, PYTHONPYCACHEPREFIX=os.path.join(tmp, "pyc"))
        cached.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run(command, env=cached, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=True)
        print(f"load average {os.getloadavg()[0]:.1f}; minimum of {a.reps} fresh processes; {a.cipher}")
        print(f"{'stage':48} {'as inherited':>14} {'bytecode cached':>16}")
        for label, argv in stages:
            print(
                f"{label:48} {best(argv, inherited, a.reps) * 1e3:11.0f} ms {best(argv, cached, a.reps) * 1e3:13.0f} ms"
            )
        runs = []
        for _ in range(a.reps):
            out = subprocess.run(
                [py, "-c", IN_PROCESS.replace("CIPHER", repr(a.cipher))],
                env=cached,
                check=True,
                capture_output=True,
                text=True,
                cwd=ROOT,
            ).stdout
            runs.append([float(x) for x in out.split()])
        for i, label in enumerate(STEPS):
            print(f"  in process, bytecode cached: {label:48} {min(r[i] for r in runs) * 1e3:6.1f} ms")


if __name__ == "__main__":
    main()
