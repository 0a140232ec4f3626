"""Text at rift's borders and regexes compiled on first use (read README.md)."""
