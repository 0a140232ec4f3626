"""rift.core.permissions."""
