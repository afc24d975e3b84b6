"""Spectrum Suite / Spectrum Tuning: in-context steerability and distributional coverage."""
