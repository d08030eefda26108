"""`python -m fairlab ...` is the `fairlab` command."""

from fairlab.cli import main

main()
