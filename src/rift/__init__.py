"""rift: a coding agent for self-hosted language models.

Importing this package does nothing but define the version: every component is
imported by the front end that needs it, which keeps `rift --version` instant.
"""

__version__ = "0.1.0"
DISTRIBUTION = "rift-agent"
"""The name pip knows this package by (pyproject's `name`). PyPI's `rift` is an
unrelated project, so anything that installs or looks up rift uses this name."""
__all__ = ["DISTRIBUTION", "__version__"]
