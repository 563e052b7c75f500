"""``python -m driver`` is the ``cipherspec`` command."""

from .cli import main

main()
