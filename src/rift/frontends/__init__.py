"""rift.frontends."""
