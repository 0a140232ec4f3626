"""rift.core.context."""
