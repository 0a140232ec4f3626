"""Black-box conformance tests for `rift --serve` (shared/spec/serve-protocol-v1.md)."""
