"""`python -m rift` is the same as the `rift` console script."""

from rift.cli import entry

entry()
