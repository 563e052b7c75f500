"""The wheel as a user gets it: build it (no network: --no-deps --no-build-isolation), install it into a fresh
venv, and check that it claims only the `cipherspec` import name and works from there.

    python3 tests/support/wheelcheck.py [--readme]      # prints each step; exit 1 on a failure

The venv has no pip of its own and sees no site directory of the machine, so neither the checkout nor its
editable install can stand in for the wheel; the runtime dependencies (lark, numpy, Jinja2, rich), which
must already be installed, are reached through one .pth line naming the directory each was imported from
(a plain path: .pth files there are not processed).  The checks: top-level names in the venv's
site-packages; `cipherspec --help`; `cipherspec build lea128 --target c`; `cipherspec.load("lea128").ctr`
equal to target="ref", with no module outside the `cipherspec` name imported; with --readme, README.md's
blocks run with the installed command (tests/support/docblocks.py).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEPENDENCIES = ("lark", "numpy", "jinja2", "rich", "markupsafe", "pygments", "markdown_it", "mdurl")
ALLOWED = {"cipherspec", "deps.pth"}

LOAD_CHECK = """
import sys, cipherspec
key, iv, data = bytes(range(16)), bytes(range(16, 32)), bytes(range(256)) * 5 + b"tail"
out = cipherspec.load("lea128").ctr(key, iv, data)
assert out == cipherspec.load("lea128", target="ref").ctr(key, iv, data), "C library != interpreter"
outside = sorted({m.split(".")[0] for m in sys.modules} & {"driver", "generator", "runtime", "toolchain"})
assert not outside, f"imported outside the cipherspec name: {outside}"
assert "/site-packages/cipherspec/" in cipherspec.__file__, cipherspec.__file__
print(cipherspec.__file__)
print("ctr equals ref:", out[0][:16].hex(), "...")
"""


def setup_rewrite():
    """setup.py's ``rewrite(text, where)``, without running setup()."""
    source = (ROOT / "setup.py").read_text().split("\nsetup(")[0]
    namespace: dict = {"__file__": str(ROOT / "setup.py"), "__name__": "cipherspec_setup"}
    exec(compile(source, str(ROOT / "setup.py"), "exec"), namespace)
    return namespace["rewrite"]


def _run(argv: list[str], cwd: Path, env: dict[str, str], log: list[str], timeout: int = 300) -> str:
    log.append("$ " + " ".join(str(a) for a in argv))
    p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    log.append((p.stdout + p.stderr).rstrip())
    if p.returncode:
        raise AssertionError(f"exit {p.returncode}:\n" + "\n".join(log[-2:]))
    return p.stdout


def check(tmp: Path, readme: bool = False) -> list[str]:
    """Runs every step in ``tmp``; returns the log (raises AssertionError on a failed check)."""
    log: list[str] = []
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    _run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(tmp / "dist"), "."],
        ROOT,
        env,
        log,
    )
    wheel = next((tmp / "dist").glob("cipherspec-*.whl"))
    venv = tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp, env, log)
    py = venv / "bin" / "python"
    site = Path(
        _run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp, env, log).strip()
    )
    dirs = []
    for dep in DEPENDENCIES:
        spec = importlib.util.find_spec(dep)
        if spec is None or not spec.origin:
            raise AssertionError(f"runtime dependency {dep} is not installed (pip install .'s dependencies)")
        dirs.append(str(Path(spec.origin).parent.parent))
    (site / "deps.pth").write_text("\n".join(dict.fromkeys(dirs)) + "\n")
    _run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", "--no-index", str(wheel)],
        tmp,
        env,
        log,
    )
    top = sorted(p.name for p in site.iterdir() if not p.name.endswith(".dist-info") and p.name != "__pycache__")
    infos = sorted(p.name for p in site.iterdir() if p.name.endswith(".dist-info"))
    log.append(f"site-packages: {top} + {infos}")
    if set(top) != ALLOWED or [i.split("-")[0] for i in infos] != ["cipherspec"]:
        raise AssertionError(f"the wheel installs {top} {infos}; only cipherspec (and its dist-info) is allowed")
    env = dict(env, PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    work = tmp / "work"
    work.mkdir()
    help_text = _run([str(venv / "bin" / "cipherspec"), "--help"], work, env, log)
    if "build" not in help_text or "encrypt" not in help_text:
        raise AssertionError("cipherspec --help lists no commands")
    _run([str(venv / "bin" / "cipherspec"), "build", "lea128", "--target", "c", "-o", "out"], work, env, log)
    if not (work / "out" / "lib" / "liblea128.so").is_file():
        raise AssertionError("cipherspec build lea128 made no out/lib/liblea128.so")
    _run([str(py), "-c", LOAD_CHECK], work, env, log)
    if readme:
        _run(
            [
                str(py),
                str(ROOT / "tests/support/docblocks.py"),
                "--bin",
                str(venv / "bin"),
                "--python",
                str(py),
                str(ROOT / "README.md"),
            ],
            work,
            env,
            log,
        )
    return log


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as t:
        try:
            print("\n".join(check(Path(t), readme="--readme" in sys.argv)))
        except AssertionError as e:
            print(f"FAIL {e}", file=sys.stderr)
            sys.exit(1)
    print("wheel check: ok")
