"""The server pool: one scheduler over the user's `hosts` (read README.md)."""
