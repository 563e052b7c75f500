"""``python -m cipherspec`` is the ``cipherspec`` command."""
from .cli import main

main()
