"""LFST + STEE: learnable fractional superlets for speech emotion recognition."""
