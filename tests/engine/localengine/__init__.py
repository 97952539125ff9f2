"""The local Engine: an emulator of the Anexia Engine HTTP API for the demo, the tests and benchmarks."""
