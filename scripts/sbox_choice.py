"""Records the GPU's S-box circuit picks (generator/ptx/sbox_choice.json): python3 scripts/sbox_choice.py
(~90 s of CPU; run it after changing the search, the circuits or the LOP3 cover, and commit the JSON)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from generator.ptx.sbox_choice import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
