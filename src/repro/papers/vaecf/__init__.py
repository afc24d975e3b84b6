"""VAE collaborative filtering: Mult-VAE, input masking, beta-KL and the anchor regularizer."""
