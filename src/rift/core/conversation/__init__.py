"""rift.core.conversation."""
