"""rift.core."""
