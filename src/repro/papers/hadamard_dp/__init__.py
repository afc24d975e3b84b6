"""Differential privacy on Hadamard manifolds: exponential-wrapped mechanisms (ICLR 2026)."""
