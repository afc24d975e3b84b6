"""Align Once, Benefit Multilingually: the Multi-Lingual Consistency (MLC) loss for safety
alignment (ICLR 2026)."""
