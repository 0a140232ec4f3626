"""Language servers: diagnostics after edits, never a server the repo ships (README.md)."""
