"""rift.testing."""
