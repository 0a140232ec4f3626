"""The network edge: httpx without its CLI, and how URL rules read a host (read README.md)."""
