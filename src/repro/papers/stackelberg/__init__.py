"""Bandit learning in contextual Stackelberg games (Balcan et al., ICLR 2026)."""
