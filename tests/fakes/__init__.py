"""The scripted fake model server the tests and benchmarks talk to (tests/fakes/)."""
