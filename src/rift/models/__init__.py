"""rift.models."""
