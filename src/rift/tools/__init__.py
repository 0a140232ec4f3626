"""rift.tools."""
