"""``python -m cipherspec``: the `cipherspec` command."""

from .api import main

main()
