"""NFT: Negative-aware Fine-Tuning (arXiv 2505.18116), reproduced on Countdown."""
