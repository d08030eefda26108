"""`python -m fairlab.cli ...` is the `fairlab` command."""

from fairlab.cli import main

main()
