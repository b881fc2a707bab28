"""`python -m failwell`."""

from .cli import main

main()
