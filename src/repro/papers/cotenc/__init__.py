"""The CoT Encyclopedia: analyzing, predicting and controlling how a reasoning model will
think (ICLR 2026)."""
