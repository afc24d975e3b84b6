"""Relative Value Learning: pairwise value-difference critic and R-GAE (ICLR 2026)."""
