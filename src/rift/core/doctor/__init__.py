"""`rift doctor` and the quick checks after a switch of server (read README.md)."""
