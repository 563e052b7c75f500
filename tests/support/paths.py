"""Where things are, for every test layer."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT.parent / "shared" / "vectors"
TOY_SPEC = ROOT / "tests" / "data" / "toy.cs"
BLOCK_VECTOR_FILES = ["aes.txt", "aria.txt", "cham.txt", "hight.txt", "lea.txt", "pipo.txt"]
