"""rift.core.sessions."""
