"""Diffusion decision-focused learning."""
