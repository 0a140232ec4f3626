"""rift: a coding agent for self-hosted language models.

Importing this package does nothing but define the version: every component is
imported by the front end that needs it, which keeps `rift --version` instant.
"""

__version__ = "0.1.0"
__all__ = ["__version__"]
