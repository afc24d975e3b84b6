"""ROVER: Random Policy Valuation for Diverse Reasoning (arXiv 2509.24981)."""
