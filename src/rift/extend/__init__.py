"""rift.extend."""
