"""rift.core.loop."""
